// JSONValue.swift - the one JSON value type of SDUIKit, a Swift value type.

/// A JSON value: token props, bindings, themes, render-tree props and any
/// other JSON the client modules hold as data.  Integers and decimals stay
/// apart (`.int` for integers that fit 64 bits, `.double` otherwise).
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in 64 bits.
    case int(Int64)
    /// A number not held as `.int`: one with a fraction or an exponent, say.
    case double(Double)
    /// A string.
    case string(String)
    /// An array, its elements in order.
    case array([JSONValue])
    /// An object, its members by name (member order is not kept).
    case object([String: JSONValue])

    /// The member `key` of an object, else nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, else nil.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    /// The text of a `.string`, else nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Integers, and doubles that hold an integer exactly.
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e18: return Int64(d)
        default: return nil
        }
    }

    /// The number of an `.int` or a `.double` as a `Double` (an integer past
    /// 2^53 in magnitude is rounded to the nearest double), else nil.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The value of a `.bool`, else nil (numbers and strings are not booleans).
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements of an `.array`, else nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members of an `.object`, else nil.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }
}

/// Literals, for building props in code: `["text": "Hi", "maxLines": 2]`.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// A `.string` from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A `.bool` from `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An `.int` from an integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A `.double` from a floating-point literal (`2.0` stays a `.double`).
    public init(floatLiteral value: Double) { self = .double(value) }
    /// An `.array` from an array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
