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

    /// A binding keeps its number as written: `3.0` a decimal, `3` an
    /// integer (JSONDecoder made both the integer 3).
    @Test func aDecimalBindingStaysADecimal() throws {
        let s = try ScreenPayload(json: Data(#"{"id":"s","tokens":[{"id":"a","bind":{"d":3.0,"i":3,"e":1e2}}]}"#.utf8))
        let bind = try #require(s.tokens.first?.bind)
        #expect(bind["d"] == .double(3.0))
        #expect(bind["i"] == .int(3))
        #expect(bind["e"] == .double(100))
    }

    /// An integer past 2^63 is refused by the core's parser, naming the
    /// input and the place (JSONDecoder took it as a double).
    @Test func anIntegerPast2To63IsRefused() throws {
        let json = Data("{\"id\":\"s\",\n \"tokens\":[{\"id\":\"a\",\"bind\":{\"n\":12345678901234567890}}]}".utf8)
        let e = try #require(throws: SDUIError.self) { try ScreenPayload(json: json, source: "s.json") }
        #expect(e.category == .json && e.input == "s.json", "\(e)")
        #expect(e.line == 2 && e.column == 54 && e.offset == 64, "\(e)")
        #expect(e.message.contains("integer"), "\(e)")
    }
}
