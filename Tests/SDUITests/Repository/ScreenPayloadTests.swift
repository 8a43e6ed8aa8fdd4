// ScreenPayloadTests.swift - screen payloads decoded: every example screen, and what is refused.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct ScreenPayloadTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")

    @Test func everyExampleScreenDecodes() throws {
        let dir = examples.appendingPathComponent("screens")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name.hasSuffix(".json") {
            let s = try ScreenPayload(json: try Data(contentsOf: dir.appendingPathComponent(name)), source: name)
            #expect(!s.tokens.isEmpty, "\(name)")
        }
        let e = expectError(.schema) { _ = try ScreenPayload(json: Data(#"{"id":"x","tokens":[{"bind":{}}]}"#.utf8), source: "s.json") }
        #expect(e?.message.contains("tokens[0]") == true)
    }

    @Test func itemsKeepTheirBindingsAndTheOptionalMembersDecode() throws {
        let s = try ScreenPayload(json: Data(#"""
            {"id":"checkout_offline","themeId":"t","fallbackFor":"checkout",
             "tokens":[{"id":"a","bind":{"n":2,"s":"x"}},{"id":"b"}]}
            """#.utf8))
        #expect(s == ScreenPayload(id: "checkout_offline",
                                   tokens: [.init(id: "a", bind: ["n": 2, "s": "x"]), .init(id: "b")],
                                   themeId: "t", fallbackFor: "checkout"))
        let e = expectError(.schema) { _ = try ScreenPayload(json: Data(#"{"tokens":[]}"#.utf8), source: "s.json") }
        #expect(e?.input == "s.json")
    }
}
