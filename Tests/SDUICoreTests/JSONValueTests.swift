// JSONValueTests.swift - building JSON values in code.
import Foundation
import SDUICore
import Testing

@Suite struct JSONValueLiteralTests {
    @Test func literalsBuildNestedValues() {
        let v: JSONValue = ["user": ["name": "Anna", "tags": ["a", 1, true, 2.5]], "n": 3]
        #expect(v == .object(["user": .object(["name": .string("Anna"),
                                               "tags": .array([.string("a"), .int(1), .bool(true), .double(2.5)])]),
                              "n": .int(3)]))
    }
}
