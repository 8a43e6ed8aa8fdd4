// ValidationResult.swift - whether a write passed its rules.

/// Whether a write passed its rules.
public enum ValidationResult: Equatable, Hashable, Sendable {
    /// It passed (in lenient mode, possibly after coercion; see the log).
    case ok
    /// It was refused; `reason` names the key path and the rule.
    case failed(reason: String)

    /// Whether this is `.ok`.
    public var isOK: Bool { self == .ok }
}
