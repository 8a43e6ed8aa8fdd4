// ScreenRender.swift - a resolved screen kept with what it was resolved
// from, so a change of scenario data re-resolves only the nodes it touches.
//
// Every node of the tree is kept as a record: the node drawn (or nil when
// it is hidden), its children's records in the order of its plan (hidden
// ones included, so a child that becomes visible has its place), and what
// resolving the node's own props reported (issues, events, bytes filled).
// A plan knows the paths its node binds (`{{…}}` placeholders and `@{…}`
// expressions) and the paths its whole subtree binds.  An update walks the
// records from the top: a subtree that binds none of the changed paths is
// kept as it is, untouched; a node whose own props bind one is resolved
// again; in between, only the children's list is rebuilt.  The tree's
// issues and events are the records' in depth-first order, which is the
// order a whole resolve reports them in.

import SDUICore

/// One resolved node and what resolving its own props produced.
struct NodeRecord: Sendable {
    /// The node drawn, with its children; nil when it is not visible (or
    /// left out after a render bound was reached).
    var node: RenderNode? = nil
    /// Whether the node is a visible primitive whose children were resolved.
    var descends = false
    /// The children's records in plan order (hidden children included);
    /// empty unless `descends`.
    var children: [NodeRecord] = []
    /// What resolving this node's own props reported, in order.
    var issues: [RenderIssue] = []
    var events: [RenderEvent] = []
    /// Bytes this node's own fills produced (counted against the tree's bound).
    var bytes = 0
    /// Bytes this node counts against ``RenderLimits/maxBytes`` (0 when
    /// there is no node).
    var size = 0

    /// Bytes the fills of this node and its descendants produced.
    var subtreeBytes: Int {
        children.reduce(bytes) { $0 + $1.subtreeBytes }
    }

    /// Nodes drawn in this subtree, counted against ``RenderLimits/maxNodes``.
    var subtreeNodes: Int {
        children.reduce(node == nil ? 0 : 1) { $0 + $1.subtreeNodes }
    }

    /// Bytes this subtree counts against ``RenderLimits/maxBytes``.
    var subtreeSize: Int {
        children.reduce(size) { $0 + $1.subtreeSize }
    }

    /// This node's issues and events, then its children's, depth first.
    func collect(issues outIssues: inout [RenderIssue], events outEvents: inout [RenderEvent]) {
        outIssues += issues
        outEvents += events
        for i in children.indices { children[i].collect(issues: &outIssues, events: &outEvents) }
    }
}

/// One screen item: its plan (nil for a skeleton or placeholder drawn
/// without one), the scope its bindings read, and its record.
struct ItemRecord: Sendable {
    var plan: NodePlan?
    var token: String?
    var label: String?
    var scope: BindingScope
    var record: NodeRecord {
        didSet { (issues, events) = Self.flatten(record) }
    }
    /// The record's issues and events, depth first, kept so assembling a
    /// tree does not walk records an update left alone.
    private(set) var issues: [RenderIssue]
    private(set) var events: [RenderEvent]

    init(plan: NodePlan?, token: String?, label: String?, scope: BindingScope, record: NodeRecord) {
        self.plan = plan
        self.token = token
        self.label = label
        self.scope = scope
        self.record = record
        (issues, events) = Self.flatten(record)
    }

    /// A record's issues and events, depth first.
    private static func flatten(_ record: NodeRecord) -> ([RenderIssue], [RenderEvent]) {
        var issues: [RenderIssue] = []
        var events: [RenderEvent] = []
        record.collect(issues: &issues, events: &events)
        return (issues, events)
    }
}

/// A change ``ScreenResolver/update(_:changed:)`` made to a tree.
public struct RenderNodeChange: Sendable, Hashable, CustomStringConvertible {
    /// Where the node is in the updated tree: the child indexes from the
    /// tree's root (empty for the root itself).
    public var path: [Int]
    /// The node now at `path`, with its children.
    public var node: RenderNode

    /// A change of the node at `path` to `node`.
    public init(path: [Int], node: RenderNode) {
        self.path = path
        self.node = node
    }

    /// `root`, or `root.children[2].children[0]`.
    public var description: String {
        (["root"] + path.map { "children[\($0)]" }).joined(separator: ".")
    }
}

/// A resolved screen that can be brought up to date when the scenario data
/// it reads changes (``ScreenResolver/render(_:lookups:)`` makes one,
/// ``ScreenResolver/update(_:changed:)`` updates it).
///
/// ``tree`` is always what a whole resolve of the screen would give with
/// the data as it is now (one difference: when a fill bound of
/// ``BindingLimits`` or a bound of ``RenderLimits`` is hit, which node
/// reaches it first may differ; what an update adds counts against the
/// same bounds, and what it hides gives its share back).
/// ``boundPaths`` lists what to observe:
///
/// ```swift
/// var screen = resolver.render(payload, lookups: lookups)
/// for await change in store.changes(for: Set(screen.boundPaths.map(\.description))) {
///     let changed = resolver.update(&screen, changed: change.keyPaths)
///     ui.redraw(changed)      // only these nodes
/// }
/// ```
public struct ScreenRender: Sendable {
    /// The tree as of the last resolve or update.
    public private(set) var tree: RenderTree
    var items: [ItemRecord]
    /// Issues and events of the screen as a whole (theme, fallback screen).
    var screenIssues: [RenderIssue]
    var theme: ResolvedTheme
    /// Bytes every fill of the tree produced.
    var fillBytes: Int
    /// The tree's nodes and bytes as counted against ``RenderLimits``.
    var nodeCount: Int
    var renderBytes: Int

    init(tree: RenderTree, items: [ItemRecord], screenIssues: [RenderIssue], theme: ResolvedTheme,
         fillBytes: Int, nodeCount: Int, renderBytes: Int) {
        self.tree = tree
        self.items = items
        self.screenIssues = screenIssues
        self.theme = theme
        self.fillBytes = fillBytes
        self.nodeCount = nodeCount
        self.renderBytes = renderBytes
    }

    /// Every path a node of the screen binds, each once, in screen order:
    /// a change touching none of them leaves the tree as it is.
    public var boundPaths: [KeyPath] {
        var seen = Set<KeyPath>()
        var out: [KeyPath] = []
        for item in items {
            for p in item.plan?.subtreeBindings ?? [] where seen.insert(p).inserted { out.append(p) }
        }
        return out
    }

    /// Rebuilds ``tree``'s root children, issues and events from the records.
    mutating func assemble() {
        tree.root.children = items.compactMap(\.record.node)
        var issues = screenIssues
        var events: [RenderEvent] = []
        for i in items.indices {
            issues += items[i].issues
            events += items[i].events
        }
        tree.issues = issues
        tree.events = events
    }

    /// Replaces the item records after an update.
    mutating func replace(items: [ItemRecord], fillBytes: Int, nodeCount: Int, renderBytes: Int) {
        self.items = items
        self.fillBytes = fillBytes
        self.nodeCount = nodeCount
        self.renderBytes = renderBytes
        assemble()
    }
}
