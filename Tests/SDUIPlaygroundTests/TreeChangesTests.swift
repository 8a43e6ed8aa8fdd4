// TreeChangesTests.swift - the nodes that differ between two trees: none for
// equal trees, the outermost changed node otherwise, the frame for another
// screen or look.
#if Server
import SDUI
import SDUICore
@testable import SDUIPlayground
import Testing

@Suite struct TreeChangesTests {
    static func text(_ s: String) -> RenderNode { RenderNode(primitive: "Text", version: 1, props: ["text": .string(s)]) }

    static func tree(_ children: [RenderNode], screen: String = "s", mode: ThemeMode = .light) -> RenderTree {
        RenderTree(screen: screen, renderedScreen: screen, theme: "t", themeSource: .sdk, mode: mode,
                   root: RenderNode(primitive: "Column", version: 1, children: children), issues: [], events: [])
    }

    @Test func equalTreesHaveNoChanges() {
        let a = Self.tree([Self.text("a"), RenderNode(primitive: "Row", version: 1, children: [Self.text("b")])])
        #expect(TreeChanges.between(a, a).isEmpty)
    }

    @Test func aChangedLeafIsItsOwnPath() {
        let a = Self.tree([Self.text("a"), RenderNode(primitive: "Row", version: 1, children: [Self.text("b"), Self.text("c")])])
        let b = Self.tree([Self.text("a"), RenderNode(primitive: "Row", version: 1, children: [Self.text("b"), Self.text("C")])])
        #expect(TreeChanges.between(a, b) == [[1, 1]])
        let c = Self.tree([Self.text("A"), RenderNode(primitive: "Row", version: 1, children: [Self.text("B"), Self.text("c")])])
        #expect(TreeChanges.between(a, c) == [[0], [1, 0]])
    }

    @Test func aNodeWhoseChildrenCameOrWentIsReplacedWhole() {
        let a = Self.tree([RenderNode(primitive: "Row", version: 1, children: [Self.text("b")])])
        let b = Self.tree([RenderNode(primitive: "Row", version: 1, children: [Self.text("b"), Self.text("c")])])
        #expect(TreeChanges.between(a, b) == [[0]])
        #expect(TreeChanges.between(a, Self.tree([Self.text("b")])) == [[0]])
    }

    @Test func anotherScreenOrModeIsTheFrame() {
        let a = Self.tree([Self.text("a")])
        #expect(TreeChanges.between(a, Self.tree([Self.text("a")], screen: "other")) == [[]])
        #expect(TreeChanges.between(a, Self.tree([Self.text("a")], mode: .dark)) == [[]])
        #expect(TreeChanges.between(Self.tree([]), Self.tree([Self.text("a")])) == [[]])
    }
}
#endif
