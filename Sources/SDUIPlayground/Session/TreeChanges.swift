// TreeChanges.swift - the nodes that differ between two render trees, for
// the steps whose new tree is resolved whole (a flow's step, a file saved,
// a panel changed): the page is sent those nodes, not the screen.
#if Server
import SDUI

/// Where two trees differ, outermost first.
///
/// Two nodes are the same when their kind, primitive, version, token,
/// reason and props are equal and they have as many children; then only
/// their children are compared, pairwise.  Otherwise the node is replaced
/// whole.  The walk visits each node of the smaller tree at most once, so
/// its work is bounded by the trees' size (RenderLimits bounds that).
package enum TreeChanges {
    /// The paths whose nodes differ (``RenderNodeChange`` paths), in tree
    /// order; `[[]]` when the frame itself changed (another screen, theme or
    /// mode, or the root's own props).
    package static func between(_ old: RenderTree, _ new: RenderTree) -> [[Int]] {
        guard old.screen == new.screen, old.renderedScreen == new.renderedScreen, old.theme == new.theme,
              old.mode == new.mode else { return [[]] }
        var out: [[Int]] = []
        var path: [Int] = []
        compare(old.root, new.root, &path, &out)
        return out
    }

    /// Appends to `out` the outermost paths under `path` where `a` and `b` differ.
    private static func compare(_ a: RenderNode, _ b: RenderNode, _ path: inout [Int], _ out: inout [[Int]]) {
        guard a.kind == b.kind, a.primitive == b.primitive, a.version == b.version, a.token == b.token,
              a.reason == b.reason, a.props == b.props, a.children.count == b.children.count else {
            out.append(path)
            return
        }
        for i in a.children.indices {
            path.append(i)
            compare(a.children[i], b.children[i], &path, &out)
            path.removeLast()
        }
    }
}
#endif
