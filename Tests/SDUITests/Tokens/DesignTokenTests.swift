// DesignTokenTests.swift - parsing, schema rules and the props tree.
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct DesignTokenTests {
    @Test func parsesTheSeedExample() throws {
        let json = """
            {"id":"promo_banner","version":3,"primitive":"Column","primitiveVersion":3,
             "props":{"background":"#3F51B5","padding":16,"alignment":"CENTER","ratio":1.5,
                      "visible":true,"badge":null,
                      "children":[{"primitive":"Text","primitiveVersion":4,"props":{"text":"{{title}}"}},
                                  {"primitive":"AsyncImage","props":{"url":"https://cdn.sdui.example.com/a.png"}}]}}
            """
        let t = try DesignToken(json: json)
        #expect(t.id == "promo_banner" && t.version == 3)
        #expect(t.primitive == "Column" && t.primitiveVersion == 3)
        #expect(t.prop("background") == .string("#3F51B5"))
        #expect(t.prop("padding") == .int(16))
        #expect(t.prop("ratio") == .double(1.5))
        #expect(t.prop("visible") == .bool(true))
        #expect(t.prop("badge") == .null)
        #expect(t.prop("nope") == nil)
        let children = try #require(t.props["children"]?.arrayValue)
        #expect(children.count == 2)
        #expect(children[0]["props"]?["text"] == .string("{{title}}"))
        #expect(t.root["id"] == .string("promo_banner"))
        #expect(t.json == Data(json.utf8))
    }

    @Test func unknownPrimitivesAreAcceptedHere() throws {
        let t = try DesignToken(json: Fixtures.token("x", primitive: "HologramView", primitiveVersion: 9))
        #expect(t.primitive == "HologramView")
    }

    @Test(arguments: [
        (#"{"version":1,"primitive":"Text","primitiveVersion":1,"props":{}}"#, "\"id\""),
        (#"{"id":"a","primitive":"Text","primitiveVersion":1,"props":{}}"#, "missing \"version\""),
        (#"{"id":"a","version":0,"primitive":"Text","primitiveVersion":1,"props":{}}"#, "\"version\" must be"),
        (#"{"id":"a","version":1.5,"primitive":"Text","primitiveVersion":1,"props":{}}"#, "\"version\" must be"),
        (#"{"id":"a","version":1,"primitive":"","primitiveVersion":1,"props":{}}"#, "\"primitive\""),
        (#"{"id":"a","version":1,"primitive":"Text","props":{}}"#, "missing \"primitiveVersion\""),
        (#"{"id":"a","version":1,"primitive":"Text","primitiveVersion":1}"#, "\"props\" must be an object"),
        (#"{"id":"a","version":1,"primitive":"Text","primitiveVersion":1,"props":[]}"#, "\"props\" must be an object"),
        (#"{"id":"a","version":1,"primitive":"Text","primitiveVersion":1,"props":{"children":{}}}"#, "props.children: must be an array"),
        (#"{"id":"a","version":1,"primitive":"Column","primitiveVersion":1,"props":{"children":[{"props":{}}]}}"#, "props.children[0]: \"primitive\""),
        (#"{"id":"a","version":1,"primitive":"Column","primitiveVersion":1,"props":{"children":[{"primitive":"Text","primitiveVersion":0,"props":{}}]}}"#, "props.children[0]: \"primitiveVersion\""),
        (#"{"id":"a","version":1,"primitive":"Column","primitiveVersion":1,"props":{"children":[{"primitive":"Row","props":{"children":[{"primitive":"Column","props":{"children":[{"primitive":"Text"}]}}]}}]}}"#,
         "props.children[0].props.children[0].props.children[0]: \"props\""),
        (#"[1]"#, "a token must be a JSON object"),
    ])
    func schemaRules(json: String, fragment: String) {
        let e = expectError(.schema) { _ = try DesignToken(json: json, source: "t.json") }
        #expect(e?.message.contains(fragment) == true, "\(e.map(String.init(describing:)) ?? "-")")
        #expect(e?.input == "t.json")
    }

    @Test func duplicateKeysAreRejected() {
        // Valid JSON refused on purpose: a schema error, not a JSON one.
        expectError(.schema) { _ = try DesignToken(json: #"{"id":"a","id":"b","version":1,"primitive":"T","primitiveVersion":1,"props":{}}"#) }
    }

    @Test func jsonErrorsCarryTheirPosition() {
        let json = "{\"id\": \"a\",\n  \"version\": 1,\n  \"props\": {\"héllo\": tru}\n}"
        let e = expectError(.json) { _ = try DesignToken(json: json) }
        #expect(e?.line == 3)
        #expect(e?.column == 22)  // counts "é" as one column
        #expect(e?.offset == Array(json.utf8).firstIndex(of: UInt8(ascii: "t"))! )
    }

    @Test func invalidUTF8IsAJSONError() {
        var bytes = Array(Fixtures.token("a").utf8)
        let i = bytes.firstIndex(of: UInt8(ascii: "h"))!
        bytes[i] = 0xC0  // overlong lead byte
        let e = expectError(.json) { _ = try DesignToken(json: Data(bytes)) }
        #expect(e?.offset == i)
    }

    @Test func unicodeSurvivesTheRoundTrip() throws {
        let t = try DesignToken(json: Fixtures.token("u", props: #"{"text":"Café Zürich 登録 🎉 \u00e9\ud83c\udf89"}"#))
        #expect(t.prop("text") == .string("Café Zürich 登録 🎉 é🎉"))
    }

    @Test func tokensAreEqualByContent() throws {
        let a = try DesignToken(json: Fixtures.token("same"))
        let b = try DesignToken(json: Fixtures.token("same"))
        let c = try DesignToken(json: Fixtures.token("same", version: 2))
        #expect(a == b)
        #expect(a != c)
    }
}
