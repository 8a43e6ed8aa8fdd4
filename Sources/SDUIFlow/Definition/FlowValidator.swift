// FlowValidator.swift - the checks a flow passes before it is published or run.
//
// Decoding already proved the shape; what is left is what a shape cannot
// say.  The screens are a directed graph: an edge for every `next` entry.
// The faults a user meets only at run time are found by walks over it:
//
//   - forward from `start`: every screen not reached is unreachable;
//   - backward from the completing screens (those without `next`): every
//     reachable screen not reached this way can never complete the flow;
//   - a condition on screen S that reads `answers.K` needs some screen
//     that can come before S (a reachable screen with a path to S), or S
//     itself, to write K (a block with that key, or an action that writes
//     `answers.K`, `set` or `toggle`, also inside a `sequence` or an `if`);
//     otherwise the key is read before any screen can write it, and the
//     condition tests `null` on every run.  An `if` action's condition
//     counts as one on its screen.
//
// The first two are breadth-first walks, each edge followed once.  The
// third asks, for every (screen, key) a condition reads, whether a writer
// of the key reaches the screen: asked walk by walk (a walk backward from
// each reading screen, as this file once did) it costs screens × edges,
// 32 seconds for a 10,000-screen chain.  Instead the keys written before
// each screen flow forward through the graph as bit sets: the reachable
// screens are cut into strongly connected components (Tarjan's algorithm,
// with an explicit stack, so a long chain cannot exhaust the thread's
// stack), and in topological order each component takes the union of what
// its predecessors wrote or had before them; within a component with a
// cycle every screen comes before every other, so the component's own
// writes count too.  Keys are taken 64 to a machine word, so the walk
// costs (screens + edges) for every 64 keys that are both read and
// written; FlowLimits bounds screens, edges and keys, and with them the
// whole validation.

import SDUI
import SDUICore

/// One fault of a flow definition: what, on which screen, where in the JSON.
public struct FlowIssue: Sendable, Hashable, CustomStringConvertible {
    /// How bad it is: an error keeps the flow from being published or run.
    public enum Severity: String, Sendable, Hashable { case error, warning }

    /// What kind of fault it is (a stable code for tools).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case unknownStart = "unknown_start"
        case unknownTarget = "unknown_target"
        case unreachable
        case noCompletion = "no_completion"
        case badCondition = "bad_condition"
        case keyReadBeforeWritten = "key_read_before_written"
        case duplicateScreen = "duplicate_screen"
        case duplicateKey = "duplicate_key"
        case unknownBlock = "unknown_block"
        case badAction = "bad_action"
        case noDefaultTransition = "no_default_transition"
        /// An `open_url` or `submit` URL the link policy refuses.
        case badURL = "bad_url"
        /// A flow over one of its ``FlowLimits``.
        case tooLarge = "too_large"
    }

    /// Whether it keeps the flow from being published or run.
    public var severity: Severity
    /// Which check found it.
    public var kind: Kind
    /// The screen the fault is on (nil for the flow as a whole).
    public var screen: String?
    /// The JSON path of the value at fault (`$.screens[1].next[0].when`).
    public var path: String
    /// What is wrong, for a person.
    public var message: String

    /// `error: $.screens[1].next[0].to (screen "a"): …`
    public var description: String {
        "\(severity.rawValue): \(path)" + (screen.map { " (screen \"\($0)\")" } ?? "") + ": \(message)"
    }
}

/// Checks a ``FlowDefinition``: limits, targets, reachability, completion,
/// conditions, keys, blocks, actions and their URLs (see the file's essay).
public struct FlowValidator: Sendable {
    /// The block types a screen may use.
    public var blocks: BlockRegistry
    /// What `open_url` actions may open (HTTPS to any host by default).
    public var links: LinkPolicy
    /// Where `submit` actions may post (absolute http(s) URLs).
    public var endpoints: LinkPolicy
    /// The sizes a flow may reach.
    public var limits: FlowLimits
    /// The actions a button may name: the names of ``FlowActions/all``.
    public static var actions: Set<String> { Set(FlowActions.names) }

    /// A validator that knows `blocks`' types and checks URLs with `links`
    /// and `endpoints`.
    public init(blocks: BlockRegistry = .builtIn, links: LinkPolicy = .https, endpoints: LinkPolicy = .endpoints,
                limits: FlowLimits = FlowLimits()) {
        self.blocks = blocks
        self.links = links
        self.endpoints = endpoints
        self.limits = limits
    }

    /// The errors of `flow`, then its warnings; empty when it is sound.
    public func validate(_ flow: FlowDefinition) -> [FlowIssue] {
        var issues: [FlowIssue] = []
        func add(_ k: FlowIssue.Kind, _ screen: String?, _ path: String, _ m: String,
                 _ s: FlowIssue.Severity = .error) {
            issues.append(FlowIssue(severity: s, kind: k, screen: screen, path: path, message: m))
        }
        func ordered() -> [FlowIssue] {
            issues.filter { $0.severity == .error } + issues.filter { $0.severity == .warning }
        }

        // Sizes first: nothing below may run on a flow over its limits.
        let n = flow.screens.count
        let transitions = flow.screens.reduce(0) { $0 + $1.next.count }
        let blockCount = flow.screens.reduce(0) { $0 + $1.blocks.count }
        if n > limits.maxScreens {
            add(.tooLarge, nil, "$.screens", FlowLimits.over(n, "screens", limits.maxScreens, "maxScreens"))
        }
        if transitions > limits.maxTransitions {
            add(.tooLarge, nil, "$.screens", FlowLimits.over(transitions, "transitions", limits.maxTransitions,
                                                             "maxTransitions"))
        }
        if blockCount > limits.maxBlocks {
            add(.tooLarge, nil, "$.screens", FlowLimits.over(blockCount, "blocks", limits.maxBlocks, "maxBlocks"))
        }
        guard issues.isEmpty else { return issues }

        // Ids and keys.
        var firstIndex: [String: Int] = [:]
        var keyOwner: [String: (screen: String, path: String)] = [:]
        let inputs = flow.screens.map(\.inputs)
        for (i, s) in flow.screens.enumerated() {
            if let j = firstIndex[s.id] {
                add(.duplicateScreen, s.id, "\(s.jsonPath).id", "duplicate screen id (first at $.screens[\(j)])")
            } else {
                firstIndex[s.id] = i
            }
            for input in inputs[i] {
                let path = "\(s.jsonPath).blocks[\(input.block)].key"
                if let owner = keyOwner[input.key] {
                    add(.duplicateKey, s.id, path,
                        "answer key \"\(input.key)\" is also written at \(owner.path) (screen \"\(owner.screen)\")")
                } else {
                    keyOwner[input.key] = (s.id, path)
                }
            }
        }

        // Blocks and actions; the answer keys each screen writes.
        var written = inputs.map { Set($0.map(\.key)) }
        var actionConditions: [(screen: Int, path: String, when: String)] = []
        var navigations: [(screen: Int, path: String, to: String)] = []
        for (i, s) in flow.screens.enumerated() {
            for (j, b) in s.blocks.enumerated() {
                let type = b["type"]?.stringValue ?? ""
                if blocks.renderer(for: type) == nil {
                    add(.unknownBlock, s.id, "\(s.jsonPath).blocks[\(j)].type",
                        "unknown block type \"\(type)\" (known: \(blocks.types.joined(separator: ", ")))")
                }
                for (path, action) in Self.actions(in: b, at: "\(s.jsonPath).blocks[\(j)]") {
                    switch FlowAction.parse(action) {
                    case .failure(let why): add(.badAction, s.id, path, why.message)
                    case .success(let top):
                        // A sequence's or an if's actions each count.
                        for (at, a) in top.walk(at: path) {
                            let spec = FlowActions.spec(for: a)
                            if let key = spec.writes(a), let k = Self.answerKey(key) { written[i].insert(k) }
                            if let (member, why) = spec.checkLinks(a, self) { add(.badURL, s.id, "\(at).\(member)", why) }
                            if case .condition(let when, _, _) = a { actionConditions.append((i, "\(at).when", when)) }
                            if case .navigate(let to) = a { navigations.append((i, "\(at).to", to)) }
                        }
                    }
                }
            }
        }
        let keysWritten = written.reduce(into: Set<String>()) { $0.formUnion($1) }
        if keysWritten.count > limits.maxAnswerKeys {
            add(.tooLarge, nil, "$.screens", FlowLimits.over(keysWritten.count, "answer keys written",
                                                             limits.maxAnswerKeys, "maxAnswerKeys"))
            return ordered()
        }

        // The graph.
        var edges = [[Int]](repeating: [], count: n)
        var reverse = [[Int]](repeating: [], count: n)
        for (i, s) in flow.screens.enumerated() where firstIndex[s.id] == i {
            for t in s.next {
                guard let j = firstIndex[t.to] else {
                    add(.unknownTarget, s.id, "\(t.jsonPath).to", "no screen \"\(t.to)\" in the flow")
                    continue
                }
                edges[i].append(j)
                reverse[j].append(i)
            }
            // A navigate action is an edge too.
            for nav in navigations where nav.screen == i {
                guard let j = firstIndex[nav.to] else {
                    add(.unknownTarget, s.id, nav.path, "navigate: no screen \"\(nav.to)\" in the flow")
                    continue
                }
                edges[i].append(j)
                reverse[j].append(i)
            }
            if !s.next.isEmpty, !s.next.contains(where: { $0.when == nil }) {
                add(.noDefaultTransition, s.id, "\(s.jsonPath).next",
                    "every entry has a condition: when none holds, next stays on this screen", .warning)
            }
        }
        guard let start = firstIndex[flow.start] else {
            add(.unknownStart, nil, "$.start", "no screen \"\(flow.start)\" in the flow")
            return ordered()
        }
        let reachable = Self.walk(from: [start], edges, count: n)
        let completing = (0..<n).filter { firstIndex[flow.screens[$0].id] == $0 && flow.screens[$0].completes }
        let canComplete = Self.walk(from: completing, reverse, count: n)
        for (i, s) in flow.screens.enumerated() where firstIndex[s.id] == i {
            if !reachable[i] {
                add(.unreachable, s.id, s.jsonPath, "no path from the start screen \"\(flow.start)\" leads here")
            } else if !canComplete[i] {
                add(.noCompletion, s.id, s.jsonPath, "no path from this screen completes the flow")
            }
        }

        // Conditions: each parsed once; the answer keys each reads.
        var reads: [Read] = []
        for (i, s) in flow.screens.enumerated() where firstIndex[s.id] == i {
            for t in s.next {
                guard let when = t.when else { continue }
                guard when.utf8.count <= limits.maxConditionBytes else {
                    add(.tooLarge, s.id, "\(t.jsonPath).when", FlowLimits.over(when.utf8.count, "bytes",
                                                                             limits.maxConditionBytes,
                                                                             "maxConditionBytes"))
                    continue
                }
                let expr: CompiledExpression
                do {
                    expr = try CompiledExpression(when)
                } catch let e as SDUIError {
                    add(.badCondition, s.id, "\(t.jsonPath).when", "does not parse: " + Self.exprMessage(e))
                    continue
                } catch {
                    add(.badCondition, s.id, "\(t.jsonPath).when", "does not parse: \(error)")
                    continue
                }
                var seen = Set<String>()
                for key in Self.answerKeys(read: expr) where seen.insert(key).inserted {
                    reads.append(Read(screen: i, key: key, path: "\(t.jsonPath).when"))
                }
            }
        }
        // An if's condition reads keys as a transition's does (it parsed
        // when its action did).
        for c in actionConditions where firstIndex[flow.screens[c.screen].id] == c.screen {
            guard let expr = try? CompiledExpression(c.when) else { continue }
            var seen = Set<String>()
            for key in Self.answerKeys(read: expr) where seen.insert(key).inserted {
                reads.append(Read(screen: c.screen, key: key, path: c.path))
            }
        }
        for r in Self.readsBeforeWritten(reads, written: written, edges: edges, reachable: reachable) {
            add(.keyReadBeforeWritten, flow.screens[r.screen].id, r.path,
                "reads answers.\(r.key), which no screen before it (or this one) writes")
        }
        return ordered()
    }

    /// The errors only.
    public func errors(_ flow: FlowDefinition) -> [FlowIssue] {
        validate(flow).filter { $0.severity == .error }
    }

    /// An answer key a condition reads: on which screen, where.
    struct Read {
        var screen: Int
        var key: String
        var path: String
    }

    /// Whether each screen is reached from `roots` along `edges` (each edge
    /// followed once).
    static func walk(from roots: [Int], _ edges: [[Int]], count n: Int) -> [Bool] {
        var seen = [Bool](repeating: false, count: n)
        var queue: [Int] = []
        for r in roots where !seen[r] {
            seen[r] = true
            queue.append(r)
        }
        while let i = queue.popLast() {
            for j in edges[i] where !seen[j] {
                seen[j] = true
                queue.append(j)
            }
        }
        return seen
    }

    /// The reads whose key no screen before the reading one (or that one)
    /// writes, in the order given (see the file's essay).  `written[s]`:
    /// the keys screen s writes.
    static func readsBeforeWritten(_ reads: [Read], written: [Set<String>], edges: [[Int]],
                                   reachable: [Bool]) -> [Read] {
        let n = edges.count
        // Keys both read and written get a bit each; a key read but
        // written nowhere fails every read of it.
        var bit: [String: Int] = [:]
        var keys: [String] = []
        var anyWriter = Set<String>()
        for w in written { anyWriter.formUnion(w) }
        for r in reads where anyWriter.contains(r.key) && bit[r.key] == nil {
            bit[r.key] = keys.count
            keys.append(r.key)
        }
        var ok = [Bool](repeating: false, count: reads.count)
        if !keys.isEmpty {
            let (component, order) = components(edges, reachable: reachable)
            // Who writes each key that has a bit, and who reads it.
            var writers = [[Int]](repeating: [], count: keys.count)
            for (s, w) in written.enumerated() {
                for k in w { if let b = bit[k] { writers[b].append(s) } }
            }
            var readsOf = [[Int]](repeating: [], count: keys.count)
            for (i, r) in reads.enumerated() { if let b = bit[r.key] { readsOf[b].append(i) } }
            let cyclic = order.map { members in
                members.count > 1 || members.first.map { s in edges[s].contains(s) } ?? false
            }
            var wrote = [UInt64](repeating: 0, count: n)
            var compWrote = [UInt64](repeating: 0, count: order.count)
            var before = [UInt64](repeating: 0, count: order.count)
            for chunk in stride(from: 0, to: keys.count, by: 64) {
                let range = chunk..<min(chunk + 64, keys.count)
                for i in wrote.indices { wrote[i] = 0 }
                for c in compWrote.indices { compWrote[c] = 0; before[c] = 0 }
                for b in range {
                    for s in writers[b] { wrote[s] |= 1 << UInt64(b - chunk) }
                }
                for (c, members) in order.enumerated() {
                    for s in members { compWrote[c] |= wrote[s] }
                }
                // Topological order: every predecessor is done first.
                for (c, members) in order.enumerated() {
                    let out = before[c] | compWrote[c]
                    for s in members {
                        for t in edges[s] where reachable[t] && component[t] != c {
                            before[component[t]] |= out
                        }
                    }
                }
                for b in range {
                    let mask: UInt64 = 1 << UInt64(b - chunk)
                    for i in readsOf[b] {
                        let s = reads[i].screen
                        var have = wrote[s]
                        if reachable[s] {
                            let c = component[s]
                            have |= before[c] | (cyclic[c] ? compWrote[c] : 0)
                        }
                        ok[i] = have & mask != 0
                    }
                }
            }
        }
        return reads.indices.filter { !ok[$0] }.map { reads[$0] }
    }

    /// The strongly connected components of the reachable screens, in
    /// topological order (a component before every one it has an edge to),
    /// and each reachable screen's component (-1 for the others).  Tarjan's
    /// algorithm with an explicit stack; each edge is looked at once.
    static func components(_ edges: [[Int]], reachable: [Bool]) -> (component: [Int], order: [[Int]]) {
        let n = edges.count
        var index = [Int](repeating: -1, count: n)
        var low = [Int](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var component = [Int](repeating: -1, count: n)
        var stack: [Int] = []
        var found: [[Int]] = []
        var counter = 0
        for root in 0..<n where reachable[root] && index[root] < 0 {
            var calls: [(node: Int, next: Int)] = [(root, 0)]
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(root); onStack[root] = true
            while let top = calls.last {
                let v = top.node
                if top.next < edges[v].count {
                    calls[calls.count - 1].next += 1
                    let w = edges[v][top.next]
                    guard reachable[w] else { continue }
                    if index[w] < 0 {
                        index[w] = counter; low[w] = counter; counter += 1
                        stack.append(w); onStack[w] = true
                        calls.append((w, 0))
                    } else if onStack[w] {
                        low[v] = min(low[v], index[w])
                    }
                    continue
                }
                calls.removeLast()
                if let parent = calls.last { low[parent.node] = min(low[parent.node], low[v]) }
                guard low[v] == index[v] else { continue }
                var members: [Int] = []
                while let w = stack.popLast() {
                    onStack[w] = false
                    members.append(w)
                    if w == v { break }
                }
                found.append(members)
            }
        }
        // Tarjan finds a component after every component it reaches.
        let order = Array(found.reversed())
        for (c, members) in order.enumerated() {
            for s in members { component[s] = c }
        }
        return (component, order)
    }

    /// The answer key a `set` action's key path writes (`answers.goal`,
    /// `answers.goal.detail` → `goal`), or nil.
    static func answerKey(_ path: String) -> String? {
        guard let p = try? KeyPath(path), p.components.count >= 2, p.components[0] == .key("answers"),
              case .key(let k) = p.components[1] else { return nil }
        return k
    }

    /// The answer keys an expression reads (`answers.goal` → `goal`).
    static func answerKeys(read expr: CompiledExpression) -> [String] {
        expr.paths.compactMap { answerKey($0) }
    }

    /// The actions of a block: each `action` member of its buttons, with
    /// its JSON path.
    static func actions(in block: JSONValue, at path: String) -> [(String, JSONValue)] {
        var out: [(String, JSONValue)] = []
        for key in ["primary", "secondary"] {
            if let b = block[key], b.objectValue != nil {
                out.append(("\(path).\(key).action", b["action"] ?? .string("next")))
            }
        }
        if let a = block["action"] { out.append(("\(path).action", a)) }
        return out
    }

    /// Every `action` member in `value` (a token's props, a block screen's
    /// blocks, at any depth) that cannot run: one that does not parse, or
    /// that holds a URL the policies refuse, each with its JSON path under
    /// `path` (`props.children[1].props.action.then.url`).  What the
    /// registry checks when it imports tokens and screens, as the flow
    /// validator does for a flow's buttons; at most `limit` faults.
    public func actionFaults(in value: JSONValue, at path: String, limit: Int = 50) -> [(path: String, message: String)] {
        var out: [(path: String, message: String)] = []
        func visit(_ v: JSONValue, _ p: String, depth: Int) {
            guard out.count < limit, depth <= 256 else { return }
            switch v {
            case .object(let members):
                for key in members.keys.sorted() {
                    let child = members[key]!
                    let at = "\(p).\(key)"
                    if key == "action" {
                        switch FlowAction.parse(child) {
                        case .failure(let why): out.append((at, why.message))
                        case .success(let top):
                            for (inner, a) in top.walk(at: at) {
                                if let (member, why) = FlowActions.spec(for: a).checkLinks(a, self) {
                                    out.append(("\(inner).\(member)", why))
                                }
                            }
                        }
                    } else {
                        visit(child, at, depth: depth + 1)
                    }
                }
            case .array(let items):
                for (i, item) in items.enumerated() { visit(item, "\(p)[\(i)]", depth: depth + 1) }
            default:
                return
            }
        }
        visit(value, path, depth: 0)
        return out
    }

    /// An expression error's message with its offset.
    static func exprMessage(_ e: SDUIError) -> String {
        (e.offset.map { "at byte \($0): " } ?? "") + e.message
    }
}
