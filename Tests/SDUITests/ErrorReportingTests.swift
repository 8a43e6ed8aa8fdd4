// SDUIErrorTests.swift - categories from the C table and the printed form.
import CSDUI
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct SDUIErrorTests {
    @Test func everyCStatusMapsToACategory() {
        var names: [String] = []
        for raw in 1..<Int(SDUI_STATUS_COUNT_.rawValue) {
            let status = sdui_status(UInt32(raw))
            var err = sdui_error()
            sdui_error_clear(&err)
            let e = SDUIError(status, err, input: "x")
            #expect(e.category != .unknown, "status \(raw)")
            #expect(e.category.rawValue == String(cString: sdui_status_name(status)))
            names.append(e.category.rawValue)
        }
        #expect(Set(names).count == names.count)
        #expect(String(cString: sdui_status_name(sdui_status(9999))) == "unknown")
    }

    @Test func descriptionNamesInputAndPlace() {
        let e = SDUIError(.json, "unexpected character", input: "a.json", offset: 12, line: 2, column: 5)
        #expect(e.description == "json: a.json: line 2, column 5 (byte 12): unexpected character")
        #expect(SDUIError(.gzip, "bad", input: "p.gz", offset: 3).description == "gzip: p.gz: byte 3: bad")
        #expect(SDUIError(.io, "gone").description == "io: gone")
    }

    /// Each category a user can cause, caused for real.
    @Test func eachUserCategoryComesFromRealInput() throws {
        expectError(.io) { _ = try CorePack(contentsOf: URL(fileURLWithPath: "/nonexistent/p.gz")) }
        expectError(.gzip) { _ = try CorePack(data: Data([0x1f, 0x8b, 8])) }
        expectError(.json) { _ = try DesignToken(json: "{") }
        expectError(.schema) { _ = try DesignToken(json: "{}") }
        expectError(.limit) { _ = try CorePack(data: Fixtures.bomb(memberBytes: 1 << 20, members: 2),
                                                limits: PackLimits(maxInflatedBytes: 1 << 20)) }
        expectError(.argument) { _ = try TokenCache(maxEntries: -1) }
        expectError(.argument) { _ = try CorePackBuilder.gzip(Data("x".utf8), level: 13) }
        // not-found is an answer, not an error, in Swift: the C status becomes nil.
        #expect(try CorePack(data: Fixtures.pack(tokens: [])).token("a") == nil)
    }

    @Test func jsonSyntaxErrorsInScreensAndThemesNameTheirPlace() throws {
        let bad = Data("{\"id\": \"s\",\n  \"tokens\": [x]}".utf8)
        for parse in [{ _ = try ScreenPayload(json: bad, source: "s.json") },
                      { _ = try Theme(json: bad, source: "s.json") },
                      { _ = try BlockScreen(json: bad, source: "s.json") },
                      { _ = try DTCGImport.theme(json: bad, id: "s", source: "s.json") }] as [() throws -> Void] {
            let e = try #require(throws: SDUIError.self, performing: parse)
            #expect(e.category == .json)
            #expect(e.line == 2 && e.column == 14 && e.offset == 25, "\(e)")
            #expect(e.description.hasPrefix("json: s.json: line 2, column 14 (byte 25): "), "\(e)")
        }
        // Valid JSON of the wrong shape keeps the decoder's account.
        let e = try #require(throws: SDUIError.self) { try BlockScreen(json: Data("[1]".utf8), source: "b.json") }
        #expect(e.line == nil && e.input == "b.json")
    }
}
