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
}
