// Milliseconds.swift - the unit every benchmark reports in.
#if Server

extension Duration {
    /// This duration in milliseconds.
    public var milliseconds: Double {
        Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15
    }
}
#endif
