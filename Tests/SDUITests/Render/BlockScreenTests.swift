// BlockScreenTests.swift - block screens decoded, and files that are not one.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct BlockScreenTests {
    @Test func badBlockScreenFilesAreErrors() {
        #expect(throws: SDUIError.self) { try BlockScreen(json: Data(#"{"id":"x"}"#.utf8), source: "x.json") }
        #expect(throws: SDUIError.self) { try BlockScreen(json: Data(#"{"id":"x","blocks":{}}"#.utf8)) }
        #expect(throws: SDUIError.self) { try BlockScreen(json: Data("nope".utf8)) }
    }

    @Test func aBlockScreenDecodesItsFields() throws {
        let s = try BlockScreen(json: Data(#"{"id":"s","type":"standard","themeId":"t","blocks":[{"type":"spacer","size":"md"}]}"#.utf8))
        #expect(s == BlockScreen(id: "s", type: "standard", themeId: "t", blocks: [.object(["type": "spacer", "size": "md"])]))
        let bare = try BlockScreen(json: Data(#"{"id":"b","blocks":[]}"#.utf8))
        #expect(bare.type == nil && bare.themeId == nil && bare.blocks.isEmpty)
    }

    /// A block's fields keep their numbers as written: `3.0` a decimal.
    @Test func aDecimalInABlockStaysADecimal() throws {
        let s = try BlockScreen(json: Data(#"{"id":"s","blocks":[{"type":"spacer","height":3.0,"n":3}]}"#.utf8))
        #expect(s.blocks.first?["height"] == .double(3.0))
        #expect(s.blocks.first?["n"] == .int(3))
    }

    /// An integer past 2^63 in a block is refused by the core's parser,
    /// naming the input and the place (JSONDecoder took it as a double).
    @Test func anIntegerPast2To63IsRefused() throws {
        let json = Data(#"{"id":"s","blocks":[{"type":"spacer","height":-92233720368547758090}]}"#.utf8)
        let e = try #require(throws: SDUIError.self) { try BlockScreen(json: json, source: "b.json") }
        #expect(e.category == .json && e.input == "b.json" && e.line == 1 && e.offset == 67, "\(e)")
        #expect(e.message.contains("integer"), "\(e)")
    }

    /// Layout blocks may nest deeper than the core's default bound of 128
    /// levels of JSON, as they did under JSONDecoder: 200 blocks (402
    /// levels) decode; 300 (602 levels) pass ``BlockScreen/maxDepth``, a
    /// limit error naming the input and the place.
    @Test func blocksNestAsDeepAsBefore() throws {
        func nested(_ n: Int) -> Data {
            Data((#"{"id":"s","blocks":["# + String(repeating: #"{"type":"column","blocks":["#, count: n)
                  + String(repeating: "]}", count: n) + "]}").utf8)
        }
        let s = try BlockScreen(json: nested(200), source: "deep.json")
        #expect(s.blocks.count == 1)
        let e = try #require(throws: SDUIError.self) { try BlockScreen(json: nested(300), source: "deep.json") }
        #expect(e.category == .limit && e.input == "deep.json" && e.line == 1, "\(e)")
    }
}
