// BlockScreen.swift - a block screen: an ordered list of blocks.
import Foundation
import SDUICore

/// A block screen (schemas/block-screen.json): an ordered list of blocks in
/// one scrolling column.
///
///     {"id": "screen_goal", "type": "standard", "themeId": "theme_mint_dark",
///      "blocks": [{"type": "header", "title": "What is your goal?"}, …]}
public struct BlockScreen: Sendable, Hashable, Codable {
    /// The screen's id.
    public var id: String
    /// The screen's type as its JSON gives it (`standard` by default);
    /// resolution does not read it.
    public var type: String?
    /// The screen's theme, first in the resolution order; nil leaves the choice
    /// to the flow's theme, then the SDK fallback.
    public var themeId: String?
    /// Each block is an object with a string `type`; its other fields
    /// belong to that type's renderer.
    public var blocks: [JSONValue]

    /// A block screen from its parts.
    public init(id: String, type: String? = "standard", themeId: String? = nil, blocks: [JSONValue]) {
        self.id = id
        self.type = type
        self.themeId = themeId
        self.blocks = blocks
    }

    /// Decodes a block screen; errors name `source`.
    public init(json: Data, source: String? = nil) throws {
        do {
            self = try JSONDecoder().decode(BlockScreen.self, from: json)
        } catch {
            throw SDUIError.decoding(error, json: json, what: "not a block screen", input: source)
        }
    }
}
