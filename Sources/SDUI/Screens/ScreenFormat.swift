// ScreenFormat.swift - which of the screen formats a screen document is,
// decided in one place for every tool that takes "a screen".
import Foundation
import SDUICore

/// The formats a screen document comes in, told apart by the members of its
/// top-level object.
///
/// The rule, in order: an object with both `screenName` and `templates` is
/// a normalized payload (SDUIFlow's `ScreenModel`); else one with `blocks`
/// is a block screen (``BlockScreen``); anything else is read as a token payload (``ScreenPayload``),
/// whose own decoder names what is missing or wrong.
public enum ScreenFormat: String, Sendable, CaseIterable {
    /// A normalized payload: `screenName`, `templates`, `components`, `body`.
    case normalizedPayload = "normalized-payload"
    /// A block screen: `blocks` (see ``BlockScreen``).
    case blockScreen = "block-screen"
    /// Token ids with bindings (see ``ScreenPayload``); resolving one needs
    /// the tokens (a pack).
    case tokenPayload = "token-payload"

    /// The format of the parsed document `value`, by the rule above.
    public init(of value: JSONValue) {
        if value["screenName"] != nil && value["templates"] != nil {
            self = .normalizedPayload
        } else if value["blocks"] != nil {
            self = .blockScreen
        } else {
            self = .tokenPayload
        }
    }

    /// Parses `data` once with the core's parser and tells its format; the
    /// value is returned so the format's decoder need not parse it again.
    ///
    /// Text the parser refuses is refused whatever the format, with its line
    /// and column: guessing a format from broken text only misnames the
    /// fault.  The nesting bound is ``BlockScreen/maxDepth``, the deepest
    /// any format allows, so every format reaches its own checks.
    ///
    /// - Throws: ``SDUIError`` `.json` for text that is not JSON, `.limit`
    ///   for nesting past ``BlockScreen/maxDepth``; errors name `source`.
    public static func probe(_ data: Data, source: String? = nil) throws -> (format: ScreenFormat, value: JSONValue) {
        let value = try JSONValue(json: data, source: source, maxDepth: BlockScreen.maxDepth)
        return (ScreenFormat(of: value), value)
    }
}
