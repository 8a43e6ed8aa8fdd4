// RenderLimitsTests.swift - a screen that names the same thing many times
// draws up to the render bounds, then one `limit` placeholder.
import Foundation
@testable import SDUI
import SDUICore
import Testing

@Suite struct RenderLimitsTests: ResolverFixtures {
    /// A column of ten texts: eleven nodes per use.
    static let ten = """
    {"id":"ten","version":1,"primitive":"Column","primitiveVersion":3,"props":{"children":[
    \((0..<10).map { #"{"primitive":"Text","props":{"text":"line \#($0)"}}"# }.joined(separator: ","))]}}
    """

    func resolver(nodes: Int = 20_000, bytes: Int = 8 << 20) -> ScreenResolver {
        var ctx = RenderContext()
        ctx.renderLimits = RenderLimits(maxNodes: nodes, maxBytes: bytes)
        return ScreenResolver(ctx)
    }

    /// Nodes below the root.
    func count(_ tree: RenderTree) -> Int { tree.root.allNodes.count - 1 }

    /// A token listed 5,000 times (55,000 nodes) stops at the node bound:
    /// one placeholder, one issue naming the screen, nothing after it.
    @Test func aTokenListedManyTimesStopsAtTheNodeBound() {
        let items = ScreenItems(id: "many", items: Array(repeating: .token(id: "ten", bind: nil), count: 5_000))
        let tree = resolver(nodes: 1_000).resolve(items, lookups: found(token("ten", Self.ten)))
        #expect(count(tree) == 1_001)
        let limits = tree.issues.filter { $0.kind == .limit }
        #expect(limits.count == 1)
        #expect(tree.issues.count == 1)
        #expect(limits.first?.token == "ten")
        #expect(limits.first?.path == "props.children[9]")   // 90 whole uses, then the 91st to its 9th text
        #expect(limits.first?.message.contains("1000 render nodes (RenderLimits.maxNodes)") == true)
        #expect(limits.first?.message.contains(#"screen "many""#) == true)
        let placeholders = tree.root.allNodes.filter { $0.kind == .placeholder }
        #expect(placeholders.map(\.reason) == ["limit"])
        #expect(tree.root.allNodes.last?.reason == "limit")   // the last node drawn: the rest is left out
        #expect(tree.root.children.count == 91)
    }

    /// The default bound holds the same screen to 20,000 nodes.
    @Test func theDefaultBoundHolds() {
        let items = ScreenItems(id: "many", items: Array(repeating: .token(id: "ten", bind: nil), count: 5_000))
        let tree = ScreenResolver().resolve(items, lookups: found(token("ten", Self.ten)))
        #expect(count(tree) == RenderLimits().maxNodes + 1)
        #expect(tree.issues.map(\.kind) == [.limit])
    }

    /// A token with a 10 KB text listed 1,000 times stops at the byte bound.
    @Test func largePropsStopAtTheByteBound() {
        let big = token("big", #"{"id":"big","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"\#(String(repeating: "x", count: 10_000))"}}"#)
        let items = ScreenItems(id: "wide", items: Array(repeating: .token(id: "big", bind: nil), count: 1_000))
        let tree = resolver(bytes: 100_000).resolve(items, lookups: found(big))
        #expect(tree.root.children.count == 10)   // nine texts of ~10 KB, then the placeholder
        #expect(tree.root.children.last?.reason == "limit")
        #expect(tree.issues.map(\.kind) == [.limit])
        #expect(tree.issues.first?.message.contains("100000 bytes (RenderLimits.maxBytes)") == true)
    }

    /// A block whose renderer makes more nodes than are left is one
    /// placeholder, named with the ids of the blocks it is in.
    @Test func aBlockTooLargeForWhatIsLeftIsAPlaceholder() throws {
        let items = (0..<3).map { i in
            ScreenItems.Item.block(.object(["type": "column", "id": .string("t\(i)"), "blocks": [
                .object(["type": "benefits_list", "id": "c", "items": .array((0..<300).map { .string("item \($0)") })]),
            ]]))
        }
        let tree = resolver(nodes: 2_000).resolve(ScreenItems(id: "blocks", items: items))
        // Each list is 901 nodes: two fit with their columns, the third column fits, its list does not.
        #expect(count(tree) == 2 * 902 + 2)
        #expect(tree.issues.count == 1)
        let issue = try #require(tree.issues.first)
        #expect(issue.kind == .limit && issue.token == "block[2].blocks[0]" && issue.path == "root")
        #expect(issue.message.contains(#"(in block "t2" › "c")"#), "\(issue.message)")
        #expect(issue.message.contains("benefits_list: its renderer made more nodes than the 195 left of"), "\(issue.message)")
        #expect(tree.root.children.last?.children.map(\.reason) == ["limit"])
    }

    /// Thousands of blocks after the bound are not rendered, one by one or
    /// as placeholders: the tree ends at the one placeholder.
    @Test func blocksAfterTheBoundAreLeftOut() {
        let header: JSONValue = ["type": "header", "title": "Hi"]
        let items = ScreenItems(id: "s", items: Array(repeating: .block(header), count: 50_000))
        let tree = resolver(nodes: 300).resolve(items)
        #expect(count(tree) == 301)
        #expect(tree.issues.map(\.kind) == [.limit])
        #expect(tree.events.isEmpty)
    }

    /// Items that could not be drawn (placeholders of unknown blocks) count
    /// too, so a screen of them is bounded as well.
    @Test func placeholdersCount() {
        let items = ScreenItems(id: "s", items: Array(repeating: .block(["type": "nope"]), count: 10_000))
        let tree = resolver(nodes: 100).resolve(items)
        #expect(count(tree) == 101)
        #expect(tree.issues.filter { $0.kind == .unknownBlock }.count == 100)
        #expect(tree.issues.last?.kind == .limit)
        #expect(tree.events.count == 100)
    }

    /// Layout blocks nested 100 deep stop at the depth bound: 64 columns,
    /// then the placeholder, and the header at the bottom is not built.
    @Test func nestingStopsAtTheDepthBound() throws {
        var inner: JSONValue = ["type": "header", "title": "deep"]
        for i in 0..<100 { inner = ["type": "column", "id": .string("n\(99 - i)"), "blocks": [inner]] }
        let tree = ScreenResolver().resolve(ScreenItems(id: "nest", items: [.block(inner)]))
        #expect(count(tree) == 65)
        #expect(tree.root.allNodes.last?.reason == "limit")
        #expect(!tree.root.allNodes.contains { $0.primitive == "Text" })
        let issue = try #require(tree.issues.first)
        #expect(tree.issues.count == 1)
        #expect(issue.kind == .limit)
        #expect(issue.token == "block[0]" + String(repeating: ".blocks[0]", count: 64))
        #expect(issue.message.contains("64 levels of nesting (RenderLimits.maxDepth)"), "\(issue.message)")
        #expect(issue.message.contains(#""n63" › "n64")"#), "\(issue.message)")
    }

    /// An update that shows a hidden section past the bound draws a
    /// placeholder there; hiding it again gives its nodes back, so
    /// toggling never trips the bound when the section fits.
    @Test func updatesCountTheNodesTheyAddAndGiveBack() throws {
        let section = token("section", """
        {"id":"section","version":1,"primitive":"Column","primitiveVersion":3,"props":{"visible":"@{open}","children":[
          {"primitive":"Text","props":{"text":"a"}}, {"primitive":"Text","props":{"text":"b"}}]}}
        """)
        let data = TestScenarioData(["open": false])
        var ctx = RenderContext()
        ctx.store = data
        ctx.renderLimits = RenderLimits(maxNodes: 6)
        let resolver = ScreenResolver(ctx)
        let items = screen("section", "section")
        var render = resolver.render(items, lookups: found(section))
        #expect(count(render.tree) == 0)
        for round in 0..<10 {
            try data.set("open", .bool(round % 2 == 0))
            resolver.update(&render, changed: ["open"])
            #expect(render.tree == resolver.resolve(items, lookups: found(section)), "round \(round)")
            #expect(render.tree.issues.isEmpty, "round \(round)")
        }
        ctx.renderLimits = RenderLimits(maxNodes: 4)
        let tight = ScreenResolver(ctx)
        try data.set("open", false)
        var small = tight.render(items, lookups: found(section))
        try data.set("open", true)
        tight.update(&small, changed: ["open"])
        #expect(count(small.tree) == 5)
        #expect(small.tree.issues.map(\.kind) == [.limit])
        #expect(small.tree.root.allNodes.last?.reason == "limit")
        try data.set("open", false)
        tight.update(&small, changed: ["open"])
        #expect(count(small.tree) == 0)
        #expect(small.tree.issues.isEmpty)
    }

    /// A node's size is its props' as BindingLimits measures them, plus the
    /// overhead; measuring stops at the budget.
    @Test func nodeSizeAndRawCountAreBounded() {
        let node = RenderNode(primitive: "Text", version: 4, props: ["text": "ab"])
        #expect(RenderLimits.size(of: node, within: 1_000) == RenderLimits.nodeOverhead + 4 + 2 + 4 + 4 + 4)
        let huge = RenderNode(primitive: "Choice", version: 1,
                              props: ["options": .array(Array(repeating: "x", count: 1_000_000))])
        #expect(RenderLimits.size(of: huge, within: 10_000) == nil)
        let raw: JSONValue = ["primitive": "Column", "props": ["children": .array(Array(repeating:
            ["primitive": "Text", "props": ["children": .array(Array(repeating: ["primitive": "Text"], count: 3))]],
            count: 10))]]
        #expect(RenderLimits.nodeCount(of: raw, within: 100) == 41)
        #expect(RenderLimits.nodeCount(of: raw, within: 40) == nil)
    }
}
