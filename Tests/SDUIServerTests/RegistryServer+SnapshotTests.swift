// RegistryServer+SnapshotTests.swift - the snapshot kept current: new versions without a restart, a restored store, an outage in /health.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryServerSnapshotTests: RegistryServerFixtures {
    /// A store that can be swapped for another or made to fail, as a
    /// restored database or an outage looks to a running server.
    final class SwitchableStore: RegistryStore, @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var current: any RegistryStore
        private var failing = false
        init(_ store: any RegistryStore) { current = store }
        func swap(to store: any RegistryStore) { lock.withLock { current = store } }
        func fail(_ on: Bool) { lock.withLock { failing = on } }
        private func store() throws -> any RegistryStore {
            try lock.withLock {
                if failing { throw RegistryError(.store, "switched off", subject: "test") }
                return current
            }
        }
        func migrate() async throws { try await store().migrate() }
        func verifySchema() async throws { try await store().verifySchema() }
        func pruneEvents(receivedBefore cutoff: Date?, keepingNewest keep: Int?) async throws -> Int {
            try await store().pruneEvents(receivedBefore: cutoff, keepingNewest: keep)
        }
        func publish(_ tokens: [StoredToken]) async throws -> Int { try await store().publish(tokens) }
        func putScreens(_ screens: [StoredScreen]) async throws { try await store().putScreens(screens) }
        func generation() async throws -> Int64 { try await store().generation() }
        func putFlows(_ flows: [StoredFlow]) async throws { try await store().putFlows(flows) }
        func putExperiments(_ experiments: [StoredExperiment]) async throws { try await store().putExperiments(experiments) }
        func putCatalogs(_ catalogs: [StoredCatalog]) async throws -> Int { try await store().putCatalogs(catalogs) }
        func storeEvents(_ events: [StoredEvent]) async throws -> EventStoreResult {
            try await store().storeEvents(events)
        }
        func events(limit: Int) async throws -> [StoredEvent] { try await store().events(limit: limit) }
        func tokenUsage(fromMilliseconds from: Int64, toMilliseconds to: Int64) async throws -> [String: Int] {
            try await store().tokenUsage(fromMilliseconds: from, toMilliseconds: to)
        }
        func experimentExposures(key: String) async throws -> [ExposureCount] {
            try await store().experimentExposures(key: key)
        }
        func changes(after seq: Int64) async throws -> RegistryChanges {
            try await store().changes(after: seq)
        }
        func close() async throws {}
    }

    /// Asks `path` every 50 ms until `done` holds or 20 s pass; the last answer.
    func poll(_ r: RunningRegistry, _ path: String, until done: (HTTPAnswer) -> Bool) async throws -> HTTPAnswer {
        var last = try await get(r, path, [:])
        for _ in 0..<400 where !done(last) {
            try await Task.sleep(for: .milliseconds(50))
            last = try await get(r, path, [:])
        }
        return last
    }

    @Test(arguments: StoreKind.allCases)
    func publishedVersionsAppearWithoutARestart(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            let before = try await get(r, "design-tokens?ids=plain")
            try await store.publish([stored("plain", version: 2, props: #"{"text":"new"}"#)])
            try await r.server.refresh()
            let after = try await get(r, "design-tokens?ids=plain")
            #expect(after.header("ETag") != before.header("ETag"))
            #expect(try DesignToken(json: try HTTPRegistryTransport.elements(of: after.body, source: "t")[0]).version == 2)
            // An old ETag now answers 200, not 304.
            #expect(try await get(r, "design-tokens?ids=plain",
                                  ["X-Primitives": Self.modern, "If-None-Match": before.header("ETag")!]).status == 200)
            await r.stop()
        }
    }

    @Test func restoredStoreIsReloadedAndAnOutageShowsInHealth() async throws {
        try await withStore(.sqlite) { big in
            try await Self.seed(big)   // generation 6
            try await withStore(.sqlite) { small in
                try await small.publish([stored("only")])   // generation 1
                let store = SwitchableStore(big)
                let r = try await startServer(store) { $0.healthStaleAfter = .milliseconds(1500) }
                #expect(try await get(r, "design-tokens?ids=plain").status == 200)
                // Polled, not timed: a loaded machine may delay a refresh past the window.
                let health = try await poll(r, "health") { $0.status == 200 }
                #expect(health.status == 200 && health.json?["status"] as? String == "ok" && health.json?["generation"] as? Int == 6)
                // The database is restored to an older state: its sequence went backwards.
                store.swap(to: small)
                try await r.server.refresh()
                #expect(try await get(r, "design-tokens?ids=plain").status == 404)
                #expect(try await get(r, "design-tokens?ids=only").status == 200)
                // The store stops answering: requests are still served from the snapshot, health turns 503.
                store.fail(true)
                let stale = try await poll(r, "health") { $0.status == 503 }
                #expect(try await get(r, "design-tokens?ids=only").status == 200)
                #expect(stale.status == 503 && stale.json?["status"] as? String == "stale")
                store.fail(false)
                #expect(try await poll(r, "health") { $0.status == 200 }.status == 200)
                await r.stop()
            }
        }
    }

    /// Breaks the real database under a running server (its `registry_meta`
    /// table renamed away, by another client), or mends it.
    static func breakDatabase(_ store: any RegistryStore, _ broken: Bool) throws {
        let (from, to) = broken ? ("registry_meta", "registry_meta_off") : ("registry_meta_off", "registry_meta")
        try executeSQL("ALTER TABLE \(from) RENAME TO \(to)", on: store)
    }

    /// The value of an unlabeled family in a `/metrics` page.
    static func value(_ name: String, in page: String) -> Double? {
        page.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    /// A database outage is logged once when refreshes start failing and
    /// once when they work again, and shows on /metrics: the failures
    /// counted, and the seconds since the store last answered.
    @Test(arguments: StoreKind.allCases)
    func anOutageIsLoggedOnceAndRecoveryOnceAndShowsOnMetrics(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await Self.seed(store)
            let log = CapturedLog()
            var c = RegistryServerConfiguration()
            c.port = 0
            c.refreshInterval = .milliseconds(50)
            let r = try await RegistryServer(store: store, configuration: c, logger: log.logger).start()
            let start = try await get(r, "metrics", [:]).text
            #expect(Self.value("sdui_registry_refresh_failures_total", in: start) == 0, "the counter exists from the start")
            #expect(Self.value("sdui_registry_refresh_age_seconds", in: start) != nil)
            try Self.breakDatabase(store, true)
            let failing = try await poll(r, "metrics") { (Self.value("sdui_registry_refresh_failures_total", in: $0.text) ?? 0) >= 5 }
            let failures = try #require(Self.value("sdui_registry_refresh_failures_total", in: failing.text))
            #expect(failures >= 5)
            // Five failed refreshes 50 ms apart: the store last answered at least 0.25 s ago.
            #expect((Self.value("sdui_registry_refresh_age_seconds", in: failing.text) ?? 0) >= 0.25, "\(failing.text)")
            try Self.breakDatabase(store, false)
            _ = try await poll(r, "metrics") { _ in
                log.lines.withLockedValue { $0.contains { $0.contains("registry refresh works again") } }
            }
            // Refreshes answer again every 50 ms: the age falls back (sampled
            // until it does, so a slow machine does not fail a single sample).
            let mended = try await poll(r, "metrics") { (Self.value("sdui_registry_refresh_age_seconds", in: $0.text) ?? 99) < 0.25 }
            #expect((Self.value("sdui_registry_refresh_age_seconds", in: mended.text) ?? 99) < 0.25, "\(mended.text)")
            await r.stop()
            let lines = log.lines.withLockedValue { $0 }
            let failed = lines.filter { $0.contains("registry refresh failed") }
            let worked = lines.filter { $0.contains("registry refresh works again") }
            #expect(failed.count == 1, "\(failed)")
            #expect(failed.first?.contains("registry_meta") == true, "the store's error is logged: \(failed)")
            #expect(worked.count == 1 && worked.first?.contains("failedRefreshes=") == true, "\(worked)")
        }
    }
}
#endif
