// ScreenPayload.swift - a screen as the registry sends it (seed 000 §6.2).
import Foundation

/// A screen: its id and the tokens it shows, each with optional bindings.
///
///     {"id":"team_page","tokens":[{"id":"promo_banner","bind":{"title":"Go Stags!"}},{"id":"team_list"}]}
public struct ScreenPayload: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        public var id: String
        /// Values for the token's `{{path}}` placeholders.
        public var bind: [String: TokenValue]?

        public init(id: String, bind: [String: TokenValue]? = nil) {
            self.id = id
            self.bind = bind
        }
    }

    public var id: String
    public var tokens: [Item]
    /// The screen's theme, first in seed 001's resolution order (optional).
    public var themeId: String?
    /// In a Fallback Pack: the screen this one stands in for when offline.
    public var fallbackFor: String?

    public init(id: String, tokens: [Item], themeId: String? = nil, fallbackFor: String? = nil) {
        self.id = id
        self.tokens = tokens
        self.themeId = themeId
        self.fallbackFor = fallbackFor
    }

    /// Decodes a payload; errors name `source`.
    public init(json: Data, source: String? = nil) throws {
        do {
            self = try JSONDecoder().decode(ScreenPayload.self, from: json)
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw SDUIError(.schema, "missing \"\(key.stringValue)\" at \(Self.path(ctx))", input: source)
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw SDUIError(.schema, "wrong type at \(Self.path(ctx)): \(ctx.debugDescription)", input: source)
        } catch let DecodingError.valueNotFound(_, ctx) {
            throw SDUIError(.schema, "null at \(Self.path(ctx))", input: source)
        } catch {
            throw SDUIError.notJSON(json, error, what: "not a screen payload", input: source)
        }
    }

    static func path(_ ctx: DecodingError.Context) -> String {
        let p = ctx.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return p.isEmpty ? "the top level" : String(p.drop(while: { $0 == "." }))
    }
}

extension TokenValue: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([TokenValue].self) { self = .array(a) }
        else if let o = try? c.decode([String: TokenValue].self) { self = .object(o) }
        else { throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a JSON value") }
    }

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
