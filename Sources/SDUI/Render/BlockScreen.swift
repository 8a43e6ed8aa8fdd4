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

    /// How deep a block screen's JSON may nest: layout blocks (a column
    /// in a row in a column…) may nest deeper than the core's default
    /// bound, two levels of JSON per block.  Rendering stops at its own,
    /// lower bound (``RenderLimits``).
    public static let maxDepth = 512

    /// Decodes a block screen from JSON text with the core's parser (a
    /// block's fields keep their numbers as written); errors name `source`.
    ///
    /// - Throws: ``SDUIError`` `.json` (with the line, column and byte) for
    ///   text that is not JSON, `.limit` for nesting past ``maxDepth``,
    ///   `.schema` naming the path of a missing or mistyped member.
    public init(json: Data, source: String? = nil) throws {
        self = try JSONValueDecoder().decode(BlockScreen.self, json: json, source: source, maxDepth: Self.maxDepth)
    }

    /// Decodes a block screen from a parsed value; errors name `source`.
    ///
    /// - Throws: ``SDUIError`` `.schema` as ``init(json:source:)`` does.
    public init(value: JSONValue, source: String? = nil) throws {
        self = try JSONValueDecoder().decode(BlockScreen.self, from: value, source: source)
    }
}
