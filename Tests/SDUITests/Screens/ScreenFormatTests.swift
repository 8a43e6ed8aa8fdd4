// ScreenFormatTests.swift - which format a screen document is.
import Foundation
import SDUI
import SDUICore
import Testing

@Suite struct ScreenFormatTests {
    private func format(_ json: String) throws -> ScreenFormat {
        ScreenFormat(of: try JSONValue(json: Data(json.utf8)))
    }

    @Test func eachFormatIsToldByItsMembers() throws {
        #expect(try format(#"{"screenName":"home","templates":[],"components":[],"body":[]}"#) == .normalizedPayload)
        #expect(try format(#"{"id":"s","blocks":[]}"#) == .blockScreen)
        #expect(try format(#"{"id":"s","tokens":[{"id":"t"}]}"#) == .tokenPayload)
    }

    /// The rule's order: both normalized members win over `blocks`; one of
    /// them alone does not make a normalized payload.
    @Test func theRuleIsAppliedInOrder() throws {
        #expect(try format(#"{"screenName":"a","templates":[],"blocks":[]}"#) == .normalizedPayload)
        #expect(try format(#"{"screenName":"a","blocks":[]}"#) == .blockScreen)
        #expect(try format(#"{"templates":[],"blocks":[]}"#) == .blockScreen)
        #expect(try format(#"{"screenName":"a"}"#) == .tokenPayload)
        #expect(try format(#"{"templates":[]}"#) == .tokenPayload)
        // A member present with null still counts as present.
        #expect(try format(#"{"blocks":null}"#) == .blockScreen)
    }

    /// What is not an object is left to the token payload's decoder, which
    /// names what is wrong.
    @Test func anythingElseIsATokenPayload() throws {
        for text in ["[]", "[{\"blocks\":[]}]", "\"blocks\"", "3", "null", "{}"] {
            #expect(try format(text) == .tokenPayload, "\(text)")
        }
    }

    @Test func probeParsesOnceAndReturnsTheValue() throws {
        let text = #"{"id":"s","blocks":[{"type":"text","text":"Hi","size":3.0}]}"#
        let (format, value) = try ScreenFormat.probe(Data(text.utf8), source: "s.json")
        #expect(format == .blockScreen)
        #expect(value == (try JSONValue(json: Data(text.utf8))))
        let screen = try BlockScreen(value: value, source: "s.json")
        #expect(screen.id == "s" && screen.blocks.count == 1)
    }

    /// Broken text is refused with its place, whatever format it looks like.
    @Test func probeRefusesTextThatIsNotJSON() throws {
        let e = try #require(throws: SDUIError.self) {
            try ScreenFormat.probe(Data("{\"blocks\": [\n  {\"type\": }]}".utf8), source: "broken.json")
        }
        #expect(e.category == .json && e.input == "broken.json" && e.line == 2, "\(e)")
    }

    /// The probe lets a block screen nest as deep as BlockScreen allows (past
    /// the core's default of 128 levels) and stops past that bound.
    @Test func probeNestsAsDeepAsBlockScreens() throws {
        func nested(_ n: Int) -> Data {
            Data((#"{"id":"s","blocks":["# + String(repeating: #"{"type":"column","blocks":["#, count: n)
                  + String(repeating: "]}", count: n) + "]}").utf8)
        }
        #expect(try ScreenFormat.probe(nested(200), source: "deep.json").format == .blockScreen)
        let e = try #require(throws: SDUIError.self) { try ScreenFormat.probe(nested(300), source: "deep.json") }
        #expect(e.category == .limit && e.input == "deep.json", "\(e)")
    }
}
