// NodeBuilder.swift - builds the render nodes of one screen: props, bindings, rules, fallbacks.
import Foundation
import Logging
import SDUICore

/// Builds render nodes for one screen, collecting issues and events.
struct NodeBuilder {
    let context: RenderContext
    let theme: ResolvedTheme
    var issues: [RenderIssue]
    var events: [RenderEvent] = []
    /// Bytes the fills of this tree, and of the node being resolved, produced.
    var treeBytes = 0
    var nodeBytes = 0
    /// Set when a fill of the current node passed a bound: why.
    var limitHit: String?
    /// Nodes of the render tree built so far, and their bytes, counted
    /// against ``RenderContext/renderLimits`` as each node is built.
    var nodeCount = 0
    var renderBytes = 0
    /// How deep the node being built sits below the tree's root (a
    /// screen's items are at depth 1).
    var depth = 1
    /// Set once a node passed a render bound in this resolve or update:
    /// nothing more is built, the rest of the screen is left out.
    var full = false
    /// The screen's id, named in `limit` issues.
    var screenID = ""
    /// The string `id`s of the blocks being built, outermost first (a
    /// normalized payload's template and component), named in `limit`
    /// issues.
    var blockIDs: [String] = []

    init(context: RenderContext, theme: ResolvedTheme, issues: [RenderIssue]) {
        self.context = context
        self.theme = theme
        self.issues = issues
    }

    /// Child indices from the token's root to the node being resolved.
    var trail: [Int] = []

    /// Where the current node is: `root`, or `props.children[1].props.children[0]`.
    var path: String {
        trail.isEmpty ? "root" : trail.map { "props.children[\($0)]" }.joined(separator: ".")
    }

    /// Where a prop of the current node is.
    func path(of key: String) -> String { trail.isEmpty ? "props.\(key)" : "\(path).props.\(key)" }

    /// The node for one screen item (nil inside when it is not visible).
    mutating func item(id: String, bind: [String: JSONValue]?, lookup: TokenLookup?) -> ItemRecord {
        let scope = BindingScope(item: bind ?? [:], host: context.hostBindings, store: context.store)
        switch lookup {
        case .found(let token, _):
            let plan = token.plan
            return ItemRecord(plan: plan, token: token.id, label: nil, scope: scope,
                              record: record(plan, token: token.id, scope: scope))
        case .offline:
            return fixed(token: id, scope: scope) {
                $0.issues.append(RenderIssue(.offline, token: id, path: "root",
                                             "not cached and the registry cannot be reached"))
                return .skeleton(token: id)
            }
        case .unavailable(let error):
            return fixed(token: id, scope: scope) {
                $0.issues.append(RenderIssue(.unavailable, token: id, path: "root", error.description))
                return .placeholder(.unavailable, token: id)
            }
        case nil:
            return fixed(token: id, scope: scope) {
                $0.issues.append(RenderIssue(.unavailable, token: id, path: "root", "the token was not looked up"))
                return .placeholder(.unavailable, token: id)
            }
        }
    }

    /// The node for a block of a block screen (nil inside when it is not
    /// visible).
    mutating func block(_ block: JSONValue, index: Int, style: BlockStyle) -> ItemRecord {
        self.block(block, label: "block[\(index)]", style: style)
    }

    /// The layout blocks the builder draws itself when no renderer of the
    /// same type is registered: `{"type": "column"|"row"|"list", "blocks":
    /// [...]}` lays out the blocks inside (a normalized payload's templates
    /// arrive as these).
    static let layouts: [String: (primitive: String, version: Int, spacing: String)] = [
        "column": ("Column", 3, "@spacing.md"), "list": ("Column", 3, "@spacing.sm"),
        "row": ("Row", 2, "@spacing.sm"),
    ]

    /// The node for a block labelled `label` (`block[2]`, or
    /// `block[0].blocks[1]` inside a layout block).
    mutating func block(_ block: JSONValue, label: String, style: BlockStyle) -> ItemRecord {
        let scope = BindingScope(host: context.hostBindings, store: context.store)
        guard !full else { return ItemRecord(plan: nil, token: nil, label: label, scope: scope, record: NodeRecord()) }
        if let id = block["id"]?.stringValue { blockIDs.append(id) } else { blockIDs.append("") }
        defer { blockIDs.removeLast() }
        guard let type = block["type"]?.stringValue else {
            return fixed(label: label, scope: scope) {
                $0.blockFailure(.badBlock, label, "a block needs a string \"type\"")
            }
        }
        if context.blocks.renderer(for: type) == nil, let layout = Self.layouts[type] {
            guard let inner = block["blocks"]?.arrayValue else {
                return fixed(label: label, scope: scope) {
                    $0.blockFailure(.badBlock, label, "\(type): a layout block needs a list \"blocks\"", type: type)
                }
            }
            return container(layout, inner, label: label, scope: scope, style: style)
        }
        guard let render = context.blocks.renderer(for: type) else {
            return fixed(label: label, scope: scope) {
                $0.blockFailure(.unknownBlock, label, "no renderer for block type \"\(type)\"", type: type)
            }
        }
        var raw: JSONValue
        do {
            raw = try render(block.objectValue ?? [:], style)
        } catch {
            let why = (error as? SDUIError)?.message ?? "\(error)"
            return fixed(label: label, scope: scope) { $0.blockFailure(.badBlock, label, "\(type): \(why)", type: type) }
        }
        // A block's `transition` is its drawn root's (checked with the node's props, Motion.swift).
        if let t = block["transition"], case .object(var node) = raw {
            var props = node["props"]?.objectValue ?? [:]
            props["transition"] = t
            node["props"] = .object(props)
            raw = .object(node)
        }
        if let policy = context.imagePolicy, let v = policy.violations(in: raw, path: "node").first {
            return fixed(label: label, scope: scope) {
                $0.blockFailure(.badBlock, label, "\(type): image URL \(v)", type: type)
            }
        }
        let room = context.renderLimits.maxNodes - nodeCount
        guard RenderLimits.nodeCount(of: raw, within: room) != nil else {
            var rec = NodeRecord(node: RenderNode(primitive: raw["primitive"]?.stringValue ?? "", version: 0))
            overflow(&rec, who: label, token: nil,
                     bound: "\(type): its renderer made more nodes than the \(max(0, room)) left of",
                     limit: "\(context.renderLimits.maxNodes) render nodes (RenderLimits.maxNodes)")
            return ItemRecord(plan: nil, token: nil, label: label, scope: scope, record: rec)
        }
        let plan = NodePlan(node: raw)
        return ItemRecord(plan: plan, token: nil, label: label, scope: scope,
                          record: record(plan, token: nil, scope: scope, label: label))
    }

    /// A layout block: its own node (themed spacing resolved like any
    /// prop), then each inner block as a child, labelled
    /// `label.blocks[j]`; an inner block that cannot be drawn is a
    /// placeholder with its `render_error`, its siblings unaffected.  The
    /// item has no plan, so ``ScreenResolver/update(_:changed:)`` keeps it
    /// as drawn (the blocks inside bind no scenario data of their own).
    private mutating func container(_ layout: (primitive: String, version: Int, spacing: String),
                                    _ inner: [JSONValue], label: String, scope: BindingScope,
                                    style: BlockStyle) -> ItemRecord {
        let plan = NodePlan(node: .object(["primitive": .string(layout.primitive),
                                           "primitiveVersion": .int(Int64(layout.version)),
                                           "props": .object(["spacing": .string(layout.spacing)])]))
        var rec = record(plan, token: nil, scope: scope, label: label)
        if rec.descends {
            depth += 1
            defer { depth -= 1 }
            for (j, b) in inner.enumerated() {
                guard !full else { break }   // the rest of the screen is left out
                rec.children.append(block(b, label: "\(label).blocks[\(j)]", style: style).record)
            }
            rec.node!.children = rec.children.compactMap(\.node)
        }
        return ItemRecord(plan: nil, token: nil, label: label, scope: scope, record: rec)
    }

    /// An item drawn without a plan (a skeleton or a placeholder), with the
    /// issues and events `make` reported.
    private mutating func fixed(token: String? = nil, label: String? = nil, scope: BindingScope,
                                _ make: (inout NodeBuilder) -> RenderNode) -> ItemRecord {
        guard !full else { return ItemRecord(plan: nil, token: token, label: label, scope: scope, record: NodeRecord()) }
        guard nodeCount < context.renderLimits.maxNodes else {   // no room: not even the issues `make` would raise
            var rec = NodeRecord(node: .placeholder(.limit, token: token))
            fit(&rec, who: token ?? label, token: token)
            return ItemRecord(plan: nil, token: token, label: label, scope: scope, record: rec)
        }
        let (i0, e0) = (issues.count, events.count)
        var rec = NodeRecord(node: make(&self))
        rec.issues = Array(issues[i0...])
        rec.events = Array(events[e0...])
        issues.removeSubrange(i0...)
        events.removeSubrange(e0...)
        fit(&rec, who: token ?? label, token: token)
        return ItemRecord(plan: nil, token: token, label: label, scope: scope, record: rec)
    }

    private mutating func blockFailure(_ kind: RenderIssue.Kind, _ label: String, _ message: String,
                                       type: String = "") -> RenderNode {
        issues.append(RenderIssue(kind, token: label, path: "root", message))
        events.append(RenderEvent(name: EventKind.renderError.name, token: label, appVersion: context.appVersion,
                                  detail: message))
        context.logger.warning("render_error", metadata: ["block": "\(label)", "detail": "\(message)"])
        return RenderNode.placeholder(kind, primitive: type, token: nil)
    }

    /// Resolves one planned node and its children.
    mutating func record(_ plan: NodePlan, token: String?, scope: BindingScope,
                         label: String? = nil) -> NodeRecord {
        guard !full else { return NodeRecord() }   // past a render bound: left out
        var rec = counted(plan, token: token, scope: scope, label: label)
        guard rec.descends else { return rec }
        rec.children.reserveCapacity(plan.children.count)
        depth += 1
        defer { depth -= 1 }
        for (i, child) in plan.children.enumerated() {
            trail.append(i)
            rec.children.append(record(child, token: token, scope: scope, label: label))
            trail.removeLast()
        }
        rec.node!.children = rec.children.compactMap(\.node)
        return rec
    }

    /// Brings `old` (resolved from `plan`) up to date after changes at
    /// `changed`, re-resolving only the nodes whose props bind a changed
    /// path and reusing every other node as it was.  `at` is the node's
    /// place in the updated tree (child indexes from the screen's root);
    /// the places of nodes whose own output changed are appended to
    /// `changes`, and a node whose visibility changed is reported as a
    /// change of its parent (its list of children changed).
    mutating func update(_ old: NodeRecord, _ plan: NodePlan, changed: [KeyPath], token: String?,
                         scope: BindingScope, label: String?, at place: [Int],
                         changes: inout [[Int]]) -> NodeRecord {
        guard plan.subtreeBinds(any: changed) else { return old }
        let ownTouched = plan.binds(any: changed)
        guard ownTouched || old.descends else { return old }   // hidden or a placeholder, and stays so
        var rec: NodeRecord
        if ownTouched {
            treeBytes -= old.bytes
            (nodeCount, renderBytes) = (nodeCount - (old.node == nil ? 0 : 1), renderBytes - old.size)
            rec = full ? NodeRecord() : counted(plan, token: token, scope: scope, label: label)
            if let new = rec.node, let was = old.node, !Self.sameOwn(new, was) { changes.append(place) }
            guard rec.descends else {
                // Hidden, a placeholder or left out now: its old children's
                // fills and nodes no longer count against the tree's bounds.
                for c in old.children {
                    treeBytes -= c.subtreeBytes
                    nodeCount -= c.subtreeNodes
                    renderBytes -= c.subtreeSize
                }
                return rec
            }
        } else {
            rec = old
        }
        var visible = 0
        var listChanged = false
        rec.children = []
        rec.children.reserveCapacity(plan.children.count)
        depth += 1
        defer { depth -= 1 }
        for (i, child) in plan.children.enumerated() {
            trail.append(i)
            let next: NodeRecord
            if old.descends, i < old.children.count {
                next = update(old.children[i], child, changed: changed, token: token, scope: scope,
                              label: label, at: place + [visible], changes: &changes)
                if (next.node == nil) != (old.children[i].node == nil) { listChanged = true }
            } else {
                next = record(child, token: token, scope: scope, label: label)
                listChanged = true
            }
            trail.removeLast()
            if next.node != nil { visible += 1 }
            rec.children.append(next)
        }
        rec.node!.children = rec.children.compactMap(\.node)
        if listChanged { changes.append(place) }
        return rec
    }

    /// Whether two nodes agree in everything but their children.
    static func sameOwn(_ a: RenderNode, _ b: RenderNode) -> Bool {
        a.kind == b.kind && a.primitive == b.primitive && a.version == b.version
            && a.props == b.props && a.token == b.token && a.reason == b.reason
    }

    /// Resolves a node's own props (not its children): the node without
    /// children, or a placeholder, or nil when it is not visible; with the
    /// issues, events and fill bytes that took.
    private mutating func own(_ plan: NodePlan, token: String?, scope: BindingScope,
                              label: String?) -> NodeRecord {
        let (i0, e0, b0) = (issues.count, events.count, treeBytes)
        let (node, descends) = ownNode(plan, token: token, scope: scope, label: label)
        var rec = NodeRecord(node: node, descends: descends)
        rec.issues = Array(issues[i0...])
        rec.events = Array(events[e0...])
        rec.bytes = treeBytes - b0
        issues.removeSubrange(i0...)
        events.removeSubrange(e0...)
        return rec
    }

    /// ``own(_:token:scope:label:)`` counted against the render bounds
    /// (see ``fit(_:who:token:)``).  The node is resolved first, as a
    /// hidden one costs nothing; that is one node's props, bounded by
    /// ``BindingLimits``, and at most one node a run resolves past a bound.
    private mutating func counted(_ plan: NodePlan, token: String?, scope: BindingScope,
                                  label: String?) -> NodeRecord {
        var rec = own(plan, token: token, scope: scope, label: label)
        fit(&rec, who: token ?? label, token: token)
        return rec
    }

    /// Counts `rec`'s node (when it has one) against
    /// ``RenderContext/renderLimits``.  When it does not fit, it becomes a
    /// `limit` placeholder (``overflow(_:who:token:bound:limit:)``) and the
    /// builder is ``full``.
    mutating func fit(_ rec: inout NodeRecord, who: String?, token: String?) {
        guard let node = rec.node else { return }
        let limits = context.renderLimits
        let limit: String
        if depth > limits.maxDepth {
            limit = "\(limits.maxDepth) levels of nesting (RenderLimits.maxDepth)"
        } else if nodeCount >= limits.maxNodes {
            limit = "\(limits.maxNodes) render nodes (RenderLimits.maxNodes)"
        } else if let n = RenderLimits.size(of: node, within: limits.maxBytes - renderBytes) {
            nodeCount += 1
            renderBytes += n
            rec.size = n
            return
        } else {
            limit = "\(limits.maxBytes) bytes (RenderLimits.maxBytes)"
        }
        overflow(&rec, who: who, token: token, bound: "this node would pass", limit: limit)
    }

    /// Makes `rec` a `limit` placeholder standing for its node, with an
    /// issue naming the screen, the item and the blocks it is in, and marks
    /// the builder ``full``: nothing after it is built.  The placeholder
    /// is counted, so a tree holds at most one node over the bound.
    mutating func overflow(_ rec: inout NodeRecord, who: String?, token: String?, bound: String, limit: String) {
        let node = rec.node
        let placeholder = RenderNode.placeholder(.limit, primitive: node?.primitive ?? "",
                                                 version: node?.version ?? 0, token: token)
        // Ids come from the payload: quoted with escapes, and cut.
        func quoted(_ id: String) -> String {
            String(reflecting: id.utf8.count > 100 ? String(id.prefix(100)) + "…" : id)
        }
        let ids = blockIDs.filter { !$0.isEmpty }
        let within = ids.isEmpty ? "" : " (in block " + ids.map(quoted).joined(separator: " › ") + ")"
        rec.issues.append(RenderIssue(.limit, token: who, path: path,
                                      "\(bound) the bound of \(limit) of the screen \(quoted(screenID))"
                                      + "\(within); a placeholder stands here and the rest of the screen is left out"))
        rec.node = placeholder
        rec.descends = false
        rec.children = []
        rec.size = RenderLimits.size(of: placeholder, within: .max) ?? 0
        nodeCount += 1
        renderBytes += rec.size
        full = true
    }

    /// The body of ``own(_:token:scope:label:)``; `descends` is true for a
    /// visible primitive, whose children are resolved next.
    private mutating func ownNode(_ plan: NodePlan, token: String?, scope: BindingScope,
                                  label: String?) -> (RenderNode?, descends: Bool) {
        let who = token ?? label
        let (primitive, version) = (plan.primitive, plan.version)
        if let error = plan.error {
            issues.append(RenderIssue(.badContent, token: who, path: path, error))
            return (.placeholder(.badContent, primitive: primitive, token: token), false)
        }
        guard let have = context.primitives.version(of: primitive) else {
            issues.append(RenderIssue(.unknownPrimitive, token: who, path: path,
                                      "\(primitive)@\(version) is not a primitive this app renders"))
            events.append(RenderEvent(name: "unknown_primitive", token: who, appVersion: context.appVersion,
                                      detail: "\(primitive)@\(version)"))
            context.logger.warning("unknown_primitive", metadata: [
                "token": "\(who ?? "-")", "primitive": "\(primitive)@\(version)",
                "appVersion": "\(context.appVersion)"])
            return (.placeholder(.unknownPrimitive, primitive: primitive, version: version, token: token), false)
        }
        guard version <= have else {
            issues.append(RenderIssue(.incompatibleVersion, token: who, path: path,
                                      "needs \(primitive)@\(version), the app has \(primitive)@\(have)"))
            return (.placeholder(.incompatibleVersion, primitive: primitive, version: version, token: token), false)
        }
        var props = plan.props.literals
        nodeBytes = 0
        limitHit = nil
        for (key, value) in plan.props.dynamic {
            props[key] = resolve(value, key: key, who: who, scope: scope)
        }
        if let why = limitHit {
            issues.append(RenderIssue(.limit, token: who, path: path, why))
            return (.placeholder(.limit, primitive: primitive, version: version, token: token), false)
        }
        if case .bool(false)? = props["visible"] { return (nil, false) }
        props["visible"] = nil
        if let broken = checkRules(primitive, &props, who: who) {
            issues.append(RenderIssue(.propRule, token: who, path: path, broken))
            return (.placeholder(.propRule, primitive: primitive, version: version, token: token), false)
        }
        if plan.childrenNotAList {
            issues.append(RenderIssue(.badContent, token: who, path: path, "props.children must be a list"))
        }
        if let t = props["transition"] {
            // Every motion with its reduced form; only the reduced forms when motion is reduced (Motion.swift).
            do {
                props["transition"] = try Motion.transition(t, at: "transition", reduceMotion: context.reduceMotion)
            } catch let e as SDUIError {
                issues.append(RenderIssue(.badContent, token: who, path: path(of: "transition"), e.message + "; dropped"))
                props["transition"] = nil
            } catch {
                props["transition"] = nil
            }
        }
        if let g = props["gestures"] {
            // Whole, with the theme's gesture settings filled in (Gestures.swift).
            do {
                let accepts = PrimitiveSpec.named(primitive)?.gestures ?? []
                props["gestures"] = try Gestures.resolve(g, at: "gestures", primitive: primitive, accepts: accepts) { name in
                    theme.reference(group: "gesture", name: Substring(name))?.doubleValue
                }
            } catch let e as SDUIError {
                issues.append(RenderIssue(.badContent, token: who, path: path(of: "gestures"), e.message + "; dropped"))
                props["gestures"] = nil
            } catch {
                props["gestures"] = nil
            }
        }
        return (RenderNode(primitive: primitive, version: version, props: props, children: [], token: token), true)
    }

    /// Resolves one planned prop value; nil removes the prop.
    mutating func resolve(_ value: NodePlan.Value, key: String, who: String?, scope: BindingScope) -> JSONValue? {
        switch value {
        case .literal(let v):
            return v
        case .reference(let s):
            return theme.references[s] ?? unknown(s, key: key, who: who)
        case .spacing(let s):
            return theme.spacing(named: s) ?? unknown("spacing \"\(s)\"", key: key, who: who)
        case .typography(let s):
            return theme.typography(named: s) ?? unknown("typography \"\(s)\"", key: key, who: who)
        case .template(let template, let names):
            guard limitHit == nil else { return nil }   // the node is a placeholder already
            var problems: [BindingProblem] = []
            let limits = context.bindingLimits
            let bounds = [(limits.maxStringBytes, "string"), (limits.maxNodeBytes - nodeBytes, "node"),
                          (limits.maxTreeBytes - treeBytes, "tree")]
            let bound = bounds.min { $0.0 < $1.0 }!
            var produced = 0
            let filled = template.fill(scope: scope, problems: &problems, limit: max(0, bound.0),
                                       produced: &produced)
            nodeBytes += produced
            treeBytes += produced
            for p in problems {
                let at = path(of: key)
                switch p.kind {
                case .limit:
                    limitHit = "\(at): \(p.text) (the per-\(bound.1) bound of binding fills)"
                case .missing:
                    issues.append(RenderIssue(.missingBinding, token: who, path: at, "no value for {{\(p.text)}}"))
                case .malformed:
                    issues.append(RenderIssue(.badBinding, token: who, path: at, "malformed placeholder \(p.text)"))
                case .notText:
                    issues.append(RenderIssue(.badBinding, token: who, path: at,
                                              "{{\(p.text)}} is a list or object inside text"))
                }
            }
            if let names, case .string(let name)? = filled {   // bound values are not resolved again,
                switch names {                                  // but a bound name is looked up
                case .spacing: return resolve(.spacing(name), key: key, who: who, scope: scope)
                case .typography: return resolve(.typography(name), key: key, who: who, scope: scope)
                }
            }
            return filled
        case .expression(let e):
            guard limitHit == nil else { return nil }
            let value: JSONValue
            do {
                value = try e.evaluate(slots: try scope.slots(for: e))
            } catch {
                let why = (error as? SDUIError)?.message ?? "\(error)"
                issues.append(RenderIssue(.badBinding, token: who, path: path(of: key), "@{\(e.source)}: \(why)"))
                return nil
            }
            let limits = context.bindingLimits
            let room = min(limits.maxStringBytes, limits.maxNodeBytes - nodeBytes, limits.maxTreeBytes - treeBytes)
            guard let n = BindingLimits.size(of: value, within: max(0, room)) else {
                limitHit = "\(path(of: key)): the value of @{\(e.source)} is over \(max(0, room)) bytes (a bound of binding fills)"
                return nil
            }
            nodeBytes += n
            treeBytes += n
            return value
        case .badExpression(let source, let why):
            issues.append(RenderIssue(.badBinding, token: who, path: path(of: key), "\(source) does not compile: \(why)"))
            return nil
        case .string(let name, let arguments):
            guard limitHit == nil else { return nil }
            return text(of: name, arguments: arguments, key: key, who: who, scope: scope)
        case .array(let items):
            var out: [JSONValue] = []
            out.reserveCapacity(items.count)
            for item in items {
                out.append(resolve(item, key: key, who: who, scope: scope) ?? .null)
                if limitHit != nil { return nil }
            }
            return .array(out)
        case .object(let o):
            var out = o.literals
            for (k, v) in o.dynamic { out[k] = resolve(v, key: key, who: who, scope: scope) }
            return .object(out)
        }
    }

    /// The catalog text of `name` in the context's locale, its arguments
    /// resolved first (a number stays a number, so `count` chooses a plural
    /// form); a missing key shows the key, with a `missing_string` issue and
    /// event.  The text counts against the binding bounds as a fill does.
    private mutating func text(of name: String, arguments: [(name: String, value: NodePlan.Value)], key: String,
                               who: String?, scope: BindingScope) -> JSONValue? {
        var args: [String: StringArgument] = [:]
        for (arg, planned) in arguments {
            guard let v = resolve(planned, key: key, who: who, scope: scope) else { continue }
            if limitHit != nil { return nil }
            if let d = v.doubleValue, v.stringValue == nil { args[arg] = .number(d) }
            else if let t = v.stringValue { args[arg] = .text(t) }
            else if let t = v.scalarText { args[arg] = .text(t) }
        }
        let locale = context.textLocale ?? "en"
        let lookup: StringLookup
        do {
            guard let strings = context.strings else {
                throw SDUIError(.notFound, "no string catalogs")
            }
            lookup = try strings.text(name, locale: locale, arguments: args)
        } catch {
            let why = (error as? SDUIError)?.message ?? "\(error)"
            issues.append(RenderIssue(.missingString, token: who, path: path(of: key), "@string.\(name): \(why)"))
            events.append(RenderEvent(name: "missing_string", token: who, appVersion: context.appVersion, detail: name))
            return .string(name)
        }
        if lookup.isMissing {
            issues.append(RenderIssue(.missingString, token: who, path: path(of: key),
                                      "no catalog of \(locale)'s chain has the key \"\(name)\"; the key is shown"))
            events.append(RenderEvent(name: "missing_string", token: who, appVersion: context.appVersion, detail: name))
        }
        let limits = context.bindingLimits
        let room = min(limits.maxStringBytes, limits.maxNodeBytes - nodeBytes, limits.maxTreeBytes - treeBytes)
        let n = lookup.text.utf8.count
        guard n <= max(0, room) else {
            limitHit = "\(path(of: key)): the text of @string.\(name) is over \(max(0, room)) bytes (a bound of binding fills)"
            return nil
        }
        nodeBytes += n
        treeBytes += n
        return .string(lookup.text)
    }

    /// Reports a name the theme lacks (`what`: `@color.x`, `spacing "huge"`);
    /// nil, so the prop is dropped.
    private mutating func unknown(_ what: String, key: String, who: String?) -> JSONValue? {
        issues.append(RenderIssue(.unknownThemeReference, token: who, path: path(of: key),
                                  "the theme \"\(theme.theme.id)\" has no \(what)"))
        return nil
    }

    /// Checks `props` against the primitive's rules: drops broken optional
    /// props (with an issue) and returns a message when a required one is
    /// missing or broken.
    mutating func checkRules(_ primitive: String, _ props: inout [String: JSONValue],
                             who: String?) -> String? {
        for (name, rule) in context.primitives.orderedPropRules(of: primitive) {
            guard let v = props[name] else {
                if rule.required { return "\(primitive) needs the prop \"\(name)\" (\(rule.kind.rawValue))" }
                continue
            }
            if rule.accepts(v) {
                if rule.kind == .typography, let full = PropRule.completedTypography(v) { props[name] = full }
                continue
            }
            if rule.kind == .string, v.stringValue == nil, let text = v.scalarText {   // a number bound into a text
                props[name] = .string(text)
                continue
            }
            if rule.required { return "\(primitive).\(name) must be \(rule.kind.rawValue)" }
            issues.append(RenderIssue(.propRule, token: who, path: path(of: name),
                                      "must be \(rule.kind.rawValue); dropped"))
            props[name] = nil
        }
        return nil
    }


    /// Whether `s` has the shape of a theme reference, `@group.name`, with
    /// a known group: letters for the group; letters, digits and `_` for the
    /// name.  Anything else starting with `@` (`@handle`) is plain text.
    static func isThemeReference(_ s: String) -> Bool {
        let u = s.utf8
        guard let dot = u.firstIndex(of: UInt8(ascii: ".")) else { return false }
        let group = u[u.index(after: u.startIndex)..<dot], name = u[u.index(after: dot)...]
        func letter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        guard !name.isEmpty,
              name.allSatisfy({ letter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") }) else { return false }
        return ResolvedTheme.groups.contains(String(decoding: group, as: UTF8.self))
    }
}
