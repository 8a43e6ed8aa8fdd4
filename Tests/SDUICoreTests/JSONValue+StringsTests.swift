// JSONValue+StringsTests.swift - strings written as JSON string literals.
import Foundation
import SDUICore
import Testing

@Suite struct JSONValueStringsTests {
    @Test func literalsRoundTripThroughTheParser() throws {
        for s in ["", "plain", "quote \" and \\ slash /", "line\nfeed\ttab\r", "\u{0}\u{1}\u{1f}", "é 🏃 \u{2028}"] {
            let text = JSONValue.literal(s)
            #expect(try JSONValue(json: Data(text.utf8)) == .string(s), "\(text)")
            // JSONEncoder, an independent writer, reads it back the same.
            #expect(try JSONDecoder().decode(String.self, from: Data(text.utf8)) == s)
        }
        #expect(JSONValue.literal("a\"b\u{1}") == #""a\"b\u0001""#)
    }
}
