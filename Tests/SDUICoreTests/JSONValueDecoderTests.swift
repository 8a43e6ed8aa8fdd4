// JSONValueDecoderTests.swift - JSONValueDecoder against JSONDecoder: each
// case decodes one JSON text both ways (the text with JSONDecoder, the
// JSONValue the core parses from it with JSONValueDecoder) and expects the
// same value, or errors of the same kind at the same coding path.
import Foundation
import SDUICore
import Testing

/// A coding path as comparable text: each key's string and int value.
private func pathText(_ path: [any CodingKey]) -> [String] {
    path.map { key in key.intValue.map { "\(key.stringValue)#\($0)" } ?? key.stringValue }
}

/// What a decode came to: a value, or a DecodingError's kind, coding path,
/// the type it names (typeMismatch, valueNotFound) and the missing key
/// (keyNotFound).
private enum Outcome<T: Equatable>: Equatable {
    case value(T)
    case failure(kind: String, path: [String], detail: String)

    init(_ body: () throws -> T) {
        do {
            self = .value(try body())
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(let type, let c):
                self = .failure(kind: "typeMismatch", path: pathText(c.codingPath), detail: "\(type)")
            case .valueNotFound(let type, let c):
                self = .failure(kind: "valueNotFound", path: pathText(c.codingPath), detail: "\(type)")
            case .keyNotFound(let key, let c):
                self = .failure(kind: "keyNotFound", path: pathText(c.codingPath), detail: key.stringValue)
            case .dataCorrupted(let c):
                self = .failure(kind: "dataCorrupted", path: pathText(c.codingPath), detail: "")
            @unknown default:
                self = .failure(kind: "unknown", path: [], detail: "\(error)")
            }
        } catch {
            self = .failure(kind: "other", path: [], detail: "\(error)")
        }
    }

    /// The kind of failure, or nil for a value.
    var kind: String? {
        if case .failure(let kind, _, _) = self { return kind }
        return nil
    }

    /// The coding path of a failure, or nil for a value.
    var path: [String]? {
        if case .failure(_, let path, _) = self { return path }
        return nil
    }
}

/// `text` decoded as `T` by JSONDecoder, and by JSONValueDecoder from the
/// JSONValue the core parses from the same text.
private func bothWays<T: Decodable & Equatable>(_ type: T.Type, _ text: String)
    throws -> (foundation: Outcome<T>, ours: Outcome<T>) {
    let data = Data(text.utf8)
    let value = try JSONValue(json: data)
    return (Outcome { try JSONDecoder().decode(T.self, from: data) },
            Outcome { try JSONValueDecoder().decode(T.self, from: value) })
}

/// Expects both decoders to agree on `text` as `T`: the same value, or the
/// same kind of error at the same coding path.  Returns the outcome.
@discardableResult
private func same<T: Decodable & Equatable>(_ type: T.Type, _ text: String,
                                            sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome<T> {
    let (foundation, ours) = try bothWays(T.self, text)
    #expect(ours == foundation, "\(T.self) from \(text)", sourceLocation: sourceLocation)
    return ours
}

/// Expects a number that `T` cannot hold to be `dataCorrupted` both ways,
/// and ours at `path`.  (JSONDecoder, on this toolchain's Foundation, reports
/// such numbers at the top level with an empty path, so its path is not
/// compared; ours names the number's place, as the brief for this decoder
/// and earlier Foundations do.)
private func badNumber<T: Decodable & Equatable>(_ type: T.Type, _ text: String, at path: [String],
                                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
    let (foundation, ours) = try bothWays(T.self, text)
    #expect(foundation.kind == "dataCorrupted", "JSONDecoder, \(T.self) from \(text)", sourceLocation: sourceLocation)
    #expect(ours.kind == "dataCorrupted", "\(T.self) from \(text)", sourceLocation: sourceLocation)
    #expect(ours.path == path, "\(T.self) from \(text)", sourceLocation: sourceLocation)
}

// MARK: - Types decoded in the tests

private struct Address: Codable, Equatable {
    var street: String
    var zip: String?
    var floor: Int?
}

private struct Person: Codable, Equatable {
    enum Role: String, Codable { case admin, viewer }
    var name: String
    var age: UInt8
    var score: Double
    var nickname: String?
    var role: Role
    var home: Address
    var previous: [Address]
    var tags: [String]?
}

private enum Level: Int, Codable { case low = 1, high = 2 }

private struct Wrapper<T: Codable & Equatable>: Codable, Equatable {
    var v: T
}

/// Exercises every container call: nested keyed and unkeyed containers,
/// `decodeNil`, `decodeIfPresent`, both `superDecoder`s and an unkeyed
/// container's `count`, `currentIndex` and `isAtEnd`.
private struct Containers: Decodable, Equatable {
    enum Keys: String, CodingKey { case point, list, maybe, absent, sup, pair }
    enum PointKeys: String, CodingKey { case x, y }
    var x = 0, y = 0
    var list: [Int] = []
    var listCount: Int?
    var maybeIsNil = false
    var absent: Int?
    var sup: String = ""
    var superPath: [String] = []
    var pair: [Int] = []

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let point = try c.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
        x = try point.decode(Int.self, forKey: .x)
        y = try point.decode(Int.self, forKey: .y)
        var list = try c.nestedUnkeyedContainer(forKey: .list)
        listCount = list.count
        while !list.isAtEnd {
            if try list.decodeNil() { self.list.append(-1); continue }
            self.list.append(try list.decode(Int.self) * 10 + list.currentIndex)
        }
        maybeIsNil = try c.decodeNil(forKey: .maybe)
        absent = try c.decodeIfPresent(Int.self, forKey: .absent)
        let sup = try c.superDecoder(forKey: .sup)
        superPath = pathText(sup.codingPath)
        self.sup = try String(from: sup)
        var pairs = try c.nestedUnkeyedContainer(forKey: .pair)
        var inner = try pairs.nestedUnkeyedContainer()
        pair.append(try inner.decode(Int.self))
        let nested = try pairs.nestedContainer(keyedBy: PointKeys.self)
        pair.append(try nested.decode(Int.self, forKey: .x))
        pair.append(try Int(from: pairs.superDecoder()))
    }
}

/// Decodes through the keyed container's `superDecoder()` (key "super").
private struct Sub: Decodable, Equatable {
    enum Keys: CodingKey { case own }
    var own: Int
    var base: String
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        own = try c.decode(Int.self, forKey: .own)
        base = try String(from: c.superDecoder())
    }
}

/// Reads one element past the end of a one-element array.
private struct PastTheEnd: Decodable, Equatable {
    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        _ = try c.decode(Int.self)
        _ = try c.decode(Int.self)
    }
}

/// Reads an array of strings and numbers: a failed decode leaves the
/// element in place, so the same element is then read as a number.
private struct Mixed: Decodable, Equatable {
    var items: [String] = []
    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        while !c.isAtEnd {
            if let s = try? c.decode(String.self) { items.append(s) }
            else { items.append("#\(try c.decode(Int.self))") }
        }
    }
}

/// Every integer width and both floating-point types.
private struct Numbers: Codable, Equatable {
    var i: Int, i8: Int8, i16: Int16, i32: Int32, i64: Int64
    var u: UInt, u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64
    var f: Float, d: Double
}

/// Foundation's types with their own JSON form.
private struct Special: Codable, Equatable {
    var url: URL
    var date: Date
    var data: Data
    var amount: Decimal
}

private let userInfoKey = CodingUserInfoKey(rawValue: "test.flag")!

/// Reads `userInfoKey` from the decoder, at the top and inside an array.
private struct SeesUserInfo: Decodable, Equatable {
    var flags: [String]
    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        let inner = try c.superDecoder()
        flags = [decoder.userInfo[userInfoKey] as? String ?? "none", inner.userInfo[userInfoKey] as? String ?? "none"]
    }
}

@Suite struct JSONValueDecoderTests {
    // MARK: Values

    @Test func nestedStructWithOptionalsEnumsAndArraysOfStructs() throws {
        let text = #"""
            {"name": "Ada", "age": 36, "score": 9.5, "role": "admin", "nickname": null,
             "home": {"street": "Main", "floor": 3},
             "previous": [{"street": "Old", "zip": "123"}, {"street": "Older", "zip": null, "floor": 0}]}
            """#
        let outcome = try same(Person.self, text)
        #expect(outcome == .value(Person(name: "Ada", age: 36, score: 9.5, nickname: nil, role: .admin,
                                         home: Address(street: "Main", zip: nil, floor: 3),
                                         previous: [Address(street: "Old", zip: "123", floor: nil),
                                                    Address(street: "Older", zip: nil, floor: 0)],
                                         tags: nil)))
    }

    @Test func scalars() throws {
        try same(Bool.self, "true")
        try same(String.self, #""h\u00e9llo\n""#)
        try same(Int.self, "-42")
        try same(Double.self, "2.5e-3")
        try same(Double.self, "7")
        try same(Float.self, "0.1")
        try same(Float.self, "16777217")
        try same(String?.self, "null")
        try same(Int?.self, "5")
        try same([Int?].self, "[1, null, 3]")
        try same([String: Int?].self, #"{"a": null, "b": 2}"#)
    }

    @Test func everyIntegerWidth() throws {
        let text = #"""
            {"i": -9223372036854775808, "i8": -128, "i16": 32767, "i32": -2147483648, "i64": 9223372036854775807,
             "u": -1, "u8": 255, "u16": 65535, "u32": 4294967295, "u64": 1e19,
             "f": 3.5, "d": -0.0}
            """#
        try badNumber(Numbers.self, text, at: ["u"])
        let fits = text.replacingOccurrences(of: #""u": -1"#, with: #""u": 9223372036854775807"#)
        let outcome = try same(Numbers.self, fits)
        #expect(outcome == .value(Numbers(i: .min, i8: .min, i16: .max, i32: .min, i64: .max,
                                          u: 9_223_372_036_854_775_807, u8: .max, u16: .max, u32: .max,
                                          u64: 10_000_000_000_000_000_000, f: 3.5, d: -0.0)))
    }

    @Test func integralDoublesDecodeAsIntegers() throws {
        #expect(try same(Int.self, "3.0") == .value(3))
        #expect(try same(UInt8.self, "2.55e2") == .value(255))
        #expect(try same(Int64.self, "1e18") == .value(1_000_000_000_000_000_000))
        #expect(try same(Int.self, "-0.0") == .value(0))
        #expect(try JSONValueDecoder().decode(Int16.self, from: .double(-7)) == -7)
    }

    @Test func dictionaries() throws {
        #expect(try same([String: [Int]].self, #"{"a": [1, 2], "b": [], "c": [3]}"#)
                == .value(["a": [1, 2], "b": [], "c": [3]]))
        #expect(try same([Int: String].self, #"{"1": "one", "-2": "minus two"}"#) == .value([1: "one", -2: "minus two"]))
        // A key that is no integer: typeMismatch at that key, both ways.
        let outcome = try same([Int: String].self, #"{"x": "one"}"#)
        #expect(outcome.kind == "typeMismatch" && outcome.path == ["x"])
        try same([String: [Int]].self, #"{"a": [1, "2"]}"#)
    }

    @Test func enumsWithRawValues() throws {
        #expect(try same(Person.Role.self, #""viewer""#) == .value(.viewer))
        #expect(try same(Level.self, "2") == .value(.high))
        #expect(try same(Level.self, "2.0") == .value(.high))
        #expect(try same(Level.self, "3").kind == "dataCorrupted")
        #expect(try same(Person.Role.self, #""owner""#).kind == "dataCorrupted")
        #expect(try same(Person.Role.self, "1").kind == "typeMismatch")
    }

    @Test func foundationTypes() throws {
        let text = #"{"url": "https://example.com/a?b=c", "date": 86400.5, "data": "AAEC/w==", "amount": 12.75}"#
        let outcome = try same(Special.self, text)
        #expect(outcome == .value(Special(url: URL(string: "https://example.com/a?b=c")!,
                                          date: Date(timeIntervalSinceReferenceDate: 86400.5),
                                          data: Data([0, 1, 2, 255]),
                                          amount: Decimal(string: "12.75")!)))
        #expect(try same(Decimal.self, "0.1") == .value(Decimal(string: "0.1")!))
        #expect(try same(Decimal.self, "-42") == .value(Decimal(-42)))
        #expect(try same(Date.self, "0") == .value(Date(timeIntervalSinceReferenceDate: 0)))
        // Each one's wrong forms, both ways.
        try same(Wrapper<URL>.self, #"{"v": ""}"#)
        try same(Wrapper<URL>.self, #"{"v": 1}"#)
        try same(Wrapper<URL>.self, #"{"v": null}"#)
        try same(Wrapper<Data>.self, #"{"v": "not base64!"}"#)
        try same(Wrapper<Data>.self, #"{"v": [1, 2]}"#)
        try same(Wrapper<Data>.self, #"{"v": null}"#)
        try same(Wrapper<Date>.self, #"{"v": "2024-01-01"}"#)
        try same(Wrapper<Decimal>.self, #"{"v": "1.5"}"#)
        try same(Wrapper<Decimal>.self, #"{"v": null}"#)
        try badNumber(Wrapper<Decimal>.self, #"{"v": 1e200}"#, at: ["v"])
    }

    @Test func containerCalls() throws {
        let text = #"{"point": {"x": 1, "y": 2}, "list": [5, null, 7], "maybe": null, "sup": "s", "pair": [[8], {"x": 9}, 10]}"#
        let outcome = try same(Containers.self, text)
        guard case .value(let c) = outcome else {
            Issue.record("expected a value, got \(outcome)")
            return
        }
        #expect(c.x == 1 && c.y == 2)
        #expect(c.list == [51, -1, 73] && c.listCount == 3)
        #expect(c.maybeIsNil && c.absent == nil)
        #expect(c.sup == "s" && c.superPath == ["sup"])
        #expect(c.pair == [8, 9, 10])
        let sub = try same(Sub.self, #"{"own": 1, "super": "base"}"#)
        #expect(sub.kind == nil)
        if case .value(let s) = sub { #expect(s.own == 1 && s.base == "base") }
        let mixed = try same(Mixed.self, #"["a", 1, "b", 2]"#)
        #expect(mixed.kind == nil)
        if case .value(let m) = mixed { #expect(m.items == ["a", "#1", "b", "#2"]) }
    }

    // MARK: Errors

    @Test func integerOverflowIsDataCorruptedAtItsPath() throws {
        try badNumber(UInt8.self, "300", at: [])
        try badNumber(Wrapper<UInt8>.self, #"{"v": 300}"#, at: ["v"])
        try badNumber([UInt8].self, "[1, 300]", at: ["Index 1#1"])
        try badNumber(Wrapper<[Int8]>.self, #"{"v": [0, -129]}"#, at: ["v", "Index 1#1"])
        try badNumber(UInt.self, "-1", at: [])
        try badNumber(Int32.self, "1e10", at: [])
    }

    @Test func fractionIntoIntegerIsDataCorruptedAtItsPath() throws {
        try badNumber(Int.self, "3.5", at: [])
        try badNumber(Wrapper<Int>.self, #"{"v": 0.25}"#, at: ["v"])
        try badNumber([Address].self, #"[{"street": "a", "floor": 1.5}]"#, at: ["Index 0#0", "floor"])
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Wrapper<Int>.self, from: ["v": 0.25])
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.debugDescription.contains("0.25") && context.debugDescription.contains("Int"))
    }

    @Test func floatRange() throws {
        try badNumber(Float.self, "1e300", at: [])
        try badNumber(Float.self, "1e-50", at: [])
        try same(Float.self, "3.4028235e38")
        try same(Float.self, "1e-40")
    }

    @Test func missingKey() throws {
        let outcome = try same(Person.self, #"{"name": "Ada", "age": 1, "score": 1, "role": "admin", "home": {}, "previous": []}"#)
        #expect(outcome == .failure(kind: "keyNotFound", path: ["home"], detail: "street"))
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Address.self, from: ["zip": "1"])
        }
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("expected keyNotFound, got \(error)")
            return
        }
        #expect(key.stringValue == "street" && context.codingPath.isEmpty)
        #expect(context.debugDescription.contains("street"))
    }

    @Test func nullIntoNonOptional() throws {
        #expect(try same(Wrapper<String>.self, #"{"v": null}"#)
                == .failure(kind: "valueNotFound", path: ["v"], detail: "String"))
        #expect(try same([Int].self, "[1, null]") == .failure(kind: "valueNotFound", path: ["Index 1#1"], detail: "Int"))
        try same(Wrapper<Double>.self, #"{"v": null}"#)
        try same(Wrapper<Address>.self, #"{"v": null}"#)
        try same(Wrapper<[Int]>.self, #"{"v": null}"#)
        try same(Int.self, "null")
        // As JSONDecoder has it, null where a Bool belongs is a type mismatch.
        try same(Wrapper<Bool>.self, #"{"v": null}"#)
        try same([Bool].self, "[null]")
    }

    @Test func wrongTypeDeepInside() throws {
        let text = #"""
            {"name": "Ada", "age": 36, "score": 9.5, "role": "admin",
             "home": {"street": "Main"},
             "previous": [{"street": "Old"}, {"street": "Older", "floor": "third"}]}
            """#
        #expect(try same(Person.self, text)
                == .failure(kind: "typeMismatch", path: ["previous", "Index 1#1", "floor"], detail: "Int"))
        #expect(try same(Person.self, text.replacingOccurrences(of: #""home": {"street": "Main"}"#, with: #""home": []"#))
                == .failure(kind: "typeMismatch", path: ["home"], detail: "Dictionary<String, Any>"))
        #expect(try same(Wrapper<[Int]>.self, #"{"v": {"a": 1}}"#)
                == .failure(kind: "typeMismatch", path: ["v"], detail: "Array<Any>"))
        try same(Wrapper<String>.self, #"{"v": 1}"#)
        try same(Wrapper<Int>.self, #"{"v": true}"#)
        try same(Wrapper<Bool>.self, #"{"v": 0}"#)
        try same(Wrapper<Double>.self, #"{"v": "1"}"#)
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Wrapper<[Int]>.self, from: ["v": [1, "two"]])
        }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["v", "Index 1"])
        #expect(context.codingPath.last?.intValue == 1)
        #expect(context.debugDescription.contains("Int") && context.debugDescription.contains("two"))
    }

    @Test func unkeyedContainerPastItsEnd() throws {
        #expect(try same(PastTheEnd.self, "[1]") == .failure(kind: "valueNotFound", path: ["Index 1#1"], detail: "Int"))
        try same(Containers.self, #"{"point": {"x": 1, "y": 2}, "list": [], "maybe": 1, "sup": "s", "pair": [[8]]}"#)
        try same(Containers.self, #"{"point": {"x": 1, "y": 2}, "list": [], "maybe": 1, "sup": "s", "pair": [[8], {"x": 9}]}"#)
        try same(Containers.self, #"{"point": {"x": 1, "y": 2}, "list": [], "maybe": 1, "sup": "s", "pair": [[]]}"#)
        try same(Containers.self, #"{"point": {"x": 1, "y": 2}, "list": [], "maybe": 1, "sup": "s", "pair": []}"#)
    }

    @Test func containerCallsOnMissingOrWrongMembers() throws {
        let base = #"{"point": {"x": 1, "y": 2}, "list": [], "maybe": null, "sup": "s", "pair": [[8], {"x": 9}, 10]}"#
        for (from, to) in [(#""point": {"x": 1, "y": 2}, "#, ""), (#""point": {"x": 1, "y": 2}"#, #""point": null"#),
                           (#""point": {"x": 1, "y": 2}"#, #""point": [1, 2]"#), (#""list": [], "#, ""),
                           (#""list": []"#, #""list": null"#), (#""list": []"#, #""list": {}"#),
                           (#""maybe": null, "#, ""), (#""sup": "s", "#, ""), (#""sup": "s""#, #""sup": 1"#)] {
            let text = base.replacingOccurrences(of: from, with: to)
            #expect(text != base)
            let outcome = try same(Containers.self, text)
            #expect(outcome.kind != nil, "\(text)")
        }
        try same(Sub.self, #"{"own": 1}"#)
        try same(Sub.self, #"{"own": 1, "super": 2}"#)
    }

    // MARK: JSONValue itself, userInfo

    @Test func jsonValueDecodesAsItself() throws {
        let value: JSONValue = ["i": 3, "d": 3.0, "f": 2.5, "n": .null, "b": true, "s": "x",
                                "a": [1, 2.0, ["k": .null]], "o": [:]]
        #expect(try JSONValueDecoder().decode(JSONValue.self, from: value) == value)
        #expect(try JSONValueDecoder().decode([String: JSONValue].self, from: value) == value.objectValue)
        #expect(try JSONValueDecoder().decode(Wrapper<JSONValue>.self, from: ["v": .int(7)]) == Wrapper(v: .int(7)))
        #expect(try JSONValueDecoder().decode(Wrapper<JSONValue>.self, from: ["v": .double(7)]) == Wrapper(v: .double(7)))
        #expect(try JSONValueDecoder().decode([JSONValue].self, from: [1, 1.0, "1"]) == [.int(1), .double(1), .string("1")])
        // Where the text has no fraction both decoders agree.
        #expect(try same(JSONValue.self, #"{"a": [1, 2.5, null, true, "s", {}]}"#)
                == .value(["a": [1, 2.5, .null, true, "s", [:]]]))
    }

    @Test func userInfoReachesEveryDecoder() throws {
        var decoder = JSONValueDecoder()
        #expect(try decoder.decode(SeesUserInfo.self, from: [1]).flags == ["none", "none"])
        decoder.userInfo[userInfoKey] = "on"
        #expect(try decoder.decode(SeesUserInfo.self, from: [1]).flags == ["on", "on"])
    }
}

/// Throws the error it was built with from `init(from:)`.
private struct Refuses: Decodable, Equatable {
    init(from decoder: any Decoder) throws {
        throw SDUIError(.argument, "refused by the model", input: "model")
    }
}

/// Text to a typed model in one call: the core's parser, then the decoder,
/// errors as SDUIError naming the input and the place.
@Suite struct JSONValueDecoderTextTests {
    let decoder = JSONValueDecoder()

    @Test func numbersKeepTheirKind() throws {
        let w = try decoder.decode(Wrapper<[JSONValue]>.self, json: Data(#"{"v": [3.0, 3, 1e2, -0.0]}"#.utf8))
        #expect(w.v == [.double(3.0), .int(3), .double(100), .double(-0.0)])
        #expect(try decoder.decode(Wrapper<Int>.self, json: Data(#"{"v": 3.0}"#.utf8)).v == 3)
    }

    /// Text that is not JSON is the core parser's error: its line, column
    /// and byte, and the input.
    @Test func textThatIsNotJSONIsAJSONErrorWithItsPlace() throws {
        let e = try #require(throws: SDUIError.self) {
            try decoder.decode(Address.self, json: Data("{\"street\":\n  x}".utf8), source: "a.json")
        }
        #expect(e.category == .json && e.input == "a.json", "\(e)")
        #expect(e.line == 2 && e.column == 3 && e.offset == 13, "\(e)")
    }

    /// An integer past 64 bits is refused by the parser, naming the input
    /// and the place (JSONDecoder read it as a double).
    @Test func anIntegerPast64BitsIsRefused() throws {
        for text in [#"{"v": 9223372036854775808}"#, #"{"v": -9223372036854775809}"#] {
            let e = try #require(throws: SDUIError.self) {
                try decoder.decode(Wrapper<JSONValue>.self, json: Data(text.utf8), source: "n.json")
            }
            #expect(e.category == .json && e.input == "n.json" && e.line == 1 && e.offset == text.utf8.count - 1, "\(e)")
            #expect(e.message.contains("integer"), "\(e)")
        }
        #expect(try decoder.decode(Wrapper<JSONValue>.self, json: Data(#"{"v": -9223372036854775808}"#.utf8)).v
                == .int(.min))
    }

    @Test func nestingIsBoundedByMaxDepth() throws {
        let deep = Data((String(repeating: "[", count: 200) + String(repeating: "]", count: 200)).utf8)
        let e = try #require(throws: SDUIError.self) { try decoder.decode(JSONValue.self, json: deep, source: "d.json") }
        #expect(e.category == .limit && e.input == "d.json", "\(e)")
        #expect(try decoder.decode(JSONValue.self, json: deep, maxDepth: 256) != .null)
    }

    /// Each kind of decoding error is a schema error naming the input and
    /// the member's path, by the one conversion.
    @Test func decodingErrorsAreSchemaErrorsNamingThePath() throws {
        let cases: [(String, String)] = [
            (#"{"name": "Ada", "age": 1, "score": 1, "role": "admin", "home": {}, "previous": []}"#,
             #"missing "street" at home"#),
            (#"{"name": "Ada", "age": 1, "score": 1, "role": "admin", "home": {"street": "a"}, "#
                + #""previous": [{"street": "b"}, {"street": "c", "floor": "third"}]}"#,
             #"wrong type at previous[1].floor: expected Int, found the string "third""#),
            (#"{"name": null, "age": 1, "score": 1, "role": "admin", "home": {"street": "a"}, "previous": []}"#,
             "null at name"),
            (#"{"name": "Ada", "age": 300, "score": 1, "role": "admin", "home": {"street": "a"}, "previous": []}"#,
             "bad value at age: the number 300 is out of the range of UInt8 (0...255)"),
            ("[]", "wrong type at the top level: expected an object, found an array of 0 elements"),
        ]
        for (text, message) in cases {
            let e = try #require(throws: SDUIError.self) { try decoder.decode(Person.self, json: Data(text.utf8), source: "p.json") }
            #expect(e.category == .schema && e.input == "p.json" && e.line == nil, "\(e)")
            #expect(e.message == message, "\(e)")
            // From a parsed value, the same error.
            let again = try #require(throws: SDUIError.self) {
                try decoder.decode(Person.self, from: try JSONValue(json: Data(text.utf8)), source: "p.json")
            }
            #expect(again == e)
        }
    }

    /// An SDUIError a model throws itself is kept as it is.
    @Test func aModelsOwnErrorIsKept() throws {
        let e = try #require(throws: SDUIError.self) { try decoder.decode(Refuses.self, json: Data("{}".utf8), source: "r.json") }
        #expect(e == SDUIError(.argument, "refused by the model", input: "model"))
    }
}
