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

    /// A store that only counts how often it was closed, and can fail to close.
    final class ClosingProbe: RegistryStore, @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var count = 0
        let closeFails: Bool
        init(closeFails: Bool = false) { self.closeFails = closeFails }
        var closes: Int { lock.withLock { count } }
        func migrate() async throws {}
        func publish(_ tokens: [StoredToken]) async throws -> Int { 0 }
        func putScreens(_ screens: [StoredScreen]) async throws {}
        func generation() async throws -> Int64 { 0 }
        func putFlows(_ flows: [StoredFlow]) async throws {}
        func storeEvents(_ events: [StoredEvent]) async throws -> (accepted: Int, duplicates: Int) { (0, 0) }
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
