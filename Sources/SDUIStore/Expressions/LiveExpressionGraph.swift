// LiveExpressionGraph.swift - the order live expressions run in, and the
// refusal of a cycle between them.
//
// Expression A feeds expression B when A's output path intersects one of
// B's dependencies (a parent, child or wildcard match counts, as for
// observers).  The graph must stay acyclic: A feeding B feeding A would
// recompute forever, and A feeding itself (`count = count + 1`) likewise.
// Registration adds the new expression to a copy of the graph and searches
// for a cycle depth first; if one exists the registration is refused and
// the cycle named (`a → b → a`).  Otherwise the expressions are kept in a
// topological order (Kahn's algorithm, ties by registration order), so a
// mutation recomputes each affected expression at most once, after every
// expression that feeds it.
import SDUICore

/// Registered live expressions in the order they run.
struct LiveExpressionGraph {
    /// One registered expression, its paths parsed.
    struct Node {
        var expr: LiveExpression
        var output: KeyPath
        var deps: [KeyPath]
        var seq: Int
    }

    private(set) var nodes: [String: Node] = [:]
    /// Ids in topological order.
    private(set) var order: [String] = []
    private var seq = 0

    /// Adds or replaces `expr`.
    ///
    /// - Throws: ``SDUIError`` `.argument` for a malformed path, or for a
    ///   cycle, naming it.
    mutating func add(_ expr: LiveExpression) throws {
        let output = try KeyPath(expr.outputKeyPath)
        let deps = try expr.dependsOn.sorted().map { try KeyPath($0) }
        var next = nodes
        seq += 1
        next[expr.id] = Node(expr: expr, output: output, deps: deps, seq: nodes[expr.id]?.seq ?? seq)
        if let cycle = Self.findCycle(next) {
            throw SDUIError(.argument, "live expression '\(expr.id)' would close a cycle: "
                            + cycle.joined(separator: " → "), input: "live expression '\(expr.id)'")
        }
        nodes = next
        order = Self.topologicalOrder(nodes)
    }

    /// Removes the expression `id` (a no-op when absent).
    mutating func remove(_ id: String) {
        guard nodes.removeValue(forKey: id) != nil else { return }
        order = Self.topologicalOrder(nodes)
    }

    /// Whether `a`'s output feeds `b`.
    static func feeds(_ a: Node, _ b: Node) -> Bool {
        b.deps.contains { $0.intersects(a.output) }
    }

    /// A cycle as a list of ids (first repeated at the end), or nil.
    private static func findCycle(_ nodes: [String: Node]) -> [String]? {
        let ids = nodes.keys.sorted()
        var state: [String: Int] = [:]   // 1 on the stack, 2 done
        var stack: [String] = []
        func visit(_ id: String) -> [String]? {
            state[id] = 1
            stack.append(id)
            for next in ids where feeds(nodes[id]!, nodes[next]!) {
                if state[next] == 1 {
                    let start = stack.firstIndex(of: next)!
                    return Array(stack[start...]) + [next]
                }
                if state[next] == nil, let c = visit(next) { return c }
            }
            stack.removeLast()
            state[id] = 2
            return nil
        }
        for id in ids where state[id] == nil {
            if let c = visit(id) { return c }
        }
        return nil
    }

    /// The ids in an order where each comes after every expression feeding it.
    private static func topologicalOrder(_ nodes: [String: Node]) -> [String] {
        let ids = nodes.values.sorted { $0.seq < $1.seq }.map { $0.expr.id }
        var indegree: [String: Int] = Dictionary(uniqueKeysWithValues: ids.map { ($0, 0) })
        for a in ids { for b in ids where feeds(nodes[a]!, nodes[b]!) { indegree[b]! += 1 } }
        var ready = ids.filter { indegree[$0] == 0 }
        var out: [String] = []
        while !ready.isEmpty {
            let id = ready.removeFirst()
            out.append(id)
            for b in ids where feeds(nodes[id]!, nodes[b]!) {
                indegree[b]! -= 1
                if indegree[b] == 0 { ready.append(b) }
            }
        }
        assert(out.count == ids.count, "the graph was checked to be acyclic")
        return out
    }
}
