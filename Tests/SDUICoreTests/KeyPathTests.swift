// KeyPathTests.swift - KeyPath: the valid and invalid corpora (components,
// canonical text, error offsets), get/set/remove on nested values, and the
// matching, intersection and prefix tables.
import Foundation
import SDUICore
import Testing

/// One valid path: its text, the components it parses to and its canonical text.
struct ValidPath: Sendable, CustomTestStringConvertible {
    var text: String
    var components: [KeyPath.Component]
    var canonical: String
    var testDescription: String { text }
}

/// One invalid path: its text, the byte offset of the fault and its category.
struct InvalidPath: Sendable, CustomTestStringConvertible {
    var text: String
    var offset: Int
    var category: SDUIError.Category = .argument
    var testDescription: String { text.debugDescription }
}

/// The corpora, as Swift literals (the test target declares no resources).
enum KeyPathCorpus {
    static let valid: [ValidPath] = [
        ValidPath(text: "a", components: [.key("a")], canonical: "a"),
        ValidPath(text: "a.b", components: [.key("a"), .key("b")], canonical: "a.b"),
        ValidPath(text: "a.b.c", components: [.key("a"), .key("b"), .key("c")], canonical: "a.b.c"),
        ValidPath(text: "items[0].title", components: [.key("items"), .index(0), .key("title")], canonical: "items[0].title"),
        ValidPath(text: "items[12]", components: [.key("items"), .index(12)], canonical: "items[12]"),
        ValidPath(text: "items[2147483647]", components: [.key("items"), .index(2_147_483_647)], canonical: "items[2147483647]"),
        ValidPath(text: "[0]", components: [.index(0)], canonical: "[0]"),
        ValidPath(text: "[0][1]", components: [.index(0), .index(1)], canonical: "[0][1]"),
        ValidPath(text: "[*]", components: [.wildcard], canonical: "[*]"),
        ValidPath(text: "items[*].price", components: [.key("items"), .wildcard, .key("price")], canonical: "items[*].price"),
        ValidPath(text: "rows[*].cells[*]", components: [.key("rows"), .wildcard, .key("cells"), .wildcard], canonical: "rows[*].cells[*]"),
        ValidPath(text: "a[0][*][1]", components: [.key("a"), .index(0), .wildcard, .index(1)], canonical: "a[0][*][1]"),
        ValidPath(text: "answers['first name']", components: [.key("answers"), .key("first name")], canonical: "answers['first name']"),
        ValidPath(text: "answers[\"first name\"]", components: [.key("answers"), .key("first name")], canonical: "answers['first name']"),
        ValidPath(text: "a['b']", components: [.key("a"), .key("b")], canonical: "a.b"),
        ValidPath(text: "a[\"b\"]", components: [.key("a"), .key("b")], canonical: "a.b"),
        ValidPath(text: "['a']", components: [.key("a")], canonical: "a"),
        ValidPath(text: "['a b'].c", components: [.key("a b"), .key("c")], canonical: "['a b'].c"),
        ValidPath(text: "a['']", components: [.key("a"), .key("")], canonical: "a['']"),
        ValidPath(text: "a['it\\'s']", components: [.key("a"), .key("it's")], canonical: "a['it\\'s']"),
        ValidPath(text: "a[\"it's\"]", components: [.key("a"), .key("it's")], canonical: "a['it\\'s']"),
        ValidPath(text: "a[\"say \\\"hi\\\"\"]", components: [.key("a"), .key("say \"hi\"")], canonical: "a['say \"hi\"']"),
        ValidPath(text: "a['\"']", components: [.key("a"), .key("\"")], canonical: "a['\"']"),
        ValidPath(text: "a['back\\\\slash']", components: [.key("a"), .key("back\\slash")], canonical: "a['back\\\\slash']"),
        ValidPath(text: "a['\\/']", components: [.key("a"), .key("/")], canonical: "a['/']"),
        ValidPath(text: "a['line\\nbreak']", components: [.key("a"), .key("line\nbreak")], canonical: "a['line\\nbreak']"),
        ValidPath(text: "a['\\t\\r\\b\\f']", components: [.key("a"), .key("\t\r\u{08}\u{0C}")], canonical: "a['\\t\\r\\b\\f']"),
        ValidPath(text: "a['\\u0041']", components: [.key("a"), .key("A")], canonical: "a.A"),
        ValidPath(text: "a['\\u00e9t\\u00E9']", components: [.key("a"), .key("été")], canonical: "a['été']"),
        ValidPath(text: "a['été']", components: [.key("a"), .key("été")], canonical: "a['été']"),
        ValidPath(text: "a['\\ud83d\\ude00']", components: [.key("a"), .key("😀")], canonical: "a['😀']"),
        ValidPath(text: "a['\\u0001']", components: [.key("a"), .key("\u{01}")], canonical: "a['\\u0001']"),
        ValidPath(text: "a['\\u0000']", components: [.key("a"), .key("\u{00}")], canonical: "a['\\u0000']"),
        ValidPath(text: "a.0", components: [.key("a"), .key("0")], canonical: "a.0"),
        ValidPath(text: "a['0']", components: [.key("a"), .key("0")], canonical: "a.0"),
        ValidPath(text: "0", components: [.key("0")], canonical: "0"),
        ValidPath(text: "a-b_c.D9", components: [.key("a-b_c"), .key("D9")], canonical: "a-b_c.D9"),
        ValidPath(text: "_.-", components: [.key("_"), .key("-")], canonical: "_.-"),
        ValidPath(text: "a['*']", components: [.key("a"), .key("*")], canonical: "a['*']"),
        ValidPath(text: "a['[0]']", components: [.key("a"), .key("[0]")], canonical: "a['[0]']"),
        ValidPath(text: "a['x.y']", components: [.key("a"), .key("x.y")], canonical: "a['x.y']"),
        ValidPath(text: "a['with]bracket']", components: [.key("a"), .key("with]bracket")], canonical: "a['with]bracket']"),
    ]

    static let invalid: [InvalidPath] = [
        InvalidPath(text: "", offset: 0),
        InvalidPath(text: ".", offset: 0),
        InvalidPath(text: ".a", offset: 0),
        InvalidPath(text: "a.", offset: 2),
        InvalidPath(text: "a..b", offset: 2),
        InvalidPath(text: "a.[0]", offset: 2),
        InvalidPath(text: "a b", offset: 1),
        InvalidPath(text: " a", offset: 0),
        InvalidPath(text: "a ", offset: 1),
        InvalidPath(text: "a.b\n", offset: 3),
        InvalidPath(text: "a[", offset: 2),
        InvalidPath(text: "a[]", offset: 2),
        InvalidPath(text: "a[0", offset: 3),
        InvalidPath(text: "a[0x]", offset: 3),
        InvalidPath(text: "a[-1]", offset: 2),
        InvalidPath(text: "a[01]", offset: 2),
        InvalidPath(text: "a[1.5]", offset: 3),
        InvalidPath(text: "a[ 0]", offset: 2),
        InvalidPath(text: "a[0 ]", offset: 3),
        InvalidPath(text: "a[*", offset: 3),
        InvalidPath(text: "a[**]", offset: 3),
        InvalidPath(text: "a*", offset: 1),
        InvalidPath(text: "*", offset: 0),
        InvalidPath(text: "a.*", offset: 2),
        InvalidPath(text: "a]", offset: 1),
        InvalidPath(text: "a\\", offset: 1),
        InvalidPath(text: "é", offset: 0),
        InvalidPath(text: "a.é", offset: 2),
        InvalidPath(text: "a['b", offset: 4),
        InvalidPath(text: "a['b\"]", offset: 6),
        InvalidPath(text: "a['b'", offset: 5),
        InvalidPath(text: "a['b']x", offset: 6),
        InvalidPath(text: "a['b'.c]", offset: 5),
        InvalidPath(text: "a['\\", offset: 3),
        InvalidPath(text: "a['\\x']", offset: 3),
        InvalidPath(text: "a['ok\\q']", offset: 5),
        InvalidPath(text: "a['\\u12']", offset: 7),
        InvalidPath(text: "a['\\u12G4']", offset: 7),
        InvalidPath(text: "a['\\ud800']", offset: 9),
        InvalidPath(text: "a['\\udc00']", offset: 3),
        InvalidPath(text: "a['\\ud800\\u0041']", offset: 9),
        InvalidPath(text: "a['tab\there']", offset: 6),
        InvalidPath(text: "a[\"nl\n\"]", offset: 5),
        InvalidPath(text: "a[2147483648]", offset: 2, category: .limit),
        InvalidPath(text: "a[99999999999999999999]", offset: 2, category: .limit),
        InvalidPath(text: "a.b[3000000000].c", offset: 4, category: .limit),
    ]
}

@Suite struct KeyPathParsingTests {
    @Test(arguments: KeyPathCorpus.valid)
    func validPathParses(_ entry: ValidPath) throws {
        let path = try KeyPath(entry.text)
        #expect(path.components == entry.components)
        #expect(path.description == entry.canonical)
        #expect(path.hasWildcard == entry.components.contains(.wildcard))
        // The canonical text parses back to the same path.
        let again = try KeyPath(path.description)
        #expect(again == path)
        #expect(again.description == entry.canonical)
        // And the components build the same path.
        #expect(try KeyPath(components: entry.components) == path)
    }

    @Test(arguments: KeyPathCorpus.invalid)
    func invalidPathIsRefusedAtItsOffset(_ entry: InvalidPath) {
        do {
            let path = try KeyPath(entry.text)
            Issue.record("parsed \(entry.text.debugDescription) as \(path.components)")
        } catch let error as SDUIError {
            #expect(error.category == entry.category, "\(error)")
            #expect(error.offset == entry.offset, "\(error)")
            #expect(error.message.contains("expected") || error.category == .limit
                    || error.message.contains("surrogate") || error.message.contains("leading zeros")
                    || error.message.contains("control character"), "\(error)")
            #expect(error.description.contains("byte \(entry.offset)"))
        } catch {
            Issue.record("not an SDUIError: \(error)")
        }
    }

    @Test func corporaAreLargeEnough() {
        #expect(KeyPathCorpus.valid.count >= 30)
        #expect(KeyPathCorpus.invalid.count >= 30)
        #expect(Set(KeyPathCorpus.invalid.map(\.text)).count == KeyPathCorpus.invalid.count)
    }

    @Test func messagesSayWhatWasExpected() throws {
        let cases: [(String, String)] = [
            ("", "expected a name or '[' to start the path; the path is empty"),
            ("a..b", "expected a name after '.', found '.'"),
            ("a.[0]", "write '[' without the '.'"),
            ("a b", "expected '.' or '[' after a component, found ' '"),
            ("a[0", "expected ']' to close the '[', found the end of the path"),
            ("a[-1]", "an index cannot be negative"),
            ("a['b", "expected a closing \"'\""),
            ("a['\\x']", "unknown escape '\\x'"),
            ("a.é", "found 'é'"),
            ("a[2147483648]", "over the largest index, 2147483647"),
        ]
        for (text, fragment) in cases {
            #expect(throws: SDUIError.self) { try KeyPath(text) }
            do { _ = try KeyPath(text) } catch let error as SDUIError {
                #expect(error.message.contains(fragment), "\(text.debugDescription): \(error.message)")
                #expect(error.input?.contains("key path") == true)
            }
        }
    }

    @Test func componentLimitIsSixtyFour() throws {
        let sixtyFour = (["a"] + Array(repeating: ".a", count: 63)).joined()
        #expect(try KeyPath(sixtyFour).components.count == 64)
        let sixtyFive = sixtyFour + ".a"
        do {
            _ = try KeyPath(sixtyFive)
            Issue.record("65 components accepted")
        } catch let error as SDUIError {
            #expect(error.category == .limit)
            #expect(error.offset == sixtyFour.utf8.count)
        }
        // Through brackets too.
        let brackets = String(repeating: "[0]", count: 65)
        #expect { try KeyPath(brackets) } throws: { ($0 as? SDUIError)?.offset == 64 * 3 }
    }

    @Test func textLimitIsFourKiB() throws {
        let exactly = String(repeating: "x", count: KeyPath.maxTextBytes)
        #expect(try KeyPath(exactly).components == [.key(exactly)])
        do {
            _ = try KeyPath(exactly + "x")
            Issue.record("4097 bytes accepted")
        } catch let error as SDUIError {
            #expect(error.category == .limit)
            #expect(error.offset == 4096)
            #expect(error.message.contains("4097"))
            // The input names the path without repeating all of it.
            #expect((error.input?.count ?? 0) < 100)
        }
        // Bytes, not characters: 2,046 two-byte characters quoted are 4,096
        // bytes, one more is 4,098.
        let wide = "['" + String(repeating: "é", count: 2046) + "']"
        #expect(wide.utf8.count == 4096)
        #expect(try KeyPath(wide).components.count == 1)
        #expect(throws: SDUIError.self) { try KeyPath("['" + String(repeating: "é", count: 2047) + "']") }
    }

    @Test func componentsInitializerChecksBounds() throws {
        #expect(try KeyPath(components: [.key("a"), .index(3), .wildcard]).description == "a[3][*]")
        let cases: [([KeyPath.Component], SDUIError.Category)] = [
            ([], .argument),
            ([.key("a"), .index(-1)], .argument),
            ([.index(KeyPath.maxIndex + 1)], .limit),
            (Array(repeating: .index(0), count: 65), .limit),
            ([.key(String(repeating: " ", count: 4093))], .limit),  // ['…'] is 4,097 bytes
        ]
        for (components, category) in cases {
            #expect { try KeyPath(components: components) } throws: { ($0 as? SDUIError)?.category == category }
        }
        #expect(try KeyPath(components: [.key(String(repeating: " ", count: 4092))]).description.utf8.count == 4096)
    }

    @Test func equalPathsHashAlike() throws {
        let spellings = ["a.b", "a['b']", "a[\"b\"]", "['a'].b", "['a']['b']"]
        let paths = try Set(spellings.map { try KeyPath($0) })
        #expect(paths.count == 1)
        #expect(paths.first?.description == "a.b")
        #expect(KeyPath("a.b") != KeyPath("a['b.c']"))
        #expect(KeyPath("a.0") != KeyPath("a[0]"))
    }

    @Test func codableAsItsText() throws {
        let paths: [KeyPath] = ["items[*].price", "answers[\"first name\"]"]
        let data = try JSONEncoder().encode(paths)
        #expect(String(decoding: data, as: UTF8.self) == #"["items[*].price","answers['first name']"]"#)
        #expect(try JSONDecoder().decode([KeyPath].self, from: data) == paths)
        #expect(try JSONDecoder().decode(KeyPath.self, from: Data(#""a[\"b\"]""#.utf8)) == "a.b")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(KeyPath.self, from: Data(#""a..b""#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(KeyPath.self, from: Data("3".utf8)) }
    }

    @Test func stringLiteral() throws {
        let p: KeyPath = "items[*].price"
        let text = "items[*].price"
        #expect(p == (try KeyPath(text)))
        #expect(p.components == [.key("items"), .wildcard, .key("price")])
    }

    @Test func invalidLiteralIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) {
            let p: KeyPath = "a..b"
            print(p)
        }
        // `KeyPath("…")` with a literal argument is a literal too (Swift
        // reads `T("x")` as `"x" as T`), so it also stops: `try` could not
        // catch it (the compiler warns that nothing here throws).
        await #expect(processExitsWith: .failure) {
            let p = KeyPath("a..b")
            print(p)
        }
    }
}

/// The value the read and write tests walk.
private let document: JSONValue = [
    "user": ["name": "Anna", "first name": "A", "tags": ["x", "y"]],
    "items": [["title": "Tea", "price": 3], ["title": "Cake", "price": 5], ["title": "Free"]],
    "rows": [["cells": [1, 2]], ["cells": [3]], ["other": true]],
    "empty": [],
    "nothing": .null,
]

@Suite struct KeyPathGetTests {
    @Test(arguments: [
        ("user.name", "Anna" as JSONValue?),
        ("user['first name']", "A"),
        ("user.tags[1]", "y"),
        ("user.tags[2]", nil),
        ("user.tags[0].x", nil),
        ("items[0].title", "Tea"),
        ("items[2].price", nil),
        ("items[*].price", [3, 5]),
        ("items[*].title", ["Tea", "Cake", "Free"]),
        ("items[*]", [["title": "Tea", "price": 3], ["title": "Cake", "price": 5], ["title": "Free"]]),
        ("rows[*].cells[*]", [1, 2, 3]),
        ("rows[*].cells[0]", [1, 3]),
        ("rows[*].cells", [[1, 2], [3]]),
        ("empty[*].x", []),
        ("user[*]", nil),
        ("missing[*].x", nil),
        ("nothing", .some(.null)),
        ("nothing.x", nil),
        ("user.name.first", nil),
        ("items.title", nil),
        ("user[0]", nil),
        ("missing", nil),
    ] as [(String, JSONValue?)])
    func get(_ text: String, _ expected: JSONValue?) throws {
        #expect(try KeyPath(text).get(in: document) == expected)
    }

    @Test func rootMayBeAnArray() throws {
        let root: JSONValue = [["a": 1], ["a": 2], 7]
        #expect(KeyPath("[1].a").get(in: root) == 2)
        #expect(KeyPath("[*].a").get(in: root) == [1, 2])
        #expect(KeyPath("[3]").get(in: root) == nil)
        #expect(KeyPath("a").get(in: root) == nil)
    }
}

@Suite struct KeyPathSetTests {
    /// `document` after setting `value` at `text`.
    func setting(_ value: JSONValue, at text: String, in start: JSONValue = document) throws -> JSONValue {
        var doc = start
        try KeyPath(text).set(value, in: &doc)
        return doc
    }

    /// The error setting `value` at `text` throws; checks `document` is unchanged.
    func setError(_ value: JSONValue, at text: String, in start: JSONValue = document) throws -> SDUIError? {
        var doc = start
        defer { #expect(doc == start, "a failed set changed the value") }
        do {
            try KeyPath(text).set(value, in: &doc)
            return nil
        } catch let error as SDUIError {
            return error
        }
    }

    @Test func replacesAMember() throws {
        let doc = try setting("Bea", at: "user.name")
        #expect(doc["user"]?["name"] == "Bea")
        #expect(doc["user"]?["tags"] == ["x", "y"])
        #expect(doc["items"] == document["items"])
    }

    @Test func createsIntermediateObjects() throws {
        let doc = try setting("Oslo", at: "user.address.city")
        #expect(doc["user"]?["address"] == ["city": "Oslo"])
        let fresh = try setting(1, at: "a['b c'].d", in: [:])
        #expect(fresh == ["a": ["b c": ["d": 1]]])
    }

    @Test func replacesAndAppendsElements() throws {
        #expect(try setting(6, at: "items[1].price")["items"]?[1] == ["title": "Cake", "price": 6])
        let appended = try setting(["title": "Jam"], at: "items[3]")
        #expect(appended["items"]?.arrayValue?.count == 4)
        #expect(appended["items"]?[3] == ["title": "Jam"])
        #expect(try setting("z", at: "user.tags[0]")["user"]?["tags"] == ["z", "y"])
        #expect(try setting(1, at: "empty[0]")["empty"] == [1])
    }

    @Test func wildcardSetsEveryElement() throws {
        let doc = try setting(0, at: "items[*].price")
        #expect(doc["items"] == [["title": "Tea", "price": 0], ["title": "Cake", "price": 0], ["title": "Free", "price": 0]])
        #expect(try setting("z", at: "user.tags[*]")["user"]?["tags"] == ["z", "z"])
        #expect(try setting(1, at: "empty[*]")["empty"] == [])
        #expect(try setting(9, at: "rows[0].cells[*]")["rows"]?[0] == ["cells": [9, 9]])
    }

    @Test func refusesAnIndexPastTheEnd() throws {
        let error = try #require(try setError(1, at: "items[5]"))
        #expect(error.category == .notFound)
        #expect(error.offset == 5)
        #expect(error.message.contains("index 5 is past the end of items, which has 3 elements"))
        #expect(error.input == "key path \"items[5]\"")
        let inner = try #require(try setError(1, at: "items[3].title"))
        #expect(inner.category == .notFound)
        #expect(inner.offset == 5)
    }

    @Test func wildcardSetIsAllOrNothing() throws {
        // rows[2] has no cells: nothing is written, not even to rows[0] and rows[1].
        let error = try #require(try setError(0, at: "rows[*].cells[0]"))
        #expect(error.category == .notFound)
        #expect(error.message.hasPrefix("rows[2].cells does not exist"))
        #expect(error.offset == "rows[*].cells".utf8.count)
        // items[2] lacks price but is an object, so this one succeeds...
        #expect(try setting(1, at: "items[*].price.amount", in: ["items": [["price": [:]], ["price": [:]]]])
                == ["items": [["price": ["amount": 1]], ["price": ["amount": 1]]]])
        // ...and fails as a whole when one element's price is a number.
        let mixed: JSONValue = ["items": [["price": [:]], ["price": 3]]]
        let typed = try #require(try setError(1, at: "items[*].price.amount", in: mixed))
        #expect(typed.category == .schema)
        #expect(typed.message == "items[1].price is a number, not an object")
        #expect(typed.offset == "items[*].price".utf8.count)
    }

    @Test func refusesToCreateArrays() throws {
        let error = try #require(try setError(1, at: "missing.list[0]"))
        #expect(error.category == .notFound)
        #expect(error.message.contains("missing.list does not exist"))
        #expect(error.offset == "missing.list".utf8.count)
        #expect(try setError(1, at: "missing[*]")?.category == .notFound)
    }

    @Test func refusesToStepIntoOtherTypes() throws {
        let string = try #require(try setError(1, at: "user.name.first"))
        #expect(string.category == .schema)
        #expect(string.message == "user.name is a string, not an object")
        #expect(string.offset == 9)
        let null = try #require(try setError(1, at: "nothing.x"))
        #expect(null.message == "nothing is null, not an object")
        let object = try #require(try setError(1, at: "user[0]"))
        #expect(object.message == "user is an object, not an array")
        let root = try #require(try setError(1, at: "a", in: .null))
        #expect(root.message == "the root is null, not an object")
        #expect(root.offset == 0)
        let rootArray = try #require(try setError(1, at: "[0]", in: ["a": 1]))
        #expect(rootArray.message == "the root is an object, not an array")
    }

    @Test func setsOnAnArrayRoot() throws {
        #expect(try setting("b", at: "[1]", in: ["a", "x"]) == ["a", "b"])
        #expect(try setting(0, at: "[*].n", in: [["n": 1], [:]]) == [["n": 0], ["n": 0]])
    }
}

@Suite struct KeyPathRemoveTests {
    /// Removes `text` from a copy of `start`: what came out and what is left.
    func removing(_ text: String, from start: JSONValue = document) throws -> (JSONValue?, JSONValue) {
        var doc = start
        let removed = try KeyPath(text).remove(from: &doc)
        return (removed, doc)
    }

    @Test func removesAMember() throws {
        let (removed, doc) = try removing("user.name")
        #expect(removed == "Anna")
        #expect(doc["user"] == ["first name": "A", "tags": ["x", "y"]])
        let (null, rest) = try removing("nothing")
        #expect(null == .null)
        #expect(rest["nothing"] == nil)
        #expect(rest.objectValue?.count == 4)
    }

    @Test func removesAnElementAndShiftsTheRest() throws {
        let (removed, doc) = try removing("items[0]")
        #expect(removed == ["title": "Tea", "price": 3])
        #expect(doc["items"]?[0]?["title"] == "Cake")
        #expect(doc["items"]?.arrayValue?.count == 2)
    }

    @Test(arguments: ["user.zzz", "user.tags[2]", "user.name.x", "items.title", "missing.a.b", "user[0]", "nothing.x"])
    func removingNothingChangesNothing(_ text: String) throws {
        let (removed, doc) = try removing(text)
        #expect(removed == nil)
        #expect(doc == document)
    }

    @Test func wildcardRemovesEveryMatch() throws {
        let (prices, doc) = try removing("items[*].price")
        #expect(prices == [3, 5])
        #expect(doc["items"] == [["title": "Tea"], ["title": "Cake"], ["title": "Free"]])

        let (all, emptied) = try removing("items[*]")
        #expect(all == document["items"])
        #expect(emptied["items"] == [])

        let (firsts, rows) = try removing("rows[*].cells[0]")
        #expect(firsts == [1, 3])
        #expect(rows["rows"] == [["cells": [2]], ["cells": []], ["other": true]])

        let (none, same) = try removing("empty[*].x")
        #expect(none == [])
        #expect(same == document)
    }

    @Test(arguments: ["missing[*]", "user[*]", "user.name[*]"])
    func wildcardOverNoArrayIsNil(_ text: String) throws {
        let (removed, doc) = try removing(text)
        #expect(removed == nil)
        #expect(doc == document)
    }

    @Test func removeThenGetAgrees() throws {
        for text in ["items[*].title", "rows[*].cells[*]", "user.tags[1]", "user"] {
            let path = try KeyPath(text)
            var doc = document
            let expected = path.get(in: doc)
            #expect(path.remove(from: &doc) == expected, "\(text)")
            #expect(path.get(in: doc) == (path.hasWildcard ? [] : nil), "\(text)")
        }
    }
}

@Suite struct KeyPathComparisonTests {
    @Test(arguments: [
        ("items[3].price", "items[*].price", true),
        ("items[3].price", "items[3].price", true),
        ("items[3].price", "items[4].price", false),
        ("items.price", "items[*].price", false),
        ("items['0'].price", "items[*].price", false),
        ("items[3]", "items[*].price", false),
        ("items[3].price.amount", "items[*].price", false),
        ("items[*].price", "items[*].price", true),
        ("items[*].price", "items[3].price", false),
        ("a.b", "a.b", true),
        ("a.b", "a.c", false),
        ("rows[1].cells[2]", "rows[*].cells[*]", true),
        ("rows[1].cells[2]", "rows[*].cells[2]", true),
        ("rows[1].cells[2]", "rows[*].cells[3]", false),
        ("[7]", "[*]", true),
        ("a", "[*]", false),
    ])
    func matches(_ path: String, _ pattern: String, _ expected: Bool) throws {
        #expect(try KeyPath(path).matches(KeyPath(pattern)) == expected)
    }

    @Test(arguments: [
        ("cart", "cart.total", true),
        ("cart.total", "cart.items", false),
        ("cart", "cart", true),
        ("cart.total", "cart.total.amount", true),
        ("cart", "order", false),
        ("cart", "carts", false),
        ("items[*].price", "items[2]", true),
        ("items[*].price", "items[2].title", false),
        ("items[*].price", "items[2].price.amount", true),
        ("items[*]", "items[*].x", true),
        ("items[1]", "items[2]", false),
        ("items[1].a", "items", true),
        ("a.b", "a[0]", false),
        ("a[*]", "a.b", false),
        ("[0]", "[0].a", true),
        ("a['x.y']", "a.x.y", false),
    ])
    func intersects(_ a: String, _ b: String, _ expected: Bool) throws {
        let (p, q) = (try KeyPath(a), try KeyPath(b))
        #expect(p.intersects(q) == expected)
        #expect(q.intersects(p) == expected, "intersection is symmetric")
    }

    @Test(arguments: [
        ("a", "a.b", true),
        ("a.b", "a", false),
        ("a.b", "a.b", true),
        ("a", "ab", false),
        ("items[*]", "items[*].p", true),
        ("items[*]", "items[0].p", false),
        ("items[0]", "items[*].p", false),
        ("[0]", "[0][1]", true),
    ])
    func isPrefix(_ a: String, _ b: String, _ expected: Bool) throws {
        #expect(try KeyPath(a).isPrefix(of: KeyPath(b)) == expected)
    }
}
