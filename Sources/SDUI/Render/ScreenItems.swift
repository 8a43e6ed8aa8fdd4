// ScreenItems.swift - what a screen asks to draw, whatever format it came in.
import SDUICore

/// A screen as the resolver takes it: an id, an optional theme, and an
/// ordered list of items, each a design token (by id, with its bindings) or
/// a block (schemas/block-screen.json).
/// ``ScreenResolver/resolve(_:lookups:)`` takes this one shape; each payload
/// format is an adapter to it (``ScreenPayload`` and ``BlockScreen`` conform
/// to ``ScreenItemsConvertible``), so a new format adds a conformance, not
/// another `resolve`.
public struct ScreenItems: Sendable, Equatable {
    /// One thing to draw.
    public enum Item: Sendable, Equatable {
        /// A design token, looked up by id; `bind` fills its placeholders.
        case token(id: String, bind: [String: JSONValue]?)
        /// A block: an object with a string `type`, drawn by that
        /// type's renderer (``RenderContext/blocks``).
        case block(JSONValue)
    }

    /// The screen's id.
    public var id: String
    /// The screen's theme, first in ``ThemeCatalog``'s resolution order.
    public var themeId: String?
    /// What to draw, top to bottom.
    public var items: [Item]

    /// A screen from its parts.
    public init(id: String, themeId: String? = nil, items: [Item]) {
        self.id = id
        self.themeId = themeId
        self.items = items
    }

    /// The distinct token ids, in first-use order: what to look up.
    public var tokenIDs: [String] {
        var seen = Set<String>()
        return items.compactMap { item in
            if case .token(let id, _) = item, seen.insert(id).inserted { return id }
            return nil
        }
    }
}

/// A screen format the resolver can draw: it says what its items are.
public protocol ScreenItemsConvertible: Sendable {
    var screenItems: ScreenItems { get }
}

extension ScreenItems: ScreenItemsConvertible {
    /// The items themselves.
    public var screenItems: ScreenItems { self }
}

extension ScreenPayload: ScreenItemsConvertible {
    /// Each entry of `tokens` as a token item.
    public var screenItems: ScreenItems {
        ScreenItems(id: id, themeId: themeId, items: tokens.map { .token(id: $0.id, bind: $0.bind) })
    }
}

extension BlockScreen: ScreenItemsConvertible {
    /// Each block as a block item.
    public var screenItems: ScreenItems {
        ScreenItems(id: id, themeId: themeId, items: blocks.map { .block($0) })
    }
}
