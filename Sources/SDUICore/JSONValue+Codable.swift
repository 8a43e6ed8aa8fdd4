// JSONValue+Codable.swift - JSON values through Codable (JSONDecoder/JSONEncoder).
import Foundation

/// A JSON value decodes from any JSON and encodes back to the same JSON;
/// an integer that fits 64 bits decodes as `.int`, any other number as `.double`.
extension JSONValue: Codable {
    /// Decodes whatever JSON value the decoder holds, through a single-value
    /// container: null, a boolean, a number that decodes as `Int64` (`.int`),
    /// any other number (`.double`), a string, an array or an object.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the value is none of these.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else if let o = try? c.decode([String: JSONValue].self) { self = .object(o) }
        else { throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a JSON value") }
    }

    /// Encodes the value as the JSON it stands for, through a single-value
    /// container: `.int` as an integer, `.double` as a floating-point number.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
