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

    /// Read back with the core's parser, numbers keep their kind: a whole
    /// double past 2^53 stays a double, the same integer stays an integer
    /// (the payload fuzzer found the double turned into `.int` through
    /// `JSONDecoder`).
    @Test func numbersKeepTheirKindThroughTheCoresParser() throws {
        let props: [String: JSONValue] = [
            "wholeDouble": .double(1.5e17), "integer": .int(150_000_000_000_000_000),
            "huge": .double(1e300), "fraction": .double(0.1), "negative": .int(-7),
        ]
        let root = RenderNode(primitive: "Choice", version: 1, props: props)
        let tree = RenderTree(screen: "s", renderedScreen: "s", theme: "sdk_fallback", themeSource: .sdk, mode: .light,
                              root: root, issues: [], events: [])
        let value = try JSONValue(json: try tree.jsonData(), source: "tree.json")
        let back = try JSONValueDecoder().decode(RenderTree.self, from: value)
        #expect(back == tree)
        #expect(back.root.props["wholeDouble"] == .double(1.5e17))
        #expect(back.root.props["integer"] == .int(150_000_000_000_000_000))
    }

    /// A whole decimal is written as digits and reads back as the integer
    /// of the same value; that tree writes the same JSON (the payload
    /// fuzzer's invariant; it found `13E14`).
    @Test func aWholeDecimalReadsBackAsAnIntegerThatWritesTheSameJSON() throws {
        let root = RenderNode(primitive: "Choice", version: 1, props: ["a": .double(13e14), "b": .double(3.0)])
        let tree = RenderTree(screen: "s", renderedScreen: "s", theme: "sdk_fallback", themeSource: .sdk, mode: .light,
                              root: root, issues: [], events: [])
        let json = try tree.jsonData()
        let back = try JSONValueDecoder().decode(RenderTree.self, from: try JSONValue(json: json, source: "tree.json"))
        #expect(back.root.props["a"] == .int(1_300_000_000_000_000))
        #expect(back.root.props["b"] == .int(3))
        #expect(try back.jsonData() == json)
    }

    /// Keys sorted, slashes as they are; pretty output is the same JSON.
    @Test func jsonHasSortedKeysAndPlainSlashes() throws {
        let root = RenderNode(primitive: "AsyncImage", version: 2, props: ["url": "https://cdn.sdui.example.com/a.png"])
        let tree = RenderTree(screen: "s", renderedScreen: "s", theme: "sdk_fallback", themeSource: .sdk, mode: .light,
                              root: root, issues: [], events: [])
        let text = String(decoding: try tree.jsonData(), as: UTF8.self)
        #expect(text == #"{"events":[],"issues":[],"mode":"light","renderedScreen":"s","root":{"#
                + #""accessibility":{"role":"image","traits":["image"]},"kind":"primitive","#
                + #""primitive":"AsyncImage","props":{"url":"https://cdn.sdui.example.com/a.png"},"version":2},"#
                + #""screen":"s","theme":"sdk_fallback","themeSource":"sdk"}"#)
        let pretty = try tree.jsonData(pretty: true)
        #expect(pretty.contains(UInt8(ascii: "\n")))
        #expect(try JSONDecoder().decode(RenderTree.self, from: pretty) == tree)
    }
}
