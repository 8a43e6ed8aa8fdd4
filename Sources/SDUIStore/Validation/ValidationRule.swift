// ValidationRule.swift - what one key path may hold.

/// What one key path (or, with `[*]`, every path it stands for) may hold.
///
/// `min` and `max` bound a number's value, a string's length in Unicode
/// scalars and an array's or object's count.  `pattern` is a regular
/// expression in the expression language's `matches` subset
/// (docs/expressions.md), tried on strings.
public struct ValidationRule: Codable, Equatable, Hashable, Sendable {
    /// The kind of value a rule wants.
    public enum Kind: String, Codable, Sendable, Hashable {
        case string, number, integer, bool, color, url, array, object
    }

    /// The kind of value wanted.  `number` accepts integers too; `color`
    /// and `url` accept strings in those forms (JSON has no such types).
    public var kind: Kind
    /// Whether the key must hold a value: a write that leaves it absent
    /// (a removal, or a parent written without it) is refused, or in
    /// lenient mode filled with `defaultValue`.
    public var required: Bool
    /// The value written when a lenient write cannot be coerced, and for a
    /// required key that is missing when validation is configured.
    public var defaultValue: StoreValue?
    /// The least number, length or count allowed.
    public var min: Double?
    /// The greatest number, length or count allowed.
    public var max: Double?
    /// A pattern a string must match (the expression language's `matches`).
    public var pattern: String?

    /// A rule; only `kind` is needed.
    public init(kind: Kind, required: Bool = false, defaultValue: StoreValue? = nil,
                min: Double? = nil, max: Double? = nil, pattern: String? = nil) {
        self.kind = kind
        self.required = required
        self.defaultValue = defaultValue
        self.min = min
        self.max = max
        self.pattern = pattern
    }
}

/// The short name examples use for ``ValidationRule``.
public typealias Rule = ValidationRule
