// EventRetentionTests.swift - the server applies its event retention to either store, and a server that does not migrate issues no DDL.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct EventRetentionTests: RegistryServerFixtures {
    /// A running server keeps the newest events up to its bound: the rest
    /// are deleted by its pruner and counted on /metrics.
    @Test(arguments: StoreKind.allCases)
    func aRunningServerKeepsTheNewestEventsUpToItsBound(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let r = try await startServer(store) { c in
                c.eventRetention = EventRetention(maxAge: .seconds(86_400), maxCount: 5, interval: .milliseconds(100))
            }
            let client = HTTPClient(timeout: 30, maxBodyBytes: 1 << 20)
            for i in 0..<12 {
                let body = #"{"events":[{"id":"e\#(i)","name":"n","flowId":"f","userId":"u","timestamp":1}]}"#
                let a = try await client.post(URL(string: "events", relativeTo: r.baseURL)!.absoluteURL, body: Data(body.utf8),
                                              headers: ["Content-Type": "application/json"])
                #expect(a.status == 200)
            }
            var ids: [String] = []
            for _ in 0..<200 {
                ids = try await store.events(limit: 100).map(\.id)
                if ids.count == 5 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(ids == (7..<12).map { "e\($0)" })
            let metrics = try await get(r, "metrics", [:]).text
            #expect(metrics.contains("sdui_events_pruned_total 7"), "\(metrics)")
            await r.stop()
        }
    }

    /// Retention bounds are checked before the server starts.
    @Test func badRetentionIsRefusedAtStart() async throws {
        try await withStore(.sqlite) { store in
            for bad in [EventRetention(maxAge: .seconds(-1)), EventRetention(maxCount: -1),
                        EventRetention(interval: .zero)] {
                await #expect(throws: RegistryError.self) {
                    _ = try await startServer(store) { c in c.eventRetention = bad }
                }
            }
        }
    }

    /// A server that does not migrate refuses a store without tables, or
    /// with an older schema, saying to run `sdui registry migrate`, and
    /// changes nothing; once migrated, it serves.
    @Test(arguments: StoreKind.allCases)
    func aServerThatDoesNotMigrateChecksTheSchemaAndChangesNothing(kind: StoreKind) async throws {
        let store = try await makeUnmigratedStore(kind)
        try await store.closing {
            do {
                _ = try await startServer(store) { c in c.migrate = false }
                Issue.record("served without tables")
            } catch let e as RegistryError {
                #expect(e.message.contains("sdui registry migrate"), "\(e)")
            }
            // Still nothing there: the check made no table.
            await #expect(throws: RegistryError.self) { try await store.verifySchema() }
            try await store.migrate()
            let r = try await startServer(store) { c in c.migrate = false }
            #expect(try await get(r, "health").status == 200)
            await r.stop()
        }
    }
}
#endif
