// RegistryStoreTests.swift - SQLite and PostgreSQL stores: one suite, both stores.
import Foundation
import SDUI
@testable import SDUIServer
import PostgresNIO
import SDUITestSupport
import Testing

@Suite struct RegistryStoreTests {
    @Test(arguments: StoreKind.allCases)
    func publishSkipsRepeatsAndRefusesChangedVersions(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            #expect(try await store.generation() == 0)
            #expect(try await store.publish([stored("a"), stored("b"), stored("a", version: 2)]) == 3)
            #expect(try await store.generation() == 3)
            // The same rows again: nothing new, the sequence does not move.
            #expect(try await store.publish([stored("a"), stored("b")]) == 0)
            #expect(try await store.generation() == 3)
            // A published version never changes, and a failing batch writes nothing.
            do {
                try await store.publish([stored("c"), stored("a", props: #"{"text":"changed"}"#)])
                Issue.record("a changed version was accepted")
            } catch let e as RegistryError {
                #expect(e.code == .conflict && e.subject == "a")
            }
            let all = try await store.changes(after: 0)
            #expect(all.tokens.map { "\($0.id)@\($0.version)" } == ["a@1", "b@1", "a@2"])
            #expect(all.tokens.map(\.seq) == [1, 2, 3])
            #expect(all.tokens[0].json == stored("a").json)
            try await store.migrate()   // idempotent, keeps the rows
            #expect(try await store.changes(after: 0).tokens.count == 3)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func screensAreReplacedAndChangesAreIncremental(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await store.publish([stored("a")])
            try await store.putScreens([screen("home", ["a"]), screen("checkout", ["a"], fallback: "checkout_offline")])
            let g = try await store.generation()
            #expect(g == 3)
            try await store.putScreens([screen("home", ["a", "b"])])
            try await store.publish([stored("b")])
            let later = try await store.changes(after: g)
            #expect(later.tokens.map(\.id) == ["b"])
            #expect(later.screens.map(\.id) == ["home"])
            #expect(later.screens[0].payload == screen("home", ["a", "b"]).payload)
            let all = try await store.changes(after: 0)
            #expect(all.screens.map(\.id) == ["checkout", "home"])
            #expect(all.screens[0].fallbackScreenID == "checkout_offline")
            #expect(all.screens[1].fallbackScreenID == nil)
            #expect(try await store.changes(after: try await store.generation()).tokens.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentPublishersGetDistinctOrderedSequences(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for w in 0..<4 {
                    group.addTask {
                        for i in 0..<10 { try await store.publish([stored("w\(w)-\(i)")]) }
                    }
                }
                try await group.waitForAll()
            }
            let all = try await store.changes(after: 0)
            #expect(all.tokens.count == 40)
            #expect(all.tokens.map(\.seq) == Array(1...40).map(Int64.init))
            #expect(try await store.generation() == 40)
        }
    }

    @Test func requireTLSIsAccepted() async throws {
        let store = try PostgresRegistryStore(url: "postgres://u:p@127.0.0.1:1/d?sslmode=require")
        try await store.close()
    }

    @Test(arguments: StoreKind.allCases)
    func unicodeEquivalentButDifferentBytesIsAConflict(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await store.publish([stored("u", props: #"{"text":"caf\u{E9}"}"#)])   // precomposed é
            do {
                try await store.publish([stored("u", props: #"{"text":"cafe\u{301}"}"#)])   // e + combining accent
                Issue.record("NFD bytes were taken for the published NFC version")
            } catch let e as RegistryError {
                #expect(e.code == .conflict)
            }
        }
    }

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

    @Test func badPostgresURLsAndSchemasAreErrors() {
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "mysql://x@y/z") }
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "postgres://u@h/d", schema: "a; DROP") }
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "postgres://u@h/d", schema: "Upper") }
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "postgres://u@h/d?sslmode=verify-full") }
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "postgres://u@h/d?application_name=x") }
        // The designated initializer checks the schema too: it is spliced into CREATE SCHEMA.
        let config = PostgresClient.Configuration(host: "h", username: "u", password: nil, database: "d", tls: .disable)
        #expect(throws: RegistryError.self) {
            try PostgresRegistryStore(configuration: config, name: "h", schema: "x; DROP TABLE design_tokens")
        }
    }

    @Test func unreachablePostgresIsAStoreError() async throws {
        let store = try PostgresRegistryStore(url: "postgres://nobody:x@127.0.0.1:1/none", startupTimeout: .seconds(2))
        do {
            try await store.migrate()
            Issue.record("reached a server on port 1")
        } catch let e as RegistryError {
            #expect(e.code == .store && e.subject == "127.0.0.1:1/none")
        }
        try await store.close()
    }
}
