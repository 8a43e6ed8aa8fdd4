// ScreenPayload.swift - a screen as the registry sends it (schemas/screen-payload.json).
import Foundation
import SDUICore

/// A screen: its id and the tokens it shows, each with optional bindings.
///
///     {"id":"team_page","tokens":[{"id":"promo_banner","bind":{"title":"Go Stags!"}},{"id":"team_list"}]}
public struct ScreenPayload: Codable, Sendable, Equatable {
    /// One token on the screen, with the values for its placeholders.
    public struct Item: Codable, Sendable, Equatable {
        /// The id of the token to show.
        public var id: String
        /// Values for the token's `{{path}}` placeholders.
        public var bind: [String: JSONValue]?

        /// An item showing token `id`, with optional bindings.
        public init(id: String, bind: [String: JSONValue]? = nil) {
            self.id = id
            self.bind = bind
        }
    }

    /// The screen's id.
    public var id: String
    /// The tokens the screen shows, top to bottom.
    public var tokens: [Item]
    /// The screen's theme, first in ``ThemeCatalog``'s resolution order (optional).
    public var themeId: String?
    /// In a Fallback Pack: the screen this one stands in for when offline.
    public var fallbackFor: String?

    /// A payload from its parts.
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
