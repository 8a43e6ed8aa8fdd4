// Milliseconds.swift - the unit every benchmark reports in.

extension Duration {
    /// This duration in milliseconds.
    public var milliseconds: Double {
        Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15
    }
}
