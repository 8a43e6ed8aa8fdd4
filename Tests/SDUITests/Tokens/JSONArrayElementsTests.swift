// JSONArrayElementsTests.swift - a JSON array's elements as exact byte ranges, refused one by one.
import Foundation
@testable import SDUI
import Testing

@Suite struct JSONArrayElementsTests {
    @Test func elementsAreTheirExactBytes() throws {
        let text = Data(#"[1, {"a":[2]} ,"x" ]"#.utf8)
        let elements = try JSONArrayElements.split(text, maxDepth: 10, source: "list")
        #expect(elements.map(\.range) == [1..<2, 4..<13, 15..<18])
        #expect(elements.map { String(decoding: text.subdata(in: $0.range), as: UTF8.self) } == ["1", #"{"a":[2]}"#, #""x""#])
        #expect(elements.allSatisfy { $0.refusal == nil })
        #expect(try JSONArrayElements.split(Data("[]".utf8), maxDepth: 10, source: "list").isEmpty)
    }

    /// An element nested too deep is refused alone; its neighbours are kept.
    @Test func aTooDeepElementIsRefusedAlone() throws {
        let text = Data(#"[1,{"a":[2]},"x"]"#.utf8)
        let elements = try JSONArrayElements.split(text, maxDepth: 1, source: "list")
        #expect(elements.count == 3)
        #expect(elements[0].refusal == nil && elements[2].refusal == nil)
        let refusal = try #require(elements[1].refusal)
        #expect(refusal.category == .limit)
        #expect(elements[1].range.contains(refusal.offset))
    }

    @Test func grammarErrorsNonArraysAndTooManyElementsFailTheWholeCall() {
        for bad in ["[1,", "{}", "\"x\"", "[1,,2]"] {
            let e = #expect(throws: SDUIError.self, "\(bad)") {
                _ = try JSONArrayElements.split(Data(bad.utf8), maxDepth: 10, source: "list")
            }
            #expect(e?.input == "list", "\(bad)")
        }
        let e = #expect(throws: SDUIError.self) {
            _ = try JSONArrayElements.split(Data("[1,2,3]".utf8), maxDepth: 10, maxElements: 2, source: "list")
        }
        #expect(e?.category == .limit)
    }
}
