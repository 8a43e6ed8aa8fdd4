// ErrorReportingTests.swift - errors users cause, caused for real: categories and places.
import CSDUI
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing
import SDUIRegistryKit

@Suite struct ErrorReportingTests {
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
