import Foundation
import SDUICore
import SDUITestSupport
import Testing

/// `jsonText`: compact JSON, members sorted, that reads back as the same
/// value JSONEncoder's text reads back as.
@Suite struct JSONValueWritingTests {
    static let texts = ["", "a", "\"quoted\"", "back\\slash", "tab\there", "nl\n", "\u{0}nul", "\u{1F}unit", "\u{7F}del",
                        "€uro", "😀", "\u{2028}ls", "/slash", "é"]

    /// A random value, at most `depth` levels deep.
    static func value(_ r: inout SeededGenerator, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &r) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &r))
        case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &r))
        case 3: return .double([0.1, -2.5, 1e21, 1.5e-7, 123456.789, -0.0, 3].randomElement(using: &r)!)
        case 4, 5: return .string(texts.randomElement(using: &r)!)
        case 6: return .array((0..<Int.random(in: 0...3, using: &r)).map { _ in value(&r, depth: depth - 1) })
        default:
            var o: [String: JSONValue] = [:]
            // The core's reader takes no U+0000 in a member name (a documented bound).
            for _ in 0..<Int.random(in: 0...3, using: &r) {
                o[texts.filter { !$0.contains("\u{0}") }.randomElement(using: &r)!] = value(&r, depth: depth - 1)
            }
            return .object(o)
        }
    }

    @Test func textReadsBackAsTheSameValue() throws {
        var r = SeededGenerator(state: 0x7E87)
        for i in 0..<2000 {
            let v = Self.value(&r, depth: 4)
            let text = v.jsonText
            let back = try JSONValue(json: Data(text.utf8), source: "value \(i)")
            // A double that is a whole number reads back as an integer: the same number.
            #expect(Self.normalized(back) == Self.normalized(v), "value \(i): \(text)")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            if let theirs = try? encoder.encode(v) {
                let b = try JSONValue(json: theirs, source: "JSONEncoder \(i)")
                #expect(Self.normalized(back) == Self.normalized(b), "value \(i): \(text) vs \(String(decoding: theirs, as: UTF8.self))")
            }
        }
    }

    @Test func membersAreSortedAndTheTextIsCompact() {
        let v: JSONValue = ["b": [1, 2.5, "x"], "a": ["z": true, "y": .null], "c": "q\"\n"]
        #expect(v.jsonText == #"{"a":{"y":null,"z":true},"b":[1,2.5,"x"],"c":"q\"\n"}"#)
        #expect(JSONValue.double(.infinity).jsonText == "null")
        #expect(JSONValue.double(16).jsonText == "16")
    }

    /// `v` with whole-number doubles as integers (how they read back).
    static func normalized(_ v: JSONValue) -> JSONValue {
        switch v {
        case .double(let d): return JSONValue.number(d)
        case .array(let a): return .array(a.map(normalized))
        case .object(let o): return .object(o.mapValues(normalized))
        default: return v
        }
    }
}
