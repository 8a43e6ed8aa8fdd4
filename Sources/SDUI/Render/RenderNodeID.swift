// RenderNodeID.swift - stable names for the nodes of a render tree, so a
// script, a test or a playground can point at one.
import SDUICore

/// A node of a render tree with its stable id and its place.
///
/// The id is the id of the token the node belongs to and the child indexes
/// from that token's own root: `checkout_pay_button` for a token's root,
/// `checkout_pay_button/0/1` below it.  Nodes a block made (no token) are
/// named from the screen's root, `$/3/0`.  A token shown twice gets `#2`,
/// `#3`… after its id from the second time on (`promo#2/0`).  So an id does
/// not change when other tokens or blocks are added above it, or when a
/// bound value changes; it changes only with the token's own layout.
public struct RenderNodeID: Sendable, Hashable {
    /// The node's stable id.
    public var id: String
    /// The node's place: child indexes from the tree's root.
    public var path: [Int]
    /// The node.
    public var node: RenderNode

    /// Every node of `tree` below its root, depth first, each with its id.
    public static func all(in tree: RenderTree) -> [RenderNodeID] {
        var out: [RenderNodeID] = []
        var seen: [String: Int] = [:]
        // `base`: the id of the token root (or `$`) the walk is under;
        // `relative`: the indexes from that root.
        func visit(_ node: RenderNode, path: [Int], parentToken: String?, base: String, relative: [Int]) {
            var base = base, relative = relative
            if let token = node.token, token != parentToken {
                let n = (seen[token] ?? 0) + 1
                seen[token] = n
                base = n == 1 ? token : "\(token)#\(n)"
                relative = []
            }
            out.append(RenderNodeID(id: ([base] + relative.map(String.init)).joined(separator: "/"), path: path, node: node))
            for (i, child) in node.children.enumerated() {
                visit(child, path: path + [i], parentToken: node.token, base: base, relative: relative + [i])
            }
        }
        for (i, child) in tree.root.children.enumerated() {
            visit(child, path: [i], parentToken: nil, base: "$", relative: [i])
        }
        return out
    }

    /// The node `id` names in `tree`, found without naming every node: the
    /// screen's items are walked to the token the id starts with, then the
    /// path inside it is followed.  Gives what ``all(in:)`` would for the
    /// id; nil when there is no such node.
    public static func find(_ id: String, in tree: RenderTree) -> RenderNodeID? {
        let parts = id.split(separator: "/", omittingEmptySubsequences: false)
        guard let base = parts.first, !base.isEmpty else { return nil }
        var relative: [Int] = []
        for p in parts.dropFirst() {
            guard let i = Int(p), i >= 0, String(i) == p else { return nil }
            relative.append(i)
        }
        if base == "$" {
            // Only nodes no token made are named from the root.
            return descend(tree.root, from: [], along: relative, id: id, untokened: true)
        }
        // `token` or `token#n`: the n-th item (from 1) showing that token.
        var token = Substring(base), occurrence = 1
        if let hash = base.lastIndex(of: "#"), let n = Int(base[base.index(after: hash)...]), n >= 2 {
            token = base[..<hash]
            occurrence = n
        }
        var seen = 0
        for (i, child) in tree.root.children.enumerated() where child.token.map({ $0 == token }) == true {
            seen += 1
            if seen == occurrence { return descend(child, from: [i], along: relative, id: id) }
        }
        // A token root below another node (not a screen item): the full walk.
        return all(in: tree).first { $0.id == id }
    }

    /// The id of the node at `path`, an ancestor of the node `id` names at
    /// `idPath`: `id` with the last components dropped when the ancestor
    /// is inside the same token (or the same block); else found by the walk.
    public static func ancestorID(of id: String, at idPath: [Int], path: [Int], in tree: RenderTree) -> String? {
        let drop = idPath.count - path.count
        var parts = id.split(separator: "/", omittingEmptySubsequences: false)
        if drop == 0 { return id }
        if drop > 0, parts.count - 1 >= drop, !(parts[0] == "$" && parts.count - 1 == drop) {
            parts.removeLast(drop)
            return parts.joined(separator: "/")
        }
        return all(in: tree).first { $0.path == path }?.id
    }

    /// The node `relative` leads to from `node` (at `path`), named `id`;
    /// nil when an index is out of range, or (`untokened`) a node on the
    /// way belongs to a token.
    private static func descend(_ node: RenderNode, from path: [Int], along relative: [Int], id: String,
                                untokened: Bool = false) -> RenderNodeID? {
        var n = node, at = path
        for i in relative {
            guard i < n.children.count, !untokened || n.children[i].token == nil else { return nil }
            n = n.children[i]
            at.append(i)
        }
        return at.isEmpty ? nil : RenderNodeID(id: id, path: at, node: n)
    }
}
