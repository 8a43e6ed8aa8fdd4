// StoreValue.swift - the value of a store key: JSON, plus colours and URLs.
import Foundation
import SDUICore

/// A value in a scenario-data store: JSON, extended with `color` and `url`.
///
/// Bridging to ``JSONValue`` (``init(_:)`` and ``jsonValue``): `.integer`
/// is `.int` and `.number` is `.double`; `.color` and `.url` become JSON
/// strings, so they read back as `.string` unless a validation rule of kind
/// color or url names the key (the rule restores the kind).  `Codable` uses
/// the same plain JSON form.
public enum StoreValue: Codable, Equatable, Hashable, Sendable {
    case string(String), number(Double), integer(Int), bool(Bool)
    case color(String), url(String)
    case array([StoreValue]), object([String: StoreValue]), null

    /// The value of a JSON value (JSON strings stay `.string`).
    public init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let n): self = .integer(Int(truncatingIfNeeded: n))
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(StoreValue.init))
        case .object(let o): self = .object(o.mapValues(StoreValue.init))
        }
    }

    /// The value as JSON (colours and URLs as strings).
    public var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let n): return .int(Int64(n))
        case .number(let d): return .double(d)
        case .string(let s), .color(let s), .url(let s): return .string(s)
        case .array(let a): return .array(a.map(\.jsonValue))
        case .object(let o): return .object(o.mapValues(\.jsonValue))
        }
    }

    /// Decodes plain JSON.
    public init(from decoder: any Decoder) throws {
        self.init(try JSONValue(from: decoder))
    }

    /// Encodes plain JSON (a colour or URL as its string).
    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}

extension StoreValue: KeyPathTraversable {
    /// The members of an object, else nil.
    public var pathObject: [String: StoreValue]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// The elements of an array, else nil.
    public var pathArray: [StoreValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// `.object(members)`.
    public static func pathObject(_ members: [String: StoreValue]) -> StoreValue { .object(members) }

    /// `.array(items)`.
    public static func pathArray(_ items: [StoreValue]) -> StoreValue { .array(items) }

    /// `.null`.
    public static var pathPlaceholder: StoreValue { .null }

    /// The kind as a message names it.
    public var pathKindText: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .number: return "a number"
        case .string: return "a string"
        case .color: return "a colour"
        case .url: return "a URL"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension StoreValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `.integer`.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// `.number`.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `.array`.
    public init(arrayLiteral elements: StoreValue...) { self = .array(elements) }
    /// `.object`; a repeated key keeps the last value.
    public init(dictionaryLiteral elements: (String, StoreValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
