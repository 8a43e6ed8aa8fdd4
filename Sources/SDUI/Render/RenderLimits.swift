// RenderLimits.swift - how large a render tree may grow.
import SDUICore

/// How large one render tree may grow, whatever the screen's format.
///
/// A screen may name the same thing many times: a token screen may list one
/// large token a thousand times, a normalized payload may list one
/// component in every template and one body in every component, so a few
/// megabytes of payload can ask for gigabytes of tree.  The resolver
/// therefore counts what it builds, node by node, as it builds it: every
/// node drawn (primitives, placeholders and skeletons; hidden nodes are not
/// built, so they do not count) and its size as JSON text would hold it,
/// roughly, in compact form (``BindingLimits``' measure of its props,
/// plus ``nodeOverhead`` for its kind, primitive and version), and checks
/// how deep it sits.
///
/// The first node that would pass a bound is drawn as a placeholder with a
/// `limit` issue naming the screen and the item, and the rest of the
/// screen is not resolved at all: its later siblings, and every later
/// item, are left out of the tree (the issue says so).  A block whose
/// renderer returns more nodes than there is room for is that placeholder
/// before its nodes are planned.  So a tree holds at most ``maxNodes``
/// nodes plus that one placeholder, and the work of a resolve is bounded
/// by the bounds, not by how many times the payload repeats itself.
///
/// The defaults hold a long screen (a list of a few thousand rows) with
/// room to spare; a host that draws more raises them in
/// ``RenderContext/renderLimits``.
public struct RenderLimits: Sendable, Equatable {
    /// Nodes one render tree may hold.
    public var maxNodes: Int
    /// Bytes one render tree may hold, counted as described above.
    public var maxBytes: Int
    /// How deep a node may sit below the tree's root (a screen's items
    /// are at depth 1): layout blocks inside layout blocks, or a token's
    /// nested children.  It bounds the resolver's recursion, and what the
    /// tree's indented JSON and the preview's nesting cost per node.
    public var maxDepth: Int

    /// 20,000 nodes, 8 MiB and 64 levels per tree.
    public init(maxNodes: Int = 20_000, maxBytes: Int = 8 << 20, maxDepth: Int = 64) {
        self.maxNodes = maxNodes
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    /// What a node costs besides its props: its kind, primitive, version,
    /// token and reason, and its place in its parent's children.
    static let nodeOverhead = 64

    /// The bytes `node` (without its children) counts, or nil when that is
    /// over `budget`; the walk stops once the budget is spent.
    static func size(of node: RenderNode, within budget: Int) -> Int? {
        let own = nodeOverhead + node.primitive.utf8.count + (node.token?.utf8.count ?? 0)
        guard own <= budget else { return nil }
        var props = 2
        for (key, value) in node.props {
            guard let n = BindingLimits.size(of: value, within: budget - own - props - key.utf8.count - 4) else {
                return nil
            }
            props += key.utf8.count + 4 + n
        }
        return own + props <= budget ? own + props : nil
    }

    /// How many nodes `raw`, a node in token form as a block renderer
    /// returns it (`{"primitive", "props": {"children": […]}}`), holds,
    /// hidden ones included, or nil when that is over `budget`; the walk
    /// stops once the budget is spent, so it costs at most `budget` steps.
    static func nodeCount(of raw: JSONValue, within budget: Int) -> Int? {
        guard budget >= 1 else { return nil }
        var count = 1
        var stack = [raw]
        while let node = stack.popLast() {
            guard case .array(let children)? = node["props"]?["children"] else { continue }
            count += children.count
            guard count <= budget else { return nil }
            stack += children
        }
        return count
    }
}
