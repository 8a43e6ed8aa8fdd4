// TokenValueTests.swift - building JSON values in code.
import Foundation
import SDUI
import Testing

@Suite struct TokenValueLiteralTests {
    @Test func literalsBuildNestedValues() {
        let v: TokenValue = ["user": ["name": "Anna", "tags": ["a", 1, true, 2.5]], "n": 3]
        #expect(v == .object(["user": .object(["name": .string("Anna"),
                                               "tags": .array([.string("a"), .int(1), .bool(true), .double(2.5)])]),
                              "n": .int(3)]))
        let s = BindingScope(host: ["user": ["name": "Anna"]])
        #expect(s.lookup("user.name") == "Anna")
    }
}
