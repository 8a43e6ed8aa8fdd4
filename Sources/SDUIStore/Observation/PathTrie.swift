// PathTrie.swift - which observers a change reaches, at a cost that does not
// grow with the observers it does not reach.
//
// Observers register key paths; a change arrives as the paths of its
// patches.  An observer and a patch "intersect" when one path is a prefix
// of the other, a wildcard on either side matching any index: a write to
// `cart` reaches observers of `cart.total` (its value changed with its
// parent), a write to `cart.total` reaches observers of `cart` (part of
// their value changed), `items[*].price` is reached by a write to
// `items[2].price` and to `items[2]`, and a write to `items[*].done`
// reaches `items[4].done`.
//
// The trie stores each observed path along its components.  To find who a
// patch reaches, walk the trie along the patch's components: every
// observer met on the way sits on a prefix of the patch (an ancestor or
// the path itself), and when the patch's components run out, everything
// below the node is a descendant.  At each step the walk follows the exact
// edge, plus the wildcard edge when the step is an index, plus every index
// edge when the step is itself a wildcard.  Nodes of unrelated paths are
// never visited, so a set costs the same with 0 or 10,000 observers
// elsewhere.  Counts per node let removal prune empty branches.
import SDUICore

/// Observer ids arranged by the key paths they watch.
struct PathTrie {
    /// One node: the observers whose path ends here, and the next steps.
    private final class Node {
        var here: Set<Int> = []
        var children: [KeyPath.Component: Node] = [:]
        var isEmpty: Bool { here.isEmpty && children.isEmpty }
    }

    private var root = Node()

    /// How many (observer, path) registrations the trie holds.
    private(set) var count = 0

    /// Registers `id` at `path`.
    mutating func insert(_ id: Int, at path: KeyPath) {
        var node = root
        for c in path.components {
            if let next = node.children[c] {
                node = next
            } else {
                let next = Node()
                node.children[c] = next
                node = next
            }
        }
        if node.here.insert(id).inserted { count += 1 }
    }

    /// Removes `id` from `path`, pruning branches left empty.
    mutating func remove(_ id: Int, at path: KeyPath) {
        if Self.remove(id, path.components[...], from: root) { count -= 1 }
    }

    /// Removes along `rest` below `node`; true when `id` was there.
    private static func remove(_ id: Int, _ rest: ArraySlice<KeyPath.Component>, from node: Node) -> Bool {
        guard let c = rest.first else { return node.here.remove(id) != nil }
        guard let child = node.children[c] else { return false }
        let removed = remove(id, rest.dropFirst(), from: child)
        if child.isEmpty { node.children[c] = nil }
        return removed
    }

    /// Adds to `into` every observer whose path intersects `path`.
    func collect(intersecting path: KeyPath, into found: inout [Int]) {
        Self.walk(root, path.components[...], into: &found)
    }

    /// The walk of the essay above.
    private static func walk(_ node: Node, _ rest: ArraySlice<KeyPath.Component>, into found: inout [Int]) {
        found.append(contentsOf: node.here)
        guard let c = rest.first else {
            for child in node.children.values { gatherAll(child, into: &found) }
            return
        }
        let tail = rest.dropFirst()
        switch c {
        case .key:
            if let next = node.children[c] { walk(next, tail, into: &found) }
        case .index:
            if let next = node.children[c] { walk(next, tail, into: &found) }
            if let any = node.children[.wildcard] { walk(any, tail, into: &found) }
        case .wildcard:
            for (edge, next) in node.children {
                if case .key = edge { continue }
                walk(next, tail, into: &found)
            }
        }
    }

    /// Adds every observer at or below `node`.
    private static func gatherAll(_ node: Node, into found: inout [Int]) {
        found.append(contentsOf: node.here)
        for child in node.children.values { gatherAll(child, into: &found) }
    }
}
