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
}
