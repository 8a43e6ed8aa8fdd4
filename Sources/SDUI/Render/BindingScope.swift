// BindingScope.swift - the values `{{path}}` placeholders are filled from.
import Foundation
import SDUICore

/// The values a token's `{{path}}` placeholders are filled from: the screen
/// item's `bind` first, then the host app's bindings, then the scenario
/// data (a store, ``RenderContext/store``).  `@{…}` expressions read the
/// same three layers, root name by root name (``NodePlan``).
///
/// **Paths.** A `KeyPath` that starts with a name, e.g.
/// `team.players[0].id` or `items[*].price` (the list of every price);
/// spaces inside the braces are ignored (`{{ title }}`).  Each template is
/// parsed once, when its token is planned (`BindingTemplate`).  A path is
/// looked up whole in the item's `bind`; only if
/// it is not found there is it looked up in the host's, and then in the
/// scenario data.  An explicit `null` counts as found.
///
/// **Whole values.**  A string that is exactly one placeholder takes the
/// bound value with its own type: `"{{cart.count}}"` bound to `3` is the
/// number 3, `"{{totals.hasDiscount}}"` the boolean, a list stays a list.
///
/// **Inside text.**  Strings are inserted as they are, integers in decimal,
/// other numbers in their shortest form, booleans as `true`/`false`, and
/// `null` as nothing.  A list or object inside text inserts nothing and is
/// reported as `bad_binding`.
///
/// **Missing binding.**  Inside text it inserts nothing; a whole-value
/// placeholder removes the prop, so the renderer's default applies (a
/// missing `visible` leaves the node visible).  Each is reported as
/// `missing_binding`; the node still renders.
///
/// **Escaping.**  `\{{` writes a literal `{{` (in JSON source: `"\\{{"`).
/// A `{{` without a closing `}}`, or with a malformed path, is left as
/// written and reported as `bad_binding`.
///
/// **Bounds.**  What fills may produce is bounded per string, per node and
/// per tree (``BindingLimits``): a token of five thousand `{{a}}` bound to a
/// megabyte must not make a gigabyte.  A fill that would pass a bound stops
/// there, and the node becomes a placeholder with a `limit` issue.
///
/// **No second pass.**  Bound values are inserted as data: a bound string
/// that looks like `{{x}}` or `@color.primary` is not resolved again.  The
/// one lookup that follows a fill: in a spacing prop or a Text's `style`, a
/// filled string is taken as a spacing or typography name, as a written one
/// would be (`"style": "{{st}}"` with `st` = `"caption"`).
public struct BindingScope: Sendable {
    /// The screen item's `bind` values, looked up first.
    public var item: [String: JSONValue]
    /// The host app's bindings, looked up when the item's values lack a path.
    public var host: [String: JSONValue]
    /// The scenario data, looked up when neither the item nor the host has
    /// a path.
    public var store: (any ScenarioData)?

    /// A scope over the given values; all default to empty.
    public init(item: [String: JSONValue] = [:], host: [String: JSONValue] = [:],
                store: (any ScenarioData)? = nil) {
        self.item = item
        self.host = host
        self.store = store
    }

    /// The value at `path`, item first, then host, then store; nil when
    /// none has it or the path is not a binding path.
    public func lookup(_ path: String) -> JSONValue? {
        Self.parse(Substring(path)).flatMap(lookup)
    }

    /// The value at a parsed path, item first, then host, then store.
    public func lookup(_ path: KeyPath) -> JSONValue? {
        path.get(in: .object(item)) ?? path.get(in: .object(host)) ?? store?.value(at: path)
    }

    /// The data an expression reads, one document per root name it uses,
    /// by slot (``CompiledExpression/rootNames`` order): the item's member
    /// of that name, else the host's, else the store's (whole members, so
    /// `cart.total` and `cart.items` read one `cart`).
    ///
    /// - Throws: ``SDUIError`` when a value is too deep for the core.
    func slots(for expression: CompiledExpression) throws -> [JSONDocument?] {
        try expression.rootNames.map { name in
            if let v = item[name] ?? host[name] { return try JSONDocument(v) }
            return try store?.document(root: name)
        }
    }

    /// The largest index a binding path may name: nine digits, so a
    /// template cannot ask for element two billion.
    static let maxIndex = 999_999_999

    /// Parses a binding path: a `KeyPath` whose first step is a name and
    /// whose indexes have at most nine digits (`items[*].price` is a list).
    /// Nil when malformed.
    static func parse(_ text: Substring) -> KeyPath? {
        guard let path = try? KeyPath(String(text)), case .key? = path.components.first else { return nil }
        for case .index(let n) in path.components where n > maxIndex { return nil }
        return path
    }
}
