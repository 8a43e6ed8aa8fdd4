// JSONValueDecoder.swift - decodes any Decodable straight from a JSONValue,
// so code that already holds a value never writes it out as JSON text only
// to have JSONDecoder read that text back.
//
// The rules are those of JSONDecoder with its default strategies, applied to
// the JSON text the value stands for: the same values decode, the same
// inputs fail with the same kind of DecodingError, and every error names the
// coding path of the value at fault (member keys, and "Index N" keys for
// array elements).  The private types below are the decoder handed to
// `init(from:)` (which is also its own single-value container), the keyed
// and the unkeyed container, and the conversions of one JSON value to one
// Swift scalar, where the type checks and range checks live.
import Foundation

/// Decodes `Decodable` types directly from a ``JSONValue``, with the results
/// and errors `JSONDecoder` (default strategies) gives for the same value's
/// JSON text.
///
/// - Integers of every width are range-checked: a number that does not fit,
///   or has a fraction, is `DecodingError.dataCorrupted` at its coding path;
///   an integral `.double` such as `3.0` decodes as the integer `3`.
/// - `Float` and `Double` decode from `.int` and `.double`; a number that a
///   `Float` cannot hold (overflow, or a non-zero number that would become 0)
///   is `dataCorrupted`.
/// - `Date` decodes as `JSONDecoder`'s `deferredToDate` does (seconds since
///   2001-01-01), `Data` from a base64 string, `URL` from a string, `Decimal`
///   from a number.
/// - Decoding ``JSONValue`` itself gives back the very value held (`.int`
///   stays `.int`, `.double(3.0)` stays `.double`), where `JSONDecoder`
///   would turn the text `3.0` into `.int(3)`.
/// - As `JSONDecoder` does, `null` where a `Bool` is expected is a
///   `typeMismatch`; `null` where any other non-optional value is expected is
///   `valueNotFound`.
///
/// A `.double` holds only what a double holds: an integer written with a
/// fraction or an exponent past 2^53 (say `12345678901234567.0`) decodes from
/// its nearest double, where `JSONDecoder` reads the text exactly.
/// Non-finite doubles, which JSON text cannot carry, decode as themselves
/// into `Float` and `Double` and fail as integers.
///
/// The decoder holds no state between calls; one value may be shared by any
/// number of tasks.
public struct JSONValueDecoder: Sendable {
    /// Values handed to every `init(from:)` of a decode call as the
    /// decoder's `userInfo`.  Sendable, so the decoder stays Sendable.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// A decoder with an empty `userInfo`.
    public init() {}

    /// Decodes a `T` from `value`.
    ///
    /// - Throws: `DecodingError` as `JSONDecoder` would for the value's JSON
    ///   text (`typeMismatch`, `valueNotFound`, `keyNotFound`,
    ///   `dataCorrupted`), its coding path naming the value at fault; any
    ///   error `T`'s own `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        let info = userInfo.mapValues { $0 as Any }
        return try decodeValue(T.self, from: value, at: [], userInfo: info)
    }
}

// MARK: - From text, errors as SDUIError

extension JSONValueDecoder {
    /// Parses `json` with the core's parser and decodes a `T` from the
    /// value: the one way text becomes a typed model in the client
    /// modules, so a number keeps the kind it is written in (`3.0` a
    /// decimal, `3` an integer) wherever the model holds a ``JSONValue``.
    ///
    /// - Parameters:
    ///   - json: The JSON text (any value at the top level).
    ///   - source: The input named in errors: a file path, a URL.
    ///   - maxDepth: How deep the text may nest (the core's default, 128).
    /// - Throws: ``SDUIError``: `.json` with the line, column and byte for
    ///   text that is not JSON (an integer past 64 bits is refused there),
    ///   `.limit` for nesting past `maxDepth`, and the errors of
    ///   ``decode(_:from:source:)``.
    public func decode<T: Decodable>(_ type: T.Type, json: Data, source: String? = nil,
                                     maxDepth: Int = JSONValue.defaultMaxDepth) throws -> T {
        try decode(type, from: try JSONValue(json: json, source: source, maxDepth: maxDepth), source: source)
    }

    /// Decodes a `T` from `value` as ``decode(_:from:)`` does, with errors
    /// as ``SDUIError`` naming `source`.
    ///
    /// - Throws: ``SDUIError`` `.schema` naming the path of the value at
    ///   fault (`missing "id" at tokens[0]`, `null at items[2].title`,
    ///   `wrong type at …`, `bad value at …` for a number out of range);
    ///   an `SDUIError` that `T`'s own `init(from:)` throws, as it is.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, source: String?) throws -> T {
        do {
            return try decode(type, from: value)
        } catch {
            throw SDUIError.decoding(error, input: source)
        }
    }
}

// MARK: - Any value

/// Decodes a `T` from `value` at `path`: the types JSONDecoder treats as
/// its own (JSONValue itself, URL, Data, Decimal) and the common scalars
/// directly, everything else through its `init(from:)`.  The path is only
/// built when it is needed.
private func decodeValue<T: Decodable>(_ type: T.Type, from value: JSONValue,
                                       at path: @autoclosure () -> [any CodingKey],
                                       userInfo: [CodingUserInfoKey: Any]) throws -> T {
    if T.self == JSONValue.self { return value as! T }
    if T.self == String.self { return try Scalar.string(value, path()) as! T }
    if T.self == Int.self { return try Scalar.integer(Int.self, value, path()) as! T }
    if T.self == Double.self { return try Scalar.floating(Double.self, value, path()) as! T }
    if T.self == Bool.self { return try Scalar.bool(value, path()) as! T }
    if T.self == Int64.self { return try Scalar.integer(Int64.self, value, path()) as! T }
    if T.self == URL.self { return try Scalar.url(value, path()) as! T }
    if T.self == Data.self { return try Scalar.data(value, path()) as! T }
    if T.self == Decimal.self { return try Scalar.decimal(value, path()) as! T }
    return try T(from: ValueDecoder(value: value, codingPath: path(), userInfo: userInfo))
}

/// The key of an array element in a coding path: "Index N", intValue N.
private struct IndexKey: CodingKey {
    let index: Int
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
    init(_ index: Int) { self.index = index }
    init?(intValue: Int) { self.index = intValue }
    init?(stringValue: String) { nil }
}

/// The key `superDecoder()` of a keyed container decodes: "super".
private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(intValue: Int) { nil }
    init?(stringValue: String) { if stringValue != "super" { return nil } }
}

// MARK: - Scalars

/// One JSON value as one Swift scalar, or the error JSONDecoder gives for it.
private enum Scalar {
    /// A few words on what `value` is, for error messages:
    /// `the string "abc"`, `the number 2.5`, `an array of 3 elements`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return "the boolean \(b)"
        case .int, .double: return "the number \(numberText(value))"
        case .string(let s):
            let shown = s.count > 40 ? String(s.prefix(40)) + "..." : s
            return "the string " + JSONValue.literal(shown)
        case .array(let a): return "an array of \(a.count) element\(a.count == 1 ? "" : "s")"
        case .object(let o): return "an object of \(o.count) member\(o.count == 1 ? "" : "s")"
        }
    }

    /// A number's text by the one rule (digits for integers).
    static func numberText(_ value: JSONValue) -> String {
        switch value {
        case .int(let i): return String(i)
        case .double(let d): return JSONValue.text(d)
        default: return ""
        }
    }

    /// The error for `value` where a `type` was expected and `value` is of
    /// another kind: `valueNotFound` for null, else `typeMismatch`.
    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null"))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(describe(value))"))
    }

    /// A `.bool`.  Null is a `typeMismatch` here, not `valueNotFound`, as
    /// JSONDecoder has it.
    static func bool(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        if case .bool(let b) = value { return b }
        throw DecodingError.typeMismatch(Bool.self, .init(codingPath: path(),
            debugDescription: "expected Bool, found \(describe(value))"))
    }

    /// A `.string`.
    static func string(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        if case .string(let s) = value { return s }
        throw mismatch(String.self, value, path())
    }

    /// An integer of type `T` from an `.int` or an integral `.double`; one
    /// that is out of `T`'s range or has a fraction is `dataCorrupted`.
    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue,
                                              _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        let why: String
        switch value {
        case .int(let i):
            if let n = T(exactly: i) { return n }
            why = "is out of the range of \(T.self) (\(T.min)...\(T.max))"
        case .double(let d):
            if let n = T(exactly: d) { return n }
            if !d.isFinite || d.rounded(.towardZero) == d {
                why = "is out of the range of \(T.self) (\(T.min)...\(T.max))"
            } else {
                why = "has a fraction, and \(T.self) holds whole numbers only"
            }
        default:
            throw mismatch(T.self, value, path())
        }
        throw DecodingError.dataCorrupted(.init(codingPath: path(),
            debugDescription: "the number \(numberText(value)) \(why)"))
    }

    /// A `Float` or `Double` from an `.int` (rounded to the nearest) or a
    /// `.double`; a finite number that becomes infinite, or a non-zero one
    /// that becomes zero, in `T` is `dataCorrupted`.
    static func floating<T: BinaryFloatingPoint>(_ type: T.Type, _ value: JSONValue,
                                                 _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        switch value {
        case .int(let i):
            return T(i)
        case .double(let d):
            let f = T(d)
            if d.isFinite && !f.isFinite {
                throw DecodingError.dataCorrupted(.init(codingPath: path(),
                    debugDescription: "the number \(numberText(value)) is out of the range of \(T.self)"))
            }
            if d != 0 && f == 0 {
                throw DecodingError.dataCorrupted(.init(codingPath: path(),
                    debugDescription: "the number \(numberText(value)) is too small for \(T.self): it would become 0"))
            }
            return f
        default:
            throw mismatch(T.self, value, path())
        }
    }

    /// A `URL` from a string that `URL(string:)` accepts.
    static func url(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> URL {
        guard case .string(let s) = value else {
            if case .null = value { throw mismatch(URL.self, value, path()) }
            throw mismatch(String.self, value, path())
        }
        guard let url = URL(string: s) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(),
                debugDescription: "\(describe(value)) is not a URL"))
        }
        return url
    }

    /// `Data` from a base64 string (JSONDecoder's default data strategy).
    static func data(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Data {
        guard case .string(let s) = value else {
            if case .null = value { throw mismatch(Data.self, value, path()) }
            throw mismatch(String.self, value, path())
        }
        guard let data = Data(base64Encoded: s) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(),
                debugDescription: "\(describe(value)) is not base64"))
        }
        return data
    }

    /// A `Decimal` from a number: an `.int` exactly, a `.double` from its
    /// shortest text (so `0.1` is 0.1, not the double's binary expansion).
    static func decimal(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Decimal {
        switch value {
        case .int(let i):
            return Decimal(i)
        case .double(let d):
            if d.isFinite, let n = Decimal(string: d.description, locale: Locale(identifier: "en_US_POSIX")) {
                return n
            }
            throw DecodingError.dataCorrupted(.init(codingPath: path(),
                debugDescription: "the number \(numberText(value)) is out of the range of Decimal"))
        default:
            throw mismatch(Decimal.self, value, path())
        }
    }
}

// MARK: - Containers from a value

/// `value`'s members, or the error JSONDecoder gives when it is no object.
private func objectMembers(of value: JSONValue, at path: [any CodingKey]) throws -> [String: JSONValue] {
    switch value {
    case .object(let members):
        return members
    case .null:
        throw DecodingError.valueNotFound([String: Any].self, .init(codingPath: path,
            debugDescription: "expected an object for a keyed container, found null"))
    default:
        throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: path,
            debugDescription: "expected an object, found \(Scalar.describe(value))"))
    }
}

/// `value`'s elements, or the error JSONDecoder gives when it is no array.
private func arrayElements(of value: JSONValue, at path: [any CodingKey]) throws -> [JSONValue] {
    switch value {
    case .array(let elements):
        return elements
    case .null:
        throw DecodingError.valueNotFound([Any].self, .init(codingPath: path,
            debugDescription: "expected an array for an unkeyed container, found null"))
    default:
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: path,
            debugDescription: "expected an array, found \(Scalar.describe(value))"))
    }
}

// MARK: - The decoder

/// The decoder `init(from:)` receives for one value; also that value's
/// single-value container.
private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedContainer<Key>(members: try objectMembers(of: value, at: codingPath),
                                                   codingPath: codingPath, userInfo: userInfo))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        UnkeyedContainer(elements: try arrayElements(of: value, at: codingPath), codingPath: codingPath, userInfo: userInfo)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try Scalar.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Scalar.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Scalar.floating(type, value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try Scalar.floating(type, value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Scalar.integer(type, value, codingPath) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Scalar.integer(type, value, codingPath) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try Scalar.integer(type, value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(T.self, from: value, at: codingPath, userInfo: userInfo)
    }
}

// MARK: - Keyed container

/// An object's members by key.  A missing key is `keyNotFound`, except for
/// `decodeIfPresent` (nil) and `superDecoder(forKey:)` (a decoder of null).
private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    /// The member under `key`, else `keyNotFound` at this container's path.
    private func member(_ key: Key) throws -> JSONValue {
        if let value = members[key.stringValue] { return value }
        throw DecodingError.keyNotFound(key, .init(codingPath: codingPath,
            debugDescription: "no member \(JSONValue.literal(key.stringValue)) in the object"))
    }

    /// The coding path of the member under `key`.
    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Scalar.bool(member(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try Scalar.string(member(key), path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Scalar.floating(type, member(key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try Scalar.floating(type, member(key), path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Scalar.integer(type, member(key), path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Scalar.integer(type, member(key), path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try Scalar.integer(type, member(key), path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Scalar.integer(type, member(key), path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Scalar.integer(type, member(key), path(key)) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try Scalar.integer(type, member(key), path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try Scalar.integer(type, member(key), path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try Scalar.integer(type, member(key), path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try Scalar.integer(type, member(key), path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try Scalar.integer(type, member(key), path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try Scalar.integer(type, member(key), path(key)) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try Scalar.integer(type, member(key), path(key)) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeValue(T.self, from: member(key), at: path(key), userInfo: userInfo)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let inner = path(key)
        return KeyedDecodingContainer(KeyedContainer<NestedKey>(members: try objectMembers(of: member(key), at: inner),
                                                                codingPath: inner, userInfo: userInfo))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let inner = path(key)
        return UnkeyedContainer(elements: try arrayElements(of: member(key), at: inner), codingPath: inner, userInfo: userInfo)
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath + [SuperKey()], userInfo: userInfo)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: path(key), userInfo: userInfo)
    }
}

// MARK: - Unkeyed container

/// An array's elements in order.  A decode that fails leaves the index
/// where it was, so the caller may try the same element as another type;
/// past the end every decode is `valueNotFound` at the next index.
private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    var currentIndex = 0

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The coding path of the current element.
    private var path: [any CodingKey] { codingPath + [IndexKey(currentIndex)] }

    /// The current element, else `valueNotFound(type)` when at the end.
    private func current(_ type: Any.Type) throws -> JSONValue {
        if currentIndex < elements.count { return elements[currentIndex] }
        throw DecodingError.valueNotFound(type, .init(codingPath: path,
            debugDescription: "expected \(type) at index \(currentIndex), but the array has \(elements.count) element\(elements.count == 1 ? "" : "s")"))
    }

    /// The current element converted by `convert`, which gets the element
    /// and its coding path (built only if asked for); the index moves on
    /// only when that succeeds.
    private mutating func next<T>(_ type: T.Type,
                                  _ convert: (JSONValue, () -> [any CodingKey]) throws -> T) throws -> T {
        let base = codingPath, index = currentIndex
        let result = try convert(current(T.self)) { base + [IndexKey(index)] }
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try current(Never.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try Scalar.bool($0, $1()) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try Scalar.string($0, $1()) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try Scalar.floating(type, $0, $1()) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try Scalar.floating(type, $0, $1()) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next(type) { try Scalar.integer(type, $0, $1()) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let info = userInfo
        return try next(type) { try decodeValue(T.self, from: $0, at: $1(), userInfo: info) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey> {
        let info = userInfo
        return try next(KeyedDecodingContainer<NestedKey>.self) { value, path in
            let inner = path()
            return KeyedDecodingContainer(KeyedContainer<NestedKey>(members: try objectMembers(of: value, at: inner),
                                                                    codingPath: inner, userInfo: info))
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let info = userInfo
        return try next((any UnkeyedDecodingContainer).self) { value, path in
            let inner = path()
            return UnkeyedContainer(elements: try arrayElements(of: value, at: inner), codingPath: inner, userInfo: info)
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        let info = userInfo
        return try next((any Decoder).self) { ValueDecoder(value: $0, codingPath: $1(), userInfo: info) }
    }
}
