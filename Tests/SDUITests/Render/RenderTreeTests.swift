// RenderTreeTests.swift - resolved trees as JSON: the shape of schemas/render-tree.json, and back.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct RenderTreeTests: ResolverFixtures {
    @Test func treeJSONRoundTrips() throws {
        let pack = try CorePack(contentsOf: Self.examples.appendingPathComponent("core-pack.json.gz"))
        let payload = try ScreenPayload(json: Data(contentsOf: Self.examples.appendingPathComponent("screens/checkout.json")))
        var lookups: [String: TokenLookup] = [:]
        for item in payload.tokens { lookups[item.id] = try pack.token(item.id).map { .found($0, .pack) } }
        lookups["checkout_upsell"] = .offline
        let tree = ScreenResolver().resolve(payload, lookups: lookups)
        let decoded = try JSONDecoder().decode(RenderTree.self, from: try tree.jsonData())
        #expect(decoded == tree)
        #expect(decoded.root.allNodes.contains { $0.kind == .skeleton })
    }

    /// Keys sorted, slashes as they are; pretty output is the same JSON.
    @Test func jsonHasSortedKeysAndPlainSlashes() throws {
        let root = RenderNode(primitive: "AsyncImage", version: 2, props: ["url": "https://cdn.sdui.example.com/a.png"])
        let tree = RenderTree(screen: "s", renderedScreen: "s", theme: "sdk_fallback", themeSource: .sdk, mode: .light,
                              root: root, issues: [], events: [])
        let text = String(decoding: try tree.jsonData(), as: UTF8.self)
        #expect(text == #"{"events":[],"issues":[],"mode":"light","renderedScreen":"s","root":{"kind":"primitive","#
                + #""primitive":"AsyncImage","props":{"url":"https://cdn.sdui.example.com/a.png"},"version":2},"#
                + #""screen":"s","theme":"sdk_fallback","themeSource":"sdk"}"#)
        let pretty = try tree.jsonData(pretty: true)
        #expect(pretty.contains(UInt8(ascii: "\n")))
        #expect(try JSONDecoder().decode(RenderTree.self, from: pretty) == tree)
    }
}
