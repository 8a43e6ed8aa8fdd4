// ScreenItemsTests.swift - one resolver entry point: token and block items in one list, formats as adapters.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct ScreenItemsTests {
    static let greeting = #"{"id":"greeting","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"Hi {{name}}"}}"#

    @Test func tokensAndBlocksResolveInOneList() throws {
        let token = try DesignToken(json: Self.greeting)
        let screen = ScreenItems(id: "mixed", items: [
            .block(.object(["type": "header", "title": "Welcome"])),
            .token(id: "greeting", bind: ["name": "Ada"]),
            .block(.object(["type": "carousel"])),             // no renderer: a placeholder
            .token(id: "greeting", bind: ["name": "Grace"]),
            .token(id: "absent", bind: nil),                   // not looked up: a placeholder
        ])
        #expect(screen.tokenIDs == ["greeting", "absent"])
        let tree = ScreenResolver().resolve(screen, lookups: ["greeting": .found(token, .memory)])
        let kids = tree.root.children
        #expect(kids.map(\.kind) == [.primitive, .primitive, .placeholder, .primitive, .placeholder])
        #expect(kids[1].props["text"] == "Hi Ada" && kids[3].props["text"] == "Hi Grace")
        #expect(kids[1].token == "greeting" && kids[4].token == "absent")
        // Blocks are counted among blocks: the carousel is the second block.
        #expect(tree.issues.contains { $0.kind == .unknownBlock && $0.token == "block[1]" })
        #expect(tree.screen == "mixed" && tree.renderedScreen == "mixed")
    }

    @Test func eachFormatIsAnAdapter() throws {
        let payload = ScreenPayload(id: "p", tokens: [.init(id: "a", bind: ["x": 1]), .init(id: "b"), .init(id: "a")],
                                    themeId: "theme_x")
        #expect(payload.screenItems == ScreenItems(id: "p", themeId: "theme_x", items: [
            .token(id: "a", bind: ["x": 1]), .token(id: "b", bind: nil), .token(id: "a", bind: nil)]))
        let blocks = BlockScreen(id: "b", themeId: "t", blocks: [.object(["type": "footer", "text": "End"])])
        #expect(blocks.screenItems == ScreenItems(id: "b", themeId: "t", items: [.block(.object(["type": "footer", "text": "End"]))]))
        // The block screen resolves the same through its adapter as through the items.
        let resolver = ScreenResolver()
        #expect(resolver.resolve(blocks).root == resolver.resolve(blocks.screenItems).root)
    }
}
