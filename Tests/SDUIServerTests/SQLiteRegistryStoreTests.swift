// SQLiteRegistryStoreTests.swift - what is particular to the SQLite store: its file.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct SQLiteRegistryStoreTests {
    @Test func sqliteFileSurvivesReopening() async throws {
        let path = Fixtures.temporaryDirectory().appendingPathComponent("r.db").path
        let a = try await SQLiteRegistryStore(path: path)
        try await a.migrate()
        try await a.publish([stored("kept")])
        try await a.close()
        let b = try await SQLiteRegistryStore(path: path)
        try await b.migrate()
        #expect(try await b.changes(after: 0).tokens.map(\.id) == ["kept"])
        try await b.close()
    }
}
#endif
