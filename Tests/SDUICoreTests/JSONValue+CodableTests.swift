// JSONValue+CodableTests.swift - JSON values through JSONDecoder and JSONEncoder.
import Foundation
import SDUICore
import Testing

@Suite struct JSONValueCodableTests {
    /// Integers that fit 64 bits decode as `.int`, other numbers as `.double`.
    @Test func everyKindDecodes() throws {
        let text = #"[1, -7, 2.5, 9223372036854775808, true, false, null, "s", {"o": {"k": []}}]"#
        let v = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(v == .array([.int(1), .int(-7), .double(2.5), .double(9_223_372_036_854_775_808), .bool(true),
                             .bool(false), .null, .string("s"), .object(["o": .object(["k": .array([])])])]))
    }

    @Test func encodingWritesTheSameJSON() throws {
        let v: JSONValue = ["a": 1, "b": [.null, false, 2.5, "x"], "c": .object([:])]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(v)
        #expect(String(decoding: data, as: UTF8.self) == #"{"a":1,"b":[null,false,2.5,"x"],"c":{}}"#)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == v)
    }
}
