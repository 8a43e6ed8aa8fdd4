// NodePlan.swift - a node's props sorted, once, into what resolution must touch.
import Foundation
import SDUICore

/// A node tree compiled for resolution.  Most props of a design token are
/// plain values (`"alignment": "CENTER"`, `"maxLines": 2`); only theme
/// references, spacing and typography names, and `{{…}}` templates change
/// from one resolve to the next.  A plan keeps the plain props as a ready
/// dictionary and lists the rest, so resolving a node copies one dictionary
/// and works only on what varies.  A token's plan is built on first use and
/// kept with the token (tokens are immutable); a block's node is planned
/// each time it is resolved.
///
/// **Expressions.**  A prop string that begins with `@{` and ends with `}`
/// is an expression of the C core's language (docs/expressions.md), whole:
/// `"visible": "@{cart.total > 0}"`, `"text": "@{fixed(cart.total, 2)}"`.
/// It is compiled once, here, and evaluated at each resolve against the
/// binding layers (``BindingScope/slots(for:)``); its value keeps its type.
/// A string that does not compile is reported at each resolve and its prop
/// is removed, as a failed evaluation's is.
struct NodePlan: Sendable {
    /// A prop value that needs work at resolve time.
    indirect enum Value: Sendable {
        case literal(JSONValue)
        /// `@group.name`, looked up by its full text.
        case reference(String)
        /// A string in a spacing prop: points when the theme has the name.
        case spacing(String)
        /// A Text's bare `style` name.
        case typography(String)
        /// A string holding `{{` or `\{{`, parsed once; when filled to a
        /// string in a spacing or typography place, that string is then
        /// looked up as a name (`"style": "{{st}}"`).
        case template(BindingTemplate, names: Names?)
        /// `@{expr}`, compiled.
        case expression(CompiledExpression)
        /// `@{expr}` that does not compile: the source and why.
        case badExpression(String, String)
        /// `"@string.key"` or `{"$string": "key", "count": …}`: a catalog's
        /// text, with its arguments planned (``StringReference``).
        case string(key: String, arguments: [(name: String, value: Value)])
        case array([Value])
        case object(Object)
    }

    /// What a string names in the theme: a prop's own (a row's
    /// ``PrimitiveSpec/themeNames``), or a filled template's text.
    enum Names: Sendable { case spacing, typography }

    /// An object's members: plain ones ready to copy, the others to resolve.
    struct Object: Sendable {
        var literals: [String: JSONValue] = [:]
        var dynamic: [(key: String, value: Value)] = []
    }

    var primitive: String
    var version: Int
    /// Why the node cannot be drawn as written (bad content), if so.
    var error: String?
    var props = Object()
    var children: [NodePlan] = []
    /// The paths this node's props bind (not its children's), each once, in
    /// the order the props are resolved: what a change of scenario data
    /// must touch to make this node stale (see ``binds(_:)``).
    var bindings: [KeyPath] = []
    /// The paths this node and its descendants bind, each once: a change
    /// that touches none of them leaves the whole subtree as it was.
    var subtreeBindings: [KeyPath] = []
    /// `props.children` was present but not a list.
    var childrenNotAList = false

    /// Plans a node given as `{"primitive", "primitiveVersion", "props"}`.
    init(node raw: JSONValue) {
        guard case .object(let o) = raw, let primitive = o["primitive"]?.stringValue, !primitive.isEmpty else {
            self.init(primitive: "", version: 0, error: "a node needs a string \"primitive\"")
            return
        }
        var version = 1
        if let v = o["primitiveVersion"] {
            guard let n = v.intValue, n >= 1, n <= 999_999_999 else {
                self.init(primitive: primitive, version: 0, error: "primitiveVersion must be an integer ≥ 1")
                return
            }
            version = Int(n)
        }
        self.init(primitive: primitive, version: version, props: o["props"] ?? .object([:]))
    }

    /// Plans a node from its parts (a token's root).
    init(primitive: String, version: Int, props raw: JSONValue) {
        self.init(primitive: primitive, version: version, error: nil)
        guard case .object(let members) = raw else {
            error = "props must be an object"
            return
        }
        let themeNames = PrimitiveSpec.named(primitive)?.themeNames ?? [:]
        for key in members.keys.sorted() where key != "children" {   // sorted: issues in a stable order
            let value = members[key]!
            let named = themeNames[key]
            let spacing = Self.isSpacingKey(key) || named == .spacing
            let typography = named == .typography
            Self.add(key, Self.plan(value, spacing: spacing, typography: typography), to: &props)
        }
        var seen = Set<KeyPath>()
        for (_, value) in props.dynamic { Self.collectPaths(value, into: &bindings, seen: &seen) }
        if let list = members["children"] {
            if case .array(let items) = list {
                children = items.map { NodePlan(node: $0) }
            } else {
                childrenNotAList = true
            }
        }
        subtreeBindings = bindings
        for child in children {
            for p in child.subtreeBindings where seen.insert(p).inserted { subtreeBindings.append(p) }
        }
    }

    private init(primitive: String, version: Int, error: String?) {
        self.primitive = primitive
        self.version = version
        self.error = error
    }

    /// Whether a change at `path` may change this node's props: some bound
    /// path and `path` intersect (one is a prefix of the other, wildcards
    /// matching any index), so `cart` and `cart.total` both touch a node
    /// bound to `{{cart.total}}`.
    func binds(_ path: KeyPath) -> Bool {
        bindings.contains { $0.intersects(path) }
    }

    /// Whether a change at any of `paths` may change this node's props.
    func binds(any paths: [KeyPath]) -> Bool {
        paths.contains { binds($0) }
    }

    /// Whether a change at any of `paths` may change this node or a
    /// descendant.
    func subtreeBinds(any paths: [KeyPath]) -> Bool {
        paths.contains { p in subtreeBindings.contains { $0.intersects(p) } }
    }

    /// Appends the paths a planned value binds, each once.
    static func collectPaths(_ value: Value, into paths: inout [KeyPath], seen: inout Set<KeyPath>) {
        switch value {
        case .template(let t, _):
            for p in t.paths where seen.insert(p).inserted { paths.append(p) }
        case .expression(let e):
            for text in e.paths {
                if let p = try? KeyPath(text), seen.insert(p).inserted { paths.append(p) }
            }
        case .array(let items):
            for item in items { collectPaths(item, into: &paths, seen: &seen) }
        case .object(let o):
            for (_, v) in o.dynamic { collectPaths(v, into: &paths, seen: &seen) }
        case .string(_, let arguments):
            for (_, v) in arguments { collectPaths(v, into: &paths, seen: &seen) }
        case .literal, .reference, .spacing, .typography, .badExpression:
            break
        }
    }

    static func add(_ key: String, _ value: Value, to object: inout Object) {
        if case .literal(let v) = value { object.literals[key] = v } else { object.dynamic.append((key, value)) }
    }

    /// The expression inside `@{…}` when `s` is one, else nil.
    static func expressionSource(_ s: String) -> String? {
        let u = s.utf8
        guard u.count >= 3, u.starts(with: "@{".utf8), u.last == UInt8(ascii: "}") else { return nil }
        return String(s.dropFirst(2).dropLast())
    }

    /// Keys whose string values may be spacing names, on every primitive
    /// (a row's ``PrimitiveSpec/themeNames`` adds its own).
    static func isSpacingKey(_ key: String) -> Bool {
        switch key {
        case "padding", "spacing", "margin", "gap": return true
        default: return false
        }
    }

    /// Sorts one value; containers are literal when everything inside is.
    static func plan(_ value: JSONValue, spacing: Bool, typography: Bool) -> Value {
        switch value {
        case .string(let s):
            if let source = expressionSource(s) {
                do { return .expression(try CompiledExpression(source)) } catch {
                    return .badExpression(s, (error as? SDUIError)?.message ?? "\(error)")
                }
            }
            if s.utf8.first == UInt8(ascii: "@") {
                if let key = StringReference.key(of: s) { return .string(key: key, arguments: []) }
                if NodeBuilder.isThemeReference(s) { return .reference(s) }
            }
            if s.utf8.contains(UInt8(ascii: "{")) {
                return .template(BindingTemplate(s), names: typography ? .typography : spacing ? .spacing : nil)
            }
            if typography { return .typography(s) }
            if spacing { return .spacing(s) }
            return .literal(value)
        case .array(let items):
            let planned = items.map { plan($0, spacing: spacing, typography: false) }
            if planned.allSatisfy({ if case .literal = $0 { true } else { false } }) { return .literal(value) }
            return .array(planned)
        case .object(let members):
            if let key = StringReference.key(of: members) {
                return .string(key: key, arguments: members.keys.sorted().filter { $0 != StringReference.keyMember }.map {
                    (name: $0, value: plan(members[$0]!, spacing: false, typography: false))
                })
            }
            var o = Object()
            for k in members.keys.sorted() {
                add(k, plan(members[k]!, spacing: spacing || isSpacingKey(k), typography: false), to: &o)
            }
            return o.dynamic.isEmpty ? .literal(value) : .object(o)
        default:
            return .literal(value)
        }
    }
}

extension DesignToken {
    /// The token's props planned for resolution, built once per token on
    /// its first render (layers that never render, such as the registry,
    /// the importer and the pack planner, never build one).
    var plan: NodePlan {
        memo(NodePlan.self) { NodePlan(primitive: $0.primitive, version: $0.primitiveVersion, props: $0.props) }
    }
}
