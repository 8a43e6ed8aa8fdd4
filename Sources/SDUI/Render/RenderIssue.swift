// RenderIssue.swift - a degradation found while resolving, with where it is.
import Foundation
import SDUICore

/// One thing resolution could not do as written, and what it did instead.
public struct RenderIssue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Stable codes; placeholders and skeletons carry the same code as their
    /// `reason`.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The client does not know the primitive: placeholder, and an
        /// `unknown_primitive` event.
        case unknownPrimitive = "unknown_primitive"
        /// The node needs a newer version than the client has: placeholder.
        case incompatibleVersion = "incompatible_version"
        /// Not cached and the registry cannot be reached: skeleton.
        case offline
        /// The lookup failed (unknown id, bad answer, bad signature): placeholder.
        case unavailable
        /// The node is malformed (no primitive, props not an object…): placeholder.
        case badContent = "bad_content"
        /// A prop breaks its primitive's rules: a required one makes a
        /// placeholder, an optional one is dropped.
        case propRule = "prop_rule"
        /// A `{{path}}` with no value: see ``BindingScope`` for the rule.
        case missingBinding = "missing_binding"
        /// A malformed `{{…}}`, or a list or object bound inside a text:
        /// left as written, or empty.
        case badBinding = "bad_binding"
        /// `@group.name` the theme does not define: the prop is dropped.
        case unknownThemeReference = "unknown_theme_reference"
        /// A block type with no renderer: placeholder and a
        /// `render_error` event.
        case unknownBlock = "unknown_block"
        /// A block whose fields its renderer refused: placeholder and a
        /// `render_error` event.
        case badBlock = "bad_block"
        /// The whole screen switched to its Fallback Pack screen.
        case fallbackScreen = "fallback_screen"
        /// A theme id named by the screen or flow is unknown; the next step
        /// of the resolution order was used.
        case unknownTheme = "unknown_theme"
        /// Binding fills would pass a bound of ``BindingLimits``, or the
        /// tree a bound of ``RenderLimits`` (then the rest of the screen
        /// is left out): placeholder.
        case limit
        /// A `@string.…` key no catalog of the locale's chain has: the key
        /// itself is shown (with a `missing_string` event).
        case missingString = "missing_string"
    }

    /// What kind of degradation it is; its raw value is the stable code.
    public var kind: Kind
    /// The token (or, for blocks, `block[i]`) the issue is in.
    public var token: String?
    /// Where in the token or block: `root`, `props.children[2].props.text`, …
    public var path: String
    /// What happened, in words, with the values involved.
    public var message: String

    /// An issue from its parts.
    public init(_ kind: Kind, token: String?, path: String, _ message: String) {
        self.kind = kind
        self.token = token
        self.path = path
        self.message = message
    }

    /// `kind: token path: message` on one line, as `sdui render` prints it
    /// after `warning:`.
    public var description: String {
        "\(kind.rawValue): \(token.map { "\($0) " } ?? "")\(path): \(message)"
    }
}
