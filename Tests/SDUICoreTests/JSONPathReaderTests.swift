// JSONPathReaderTests.swift - the reader of hand-checked documents: the
// JSON path each value gets, and the errors that name it and the input.
import Foundation
@testable import SDUICore
import Testing

@Suite struct JSONPathReaderTests {
    let doc = JSONPathReader(["screens": [["id": "a", "next": [["to": "b"]]]], "a b": 1, "x_1": 2,
                              "\u{e9}t\u{e9}": 3, "q\"": 4, "": 5, "gone": .null],
                             input: "flow.json")

    /// Plain names (ASCII letters, digits, `_`) are `.name`; any other is a
    /// quoted string in brackets, escaped as JSON; indexes are `[n]`.
    @Test func eachValueKnowsItsPath() throws {
        #expect(doc.path == "$")
        let next = try doc.required("screens").array()[0].required("next").array()[0].required("to")
        #expect(next.path == "$.screens[0].next[0].to")
        #expect(try next.string() == "b")
        #expect(try doc.required("x_1").path == "$.x_1")
        #expect(try doc.required("a b").path == #"$["a b"]"#)
        #expect(try doc.required("\u{e9}t\u{e9}").path == "$[\"\u{e9}t\u{e9}\"]")
        #expect(try doc.required("q\"").path == #"$["q\""]"#)
        #expect(try doc.required("").path == #"$[""]"#)
    }

    /// Every error is a schema error (a limit error for a bound) naming
    /// the input and the path.
    @Test func errorsNameTheInputAndThePath() throws {
        func expectError(_ message: String, _ category: SDUIError.Category = .schema, _ body: () throws -> Void,
                         sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                try body()
                Issue.record("no error, expected \(message)", sourceLocation: sourceLocation)
            } catch let e as SDUIError {
                #expect(e == SDUIError(category, message, input: "flow.json"), sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(error)", sourceLocation: sourceLocation)
            }
        }
        expectError(#"$: needs "id""#) { _ = try doc.required("id") }
        expectError(#"$: needs "gone""#) { _ = try doc.required("gone") }
        #expect(try doc.member("gone") == nil && doc.optionalString("gone") == nil)
        expectError("$.screens: must be an object") { _ = try doc.required("screens").object() }
        expectError("$.screens[0]: must be an array") { _ = try doc.required("screens").array()[0].array() }
        expectError("$.screens[0].next[0].to: must be an integer") {
            _ = try doc.required("screens").array()[0].required("next").array()[0].required("to").int()
        }
        expectError(#"$["a b"]: must be a string"#) { _ = try doc.required("a b").string() }
        expectError(#"$["a b"]: must be an object"#) { _ = try doc.required("a b").member("k") }
        expectError("$: too many screens", .limit) { throw doc.limitError("too many screens") }
        let empty = JSONPathReader(["id": ""], input: nil)
        #expect(throws: SDUIError(.schema, "$.id: must not be empty", input: nil)) { try empty.required("id").string() }
    }

    /// A whole number is an integer whether written `3` or `3.0`; a
    /// fraction, or a number past Int, is not.
    @Test func integers() throws {
        for (value, expected) in [(JSONValue.int(3), 3), (.double(3.0), 3), (.int(-7), -7)] {
            #expect(try JSONPathReader(value, input: nil).int() == expected)
        }
        for value: JSONValue in [.double(3.5), .double(1e300), .double(.nan), .string("3"), .null] {
            #expect(throws: SDUIError.self) { try JSONPathReader(value, input: nil).int() }
        }
    }
}
