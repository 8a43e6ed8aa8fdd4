// TokenValue.swift - a JSON value from a token's props, as a Swift value type.
internal import CSDUI

/// A JSON value: the props tree of a ``DesignToken`` converted on demand.
public enum TokenValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([TokenValue])
    case object([String: TokenValue])

    /// The member `key` of an object, else nil.
    public subscript(key: String) -> TokenValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, else nil.
    public subscript(index: Int) -> TokenValue? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

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

    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [TokenValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: [String: TokenValue]? {
        if case .object(let o) = self { return o }
        return nil
    }
}

/// Literals, for building props in code: `["text": "Hi", "maxLines": 2]`.
extension TokenValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: TokenValue...) { self = .array(elements) }
    /// A repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, TokenValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension TokenValue {
    /// Converts a C value (borrowed from a live token) into a Swift value.
    init(_ v: OpaquePointer?) {
        switch sdui_value_type_of(v) {
        case SDUI_VALUE_BOOL:
            self = .bool(sdui_value_bool(v) != 0)
        case SDUI_VALUE_INT:
            self = .int(sdui_value_int(v))
        case SDUI_VALUE_REAL:
            self = .double(sdui_value_real(v))
        case SDUI_VALUE_STRING:
            var len = 0
            let p = sdui_value_string(v, &len)
            self = .string(String(cBytes: p, count: len))
        case SDUI_VALUE_ARRAY:
            let n = sdui_value_count(v)
            self = .array((0..<n).map { TokenValue(sdui_value_at(v, $0)) })
        case SDUI_VALUE_OBJECT:
            var members: [String: TokenValue] = [:]
            members.reserveCapacity(sdui_value_count(v))
            var it = sdui_value_next(v, nil)
            while let cur = it {
                var len = 0
                let key = String(cBytes: sdui_value_iter_key(cur, &len), count: len)
                members[key] = TokenValue(sdui_value_iter_value(cur))
                it = sdui_value_next(v, cur)
            }
            self = .object(members)
        default:
            self = .null
        }
    }
}
