// ValidationOptions.swift - how strictly a store checks writes, and against which rules.

/// How a store checks writes: the mode and the rule of each key path.
public struct ValidationOptions: Equatable, Sendable {
    /// What happens to a write that breaks a rule.
    public enum Mode: String, Equatable, Sendable, Codable {
        /// The write is refused: `set` returns `.failed(reason:)` and
        /// nothing changes.
        case strict
        /// The value is coerced (`"1"` → 1, `"true"` → true, a colour or URL
        /// string → `.color`/`.url`), else replaced by the rule's default; a
        /// warning is logged.  Without a default the write is refused.
        case lenient
    }

    /// What happens to a write that breaks a rule.
    public var mode: Mode
    /// The rule of each key path (wildcards allowed: `items[*].price`).
    public var schema: [String: ValidationRule]

    /// Options; no rules means every write passes.
    public init(mode: Mode, schema: [String: ValidationRule] = [:]) {
        self.mode = mode
        self.schema = schema
    }
}
