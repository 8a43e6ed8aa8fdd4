// ScreenPayload.swift - a screen as the registry sends it (seed 000 §6.2).
import Foundation
import SDUICore

/// A screen: its id and the tokens it shows, each with optional bindings.
///
///     {"id":"team_page","tokens":[{"id":"promo_banner","bind":{"title":"Go Stags!"}},{"id":"team_list"}]}
public struct ScreenPayload: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        public var id: String
        /// Values for the token's `{{path}}` placeholders.
        public var bind: [String: JSONValue]?

        public init(id: String, bind: [String: JSONValue]? = nil) {
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
        } catch {
            throw SDUIError.decoding(error, json: json, what: "not a screen payload", input: source)
        }
    }
}
