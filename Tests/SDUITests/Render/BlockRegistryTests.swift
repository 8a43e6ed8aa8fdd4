// BlockRegistryTests.swift - the registry of block renderers: the built-in set, an app's own block, the client's primitives.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct BlockRegistryTests: BlockScreenFixtures {
    /// Seed 001's v1 set, and the toggle input added for screens' inputs.
    @Test func builtInTypesAreSeed001sV1Set() {
        #expect(BlockRegistry.builtIn.types == ["benefits_list", "choice", "cta", "footer", "header", "media",
                                                "slider", "spacer", "testimonial", "text_input", "toggle"])
    }

    @Test func anAppRegistersItsOwnBlock() {
        var ctx = RenderContext()
        ctx.blocks.register("rating") { f in
            guard let stars = f["stars"]?.intValue, (1...5).contains(stars) else { throw SDUIError(.schema, "stars must be 1…5") }
            return .object(["primitive": "Text", "primitiveVersion": 4,
                            "props": .object(["text": .string(String(repeating: "★", count: Int(stars))),
                                              "color": "@color.primary"])])
        }
        let tree = ScreenResolver(ctx).resolve(BlockScreen(id: "r", blocks: [
            .object(["type": "rating", "stars": 3]), .object(["type": "rating", "stars": 9])]))
        #expect(tree.root.children[0].props == ["text": "★★★", "color": "#1D4ED8"])
        #expect(tree.root.children[1].kind == .placeholder)
        #expect(tree.issues.first?.message == "rating: stars must be 1…5")
    }

    @Test func blocksFollowTheClientsPrimitiveVersions() throws {
        // A client without Choice gets a placeholder for the choice block, not a crash.
        var ctx = RenderContext()
        ctx.primitives = try PrimitiveMap([("Column", 3), ("Row", 2), ("Text", 4), ("Button", 1)])
        let tree = ScreenResolver(ctx).resolve(try load("screen_goal.json"))
        #expect(tree.root.children.map(\.kind) == [.primitive, .placeholder, .primitive])
        #expect(tree.events.map(\.name) == ["unknown_primitive"])
    }

}
