// RenderTree.swift - a resolved screen and the report of how it was resolved.
import Foundation
import SDUICore

/// A screen resolved into render nodes, with everything resolution had to
/// do to get there.  Resolution never throws on bad content; it degrades
/// node by node, and ``issues`` and ``events`` say what it did.
public struct RenderTree: Sendable, Hashable, Codable {
    /// The screen that was asked for.
    public var screen: String
    /// The screen that was drawn: the same, or the Fallback Pack's screen
    /// for it when the device was offline.
    public var renderedScreen: String
    /// The theme used and the step of the resolution order that chose it.
    public var theme: String
    /// The step of the resolution order that chose ``theme``.
    public var themeSource: ThemeSource
    /// The mode the colours were resolved for.
    public var mode: ThemeMode
    /// A scrolling `Column` holding one child per screen item or block.
    public var root: RenderNode
    /// Every degradation, in screen order.
    public var issues: [RenderIssue]
    /// Analytics events (`unknown_primitive`, `render_error`).
    public var events: [RenderEvent]

    /// A tree from its parts.
    public init(screen: String, renderedScreen: String, theme: String, themeSource: ThemeSource,
                mode: ThemeMode, root: RenderNode, issues: [RenderIssue], events: [RenderEvent]) {
        self.screen = screen
        self.renderedScreen = renderedScreen
        self.theme = theme
        self.themeSource = themeSource
        self.mode = mode
        self.root = root
        self.issues = issues
        self.events = events
    }

    /// The tree as JSON (sorted keys), the shape of schemas/render-tree.json.
    ///
    /// Read it back with the core's parser and ``JSONValueDecoder``
    /// (`JSONValueDecoder().decode(RenderTree.self, from: JSONValue(json:))`):
    /// numbers keep their kind as written, so a prop `.double(1.5e17)`
    /// (written `1.5e+17`) stays a double.  A whole decimal written as
    /// digits (`.double(3.0)` is written `3`) reads back as the integer of
    /// the same value, and that tree writes the same JSON again.
    /// `JSONDecoder` reads any whole number as an integer, `1.5e+17` too.
    public func jsonData(pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

