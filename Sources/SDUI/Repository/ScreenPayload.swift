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

    /// Decodes a payload from JSON text with the core's parser (a binding
    /// keeps its numbers as written); errors name `source`.
    ///
    /// - Throws: ``SDUIError`` `.json` (with the line, column and byte) for
    ///   text that is not JSON, `.limit` for nesting past 128 levels,
    ///   `.schema` naming the path of a missing or mistyped member
    ///   (`missing "id" at tokens[0]`).
    public init(json: Data, source: String? = nil) throws {
        self = try JSONValueDecoder().decode(ScreenPayload.self, json: json, source: source)
    }

    /// Decodes a payload from a parsed value; errors name `source`.
    ///
    /// - Throws: ``SDUIError`` `.schema` as ``init(json:source:)`` does.
    public init(value: JSONValue, source: String? = nil) throws {
        self = try JSONValueDecoder().decode(ScreenPayload.self, from: value, source: source)
    }
}
