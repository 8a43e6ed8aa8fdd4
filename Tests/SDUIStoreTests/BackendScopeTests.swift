// BackendScopeTests.swift - the backend scope against a real loopback
// server that fails and recovers: durable queue, push when reachable,
// last-writer-wins with the losing patch reported.
import Foundation
import SDUICore
@testable import SDUIStore
import SDUITestSupport
import Testing

/// Waits (polling) until `condition` holds or about 30 s pass (a loaded
/// machine running the whole suite is slow to retry).
func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<3000 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

@Suite struct BackendScopeTests {
    @Test func changesMadeOfflineAreKeptAndPushedWhenTheServerReturns() async throws {
        let server = LoopbackStoreBackend()
        try await server.start()
        let port = server.port
        await server.stop()                               // offline: connections refused
        let dir = Fixtures.temporaryDirectory()
        let adapter = HTTPBackendAdapter(baseURL: server.baseURL, client: patientClient)
        do {
            let s = DefaultStore(appID: "app", directory: dir, backend: adapter).store(.backend(namespace: "prefs"))
            s.set("theme", "dark")
            s.set("volume", 7)
            #expect(s.get("theme") == "dark")
            #expect(s.queuedBackendPatches == 2)
            await #expect(throws: SDUIError.self) { _ = try await s.syncBackend() }
            #expect(s.queuedBackendPatches == 2)
        }
        // A new store (as after a relaunch) finds the queue on disk, and its
        // flusher pushes once the server is back.
        let s = DefaultStore(appID: "app", directory: dir, backend: adapter).store(.backend(namespace: "prefs"))
        #expect(s.get("volume") == 7)
        #expect(s.queuedBackendPatches == 2)
        try await server.start(port: port)
        defer { Task { await server.stop() } }
        #expect(try await eventually { s.queuedBackendPatches == 0 })
        #expect(server.state.withLockedValue { $0.root } == ["theme": "dark", "volume": 7])
    }

    @Test func aServerFailureKeepsTheQueueAndTheRetrySucceeds() async throws {
        let server = LoopbackStoreBackend()
        try await server.start()
        defer { Task { await server.stop() } }
        server.state.withLockedValue { $0.failing = true }
        let adapter = HTTPBackendAdapter(baseURL: server.baseURL, client: patientClient)
        let s = DefaultStore(appID: "app", directory: Fixtures.temporaryDirectory(), backend: adapter)
            .store(.backend(namespace: "cart", scenarioID: "checkout"))
        s.set("cart.total", 12)
        let e = await #expect(throws: SDUIError.self) { _ = try await s.syncBackend() }
        #expect(e?.category == .http)
        #expect(s.queuedBackendPatches == 1)
        server.state.withLockedValue { $0.failing = false }
        #expect(try await eventually { s.queuedBackendPatches == 0 })
        #expect(server.state.withLockedValue { $0.root } == ["cart": ["total": 12]])
    }

    @Test func lastWriterWinsAndTheLosingPatchIsReported() async throws {
        let server = LoopbackStoreBackend()
        try await server.start()
        defer { Task { await server.stop() } }
        server.state.withLockedValue { $0.failing = true }
        let adapter = HTTPBackendAdapter(baseURL: server.baseURL, client: patientClient)
        let s = DefaultStore(appID: "app", directory: Fixtures.temporaryDirectory(), backend: adapter)
            .store(.backend(namespace: "n"))
        s.set("title", "mine (older)")
        s.set("note", "only mine")
        // Another client wrote the title later, while this one was offline.
        try server.write("title", "theirs (newer)", at: Int64(Date().timeIntervalSince1970 * 1000) + 60_000)
        try server.write("other", "theirs", at: 1)
        let titles = first(2, of: s.values(for: "title"))
        server.state.withLockedValue { $0.failing = false }
        var report = try await s.syncBackend()
        if report.pushed == 0 && report.conflicts.isEmpty {
            // The flusher pushed first; the pull still brings the rest.
            report = try await s.syncBackend()
        }
        #expect(s.get("title") == "theirs (newer)")
        #expect(s.get("note") == "only mine")
        #expect(s.get("other") == "theirs")
        #expect(await titles.value == ["mine (older)", "theirs (newer)"])
        #expect(s.queuedBackendPatches == 0)
        // Pulled values are not pushed back.
        try await Task.sleep(for: .milliseconds(100))
        #expect(s.queuedBackendPatches == 0)
        #expect(server.value(at: "title") == "theirs (newer)")
    }

    @Test func conflictsAreReportedBySync() async throws {
        let server = LoopbackStoreBackend()
        try await server.start()
        defer { Task { await server.stop() } }
        let adapter = HTTPBackendAdapter(baseURL: server.baseURL, client: patientClient)
        // No flusher interference: push by hand with the adapter.
        let old = BackendPatch(op: .set, keyPath: "x", value: "old", timestamp: 10)
        try server.write("x", "new", at: 20)
        let r = try await adapter.push(namespace: "n", scenarioID: nil, patches: [old])
        #expect(r.accepted.isEmpty)
        #expect(r.conflicts == [BackendConflict(patch: old, serverValue: "new", serverTimestamp: 20)])
        let again = try await adapter.push(namespace: "n", scenarioID: nil,
                                           patches: [BackendPatch(id: old.id, op: .set, keyPath: "y", value: 1, timestamp: 30)])
        #expect(again.accepted == [old.id])
        let twice = try await adapter.push(namespace: "n", scenarioID: nil, patches: [BackendPatch(id: old.id, op: .set, keyPath: "y", value: 2, timestamp: 40)])
        #expect(twice.accepted == [old.id])
        #expect(server.value(at: "y") == 1, "an id seen twice is applied once")
    }
}
