// RegistryStoreTests.swift - the store contract, run against SQLite and PostgreSQL alike, and closing().
#if Server
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

    /// Retention deletes by the server's receipt time, not the client's
    /// timestamp, and by count keeps the newest; what is left stays in
    /// order, and a pruned id is a new event when it comes again.
    @Test(arguments: StoreKind.allCases)
    func eventsArePrunedByReceiptTimeAndByCount(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            func batch(_ prefix: String, _ n: Int, timestamp: Int64) -> [StoredEvent] {
                (0..<n).map { StoredEvent(id: "\(prefix)\($0)", name: "n", flowID: "f", userID: "u", timestamp: timestamp,
                                         json: Data("{}".utf8)) }
            }
            // The older batch claims a client time far in the future; the newer one 1970.
            _ = try await store.storeEvents(batch("old", 8, timestamp: 4_000_000_000_000))
            try await Task.sleep(for: .milliseconds(30))
            let cutoff = Date()
            try await Task.sleep(for: .milliseconds(30))
            _ = try await store.storeEvents(batch("new", 12, timestamp: 0))
            #expect(try await store.pruneEvents(receivedBefore: nil, keepingNewest: 100) == 0)
            #expect(try await store.pruneEvents(receivedBefore: nil, keepingNewest: nil) == 0)
            #expect(try await store.pruneEvents(receivedBefore: cutoff, keepingNewest: nil) == 8)
            #expect(try await store.events(limit: 100).map(\.id) == (0..<12).map { "new\($0)" })
            #expect(try await store.pruneEvents(receivedBefore: cutoff, keepingNewest: 5) == 7)
            #expect(try await store.events(limit: 100).map(\.id) == (7..<12).map { "new\($0)" })
            #expect(try await store.storeEvents(batch("new", 1, timestamp: 0)).accepted == 1, "new0 was pruned: new again")
            #expect(try await store.pruneEvents(receivedBefore: nil, keepingNewest: 0) == 6)
            #expect(try await store.events(limit: 100).isEmpty)
        }
    }

    /// Counting the newest to keep walks the rows a few at a time on SQLite,
    /// across gaps in the numbers (an event sent again takes a number and
    /// stores nothing): exactly the newest `keep` stay.
    @Test func theSQLiteCountWalkKeepsExactlyTheNewestAcrossGaps() async throws {
        let store = try await makeStore(.sqlite)
        try await store.closing {
            let sqlite = try #require(store as? SQLiteRegistryStore)
            await sqlite.setWalkStep(3)
            func event(_ id: String) -> StoredEvent {
                StoredEvent(id: id, name: "n", flowID: "f", userID: "u", timestamp: 0, json: Data("{}".utf8))
            }
            for i in 0..<20 {
                _ = try await store.storeEvents([event("e\(i)")])
                _ = try await store.storeEvents([event("e\(i)")])   // a duplicate: a gap in the numbers
            }
            for (keep, left) in [(25, 20), (20, 20), (13, 13), (7, 7), (1, 1), (0, 0)] {
                _ = try await store.pruneEvents(receivedBefore: nil, keepingNewest: keep)
                #expect(try await store.events(limit: 100).map(\.id) == (20 - left..<20).map { "e\($0)" }, "keep \(keep)")
            }
        }
    }

    /// A store without tables, or with the first layout, fails the schema
    /// check with what to do, and the check changes nothing; migrate
    /// upgrades the first layout keeping its events (received at the
    /// upgrade); a newer schema is refused by both.
    @Test(arguments: StoreKind.allCases)
    func theSchemaIsCheckedWithoutChangesAndUpgradedByMigrate(kind: StoreKind) async throws {
        let store = try await makeUnmigratedStore(kind)
        try await store.closing {
            await #expect(throws: RegistryError.self) { try await store.verifySchema() }
            do {
                try await store.verifySchema()
            } catch let e as RegistryError {
                #expect(e.code == .store && e.message.contains("no tables") && e.message.contains("sdui registry migrate"), "\(e)")
            }
            // The first layout, as an earlier build made it, with an event.
            try executeSQL("""
                CREATE TABLE design_tokens (id TEXT NOT NULL, version INTEGER NOT NULL, json TEXT NOT NULL,
                  primitive_version INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (id, version));
                CREATE TABLE screens (id TEXT PRIMARY KEY, payload TEXT NOT NULL, fallback_screen_id TEXT, seq INTEGER NOT NULL);
                CREATE TABLE flows (id TEXT PRIMARY KEY, json TEXT NOT NULL, seq INTEGER NOT NULL);
                CREATE TABLE flow_events (n \(kind == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "bigserial PRIMARY KEY"),
                  id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, flow_id TEXT NOT NULL, user_id TEXT NOT NULL,
                  ts BIGINT NOT NULL, json TEXT NOT NULL);
                CREATE TABLE registry_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
                INSERT INTO registry_meta (key, value) VALUES ('seq', 0);
                INSERT INTO flow_events (id, name, flow_id, user_id, ts, json) VALUES ('kept', 'n', 'f', 'u', 0, '{}');
                """, on: store)
            for _ in 0..<2 {   // checking twice: the check changed nothing
                do {
                    try await store.verifySchema()
                    Issue.record("the first layout passed the check")
                } catch let e as RegistryError {
                    #expect(e.message.contains("version 1, older") && e.message.contains("sdui registry migrate"), "\(e)")
                }
            }
            let before = Date()
            try await store.migrate()
            try await store.verifySchema()
            #expect(try await store.events(limit: 10).map(\.id) == ["kept"])
            #expect(try await store.pruneEvents(receivedBefore: before.addingTimeInterval(-60), keepingNewest: nil) == 0,
                    "an upgraded event counts as received at the upgrade, not at 0")
            _ = try await store.storeEvents([StoredEvent(id: "after", name: "n", flowID: "f", userID: "u", timestamp: 0,
                                                         json: Data("{}".utf8))])
            // A schema from a later build: both refuse it, and migrate changes nothing.
            let newer = RegistrySchema.version + 1
            try executeSQL("UPDATE registry_meta SET value = \(newer) WHERE key = 'schema'", on: store)
            for attempt in [store.verifySchema, store.migrate] {
                do {
                    try await attempt()
                    Issue.record("a newer schema was taken")
                } catch let e as RegistryError {
                    #expect(e.message.contains("version \(newer), newer than this build's \(RegistrySchema.version)"), "\(e)")
                }
            }
            // Version 2 (no experiments table) is upgraded to 3 by migrate.
            try executeSQL("DROP TABLE experiments; UPDATE registry_meta SET value = 2 WHERE key = 'schema'", on: store)
            await #expect(throws: RegistryError.self) { try await store.verifySchema() }
            try await store.migrate()
            try await store.verifySchema()
            try await store.putExperiments([StoredExperiment(key: "k", json: Data(#"{"key":"k"}"#.utf8))])
            #expect(try await store.changes(after: 0).experiments.map(\.key) == ["k"])
            #expect(try await store.events(limit: 10).map(\.id) == ["kept", "after"])
        }
    }

    /// A store that only counts how often it was closed, and can fail to close.
    final class ClosingProbe: RegistryStore, @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var count = 0
        let closeFails: Bool
        init(closeFails: Bool = false) { self.closeFails = closeFails }
        var closes: Int { lock.withLock { count } }
        func migrate() async throws {}
        func verifySchema() async throws {}
        func pruneEvents(receivedBefore cutoff: Date?, keepingNewest keep: Int?) async throws -> Int { 0 }
        func publish(_ tokens: [StoredToken]) async throws -> Int { 0 }
        func putScreens(_ screens: [StoredScreen]) async throws {}
        func generation() async throws -> Int64 { 0 }
        func putFlows(_ flows: [StoredFlow]) async throws {}
        func putExperiments(_ experiments: [StoredExperiment]) async throws {}
        func putCatalogs(_ catalogs: [StoredCatalog]) async throws -> Int { 0 }
        func storeEvents(_ events: [StoredEvent]) async throws -> EventStoreResult { EventStoreResult(stored: [], of: events.count) }
        func tokenUsage(fromMilliseconds from: Int64, toMilliseconds to: Int64) async throws -> [String: Int] { [:] }
        func experimentExposures(key: String) async throws -> [ExposureCount] { [] }
        func events(limit: Int) async throws -> [StoredEvent] { [] }
        func changes(after seq: Int64) async throws -> RegistryChanges { RegistryChanges() }
        func close() async throws {
            lock.withLock { count += 1 }
            if closeFails { throw RegistryError(.store, "close failed") }
        }
    }

    struct BodyFailed: Error {}

    /// `closing` closes the store once, after the body and when it throws;
    /// the body's error wins over a failing close.
    @Test func closingClosesAfterTheBodyAndWhenItThrows() async throws {
        let store = ClosingProbe()
        #expect(try await store.closing { 42 } == 42)
        #expect(store.closes == 1)
        await #expect(throws: BodyFailed.self) { try await store.closing { throw BodyFailed() } }
        #expect(store.closes == 2)
        let failing = ClosingProbe(closeFails: true)
        await #expect(throws: BodyFailed.self) { try await failing.closing { throw BodyFailed() } }
        #expect(failing.closes == 1)
        // A good body and a failing close: the close error, after one close.
        let closeOnly = ClosingProbe(closeFails: true)
        await #expect(throws: RegistryError.self) { try await closeOnly.closing { 1 } }
        #expect(closeOnly.closes == 1)
    }
}
#endif
