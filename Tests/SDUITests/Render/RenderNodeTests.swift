// RenderNodeTests.swift - render nodes: placeholders, skeletons, depth-first walks and their JSON.
import Foundation
import SDUI
import Testing

@Suite struct RenderNodeTests {
    @Test func placeholdersAndSkeletonsCarryTheirReason() {
        let p = RenderNode.placeholder(.unknownPrimitive, primitive: "Carousel", version: 2, token: "t")
        #expect(p == RenderNode(kind: .placeholder, primitive: "Carousel", version: 2, token: "t", reason: "unknown_primitive"))
        let s = RenderNode.skeleton(token: "away")
        #expect(s.kind == .skeleton && s.primitive == "" && s.version == 0 && s.token == "away" && s.reason == "offline")
        #expect(s.props.isEmpty && s.children.isEmpty)
    }

    @Test func allNodesIsDepthFirst() {
        let leaf = { (name: String) in RenderNode(primitive: name, version: 1) }
        let tree = RenderNode(primitive: "A", version: 1, children: [
            RenderNode(primitive: "B", version: 1, children: [leaf("D"), leaf("E")]), leaf("C")])
        #expect(tree.allNodes.map(\.primitive) == ["A", "B", "D", "E", "C"])
        #expect(leaf("X").allNodes.map(\.primitive) == ["X"])
    }

    /// Empty props and children, and absent token and reason, are left out
    /// of the JSON, and read back as empty; a primitive carries its derived
    /// accessibility, a placeholder none.
    @Test func jsonLeavesOutWhatIsEmpty() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let bare = RenderNode(primitive: "Spacer", version: 1)
        let text = String(decoding: try encoder.encode(bare), as: UTF8.self)
        #expect(text == #"{"accessibility":{"hidden":true,"role":"none"},"kind":"primitive","primitive":"Spacer","version":1}"#)
        #expect(try JSONDecoder().decode(RenderNode.self, from: Data(text.utf8)) == bare)
        let full = RenderNode(kind: .placeholder, primitive: "Text", version: 4, props: ["text": "x"],
                              children: [bare], token: "t", reason: "prop_rule")
        #expect(try JSONDecoder().decode(RenderNode.self, from: try encoder.encode(full)) == full)
        #expect(!String(decoding: try encoder.encode(RenderNode.placeholder(.offline, token: "t")), as: UTF8.self)
            .contains("accessibility"))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RenderNode.self, from: Data(#"{"kind":"primitive","version":1}"#.utf8))
        }
    }
}
