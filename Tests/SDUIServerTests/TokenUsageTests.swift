// TokenUsageTests.swift - the usage loop's registry half: token_usage events
// counted per token in the database over a period, on both stores and on a
// million events, and the clients' cache_stats and unknown_primitive reports
// as Prometheus counters.
#if Server
import Foundation
import SDUI
import SDUIRegistryKit
@testable import SDUIServer
import PostgresNIO
import SDUITestSupport
import Testing

@Suite struct TokenUsageTests {
    /// An event of `name` at `ts` with `properties` (JSON text).
    static func event(_ id: String, _ name: String = "token_usage", ts: Int64, _ properties: String) -> StoredEvent {
        let json = #"{"id":"\#(id)","name":"\#(name)","flowId":"","flowVersion":"","session":"s","timestamp":\#(ts),"seq":1,"userId":"u","properties":\#(properties)}"#
        return StoredEvent(id: id, name: name, flowID: "", userID: "u", timestamp: ts, json: Data(json.utf8))
    }

    static func tokens(_ ids: [String]) -> String {
        #"{"tokens":["# + ids.map { #"{"id":"\#($0)","version":1,"source":"pack"}"# }.joined(separator: ",") + "]}"
    }

    static let week = try! UsagePeriod(isoWeek: "2026-W48")

    @Test func periodsAreISOWeeksOrDays() throws {
        let w = try UsagePeriod(isoWeek: "2026-W48")
        #expect(ISO8601DateFormatter().string(from: w.from) == "2026-11-23T00:00:00Z")
        #expect(ISO8601DateFormatter().string(from: w.to) == "2026-11-30T00:00:00Z")
        // 2026 has 53 ISO weeks; 2025 has 52; week 1 of 2026 starts in 2025.
        #expect(ISO8601DateFormatter().string(from: try UsagePeriod(isoWeek: "2026-W53").from) == "2026-12-28T00:00:00Z")
        #expect(ISO8601DateFormatter().string(from: try UsagePeriod(isoWeek: "2026-W01").from) == "2025-12-29T00:00:00Z")
        for bad in ["2025-W53", "2026-W00", "2026-W54", "2026W48", "2026-48", "26-W48", "2026-W4", "2026-W١٢", ""] {
            #expect(throws: RegistryError.self, "\(bad)") { try UsagePeriod(isoWeek: bad) }
        }
        let days = try UsagePeriod(fromDay: "2026-11-01", toDay: "2026-11-30")
        #expect(days.name == "2026-11-01..2026-11-30")
        #expect(days.toMilliseconds - days.fromMilliseconds == 30 * 86_400_000)
        for (a, b) in [("2026-11-30", "2026-11-01"), ("2026-02-30", "2026-03-01"), ("2026-1-01", "2026-01-02")] {
            #expect(throws: RegistryError.self, "\(a) \(b)") { try UsagePeriod(fromDay: a, toDay: b) }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func usageCountsTheTokensShownInThePeriod(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let inside = Self.week.fromMilliseconds, last = Self.week.toMilliseconds - 1
            _ = try await store.storeEvents([
                Self.event("1", ts: inside, Self.tokens(["a", "b"])),
                Self.event("2", ts: last, Self.tokens(["a"])),
                Self.event("3", ts: Self.week.toMilliseconds, Self.tokens(["a"])),           // the next week
                Self.event("4", ts: inside - 1, Self.tokens(["b"])),                          // the week before
                Self.event("5", "screen_view", ts: inside, Self.tokens(["a"])),               // another kind
                Self.event("6", ts: inside, #"{"tokens":{"id":"a"}}"#),                       // not an array
                Self.event("7", ts: inside, #"{"tokens":[{"id":7},{"version":1},"a",{"id":"c"}]}"#),
                Self.event("8", ts: inside, #"{"tokens":[{"id":"a"}],"note":"\u0000"}"#),     // skipped on both stores
                Self.event("9", ts: inside, #"{}"#),
            ])
            let counts = try await store.tokenUsage(fromMilliseconds: Self.week.fromMilliseconds,
                                                    toMilliseconds: Self.week.toMilliseconds)
            #expect(counts == ["a": 2, "b": 1, "c": 1])
            #expect(try await store.tokenUsage(fromMilliseconds: 0, toMilliseconds: 1).isEmpty)
        }
    }

    /// One million stored events, aggregated by the database: the counts
    /// are exact (the closing note gives the time of `sdui registry usage`).
    @Test(arguments: StoreKind.allCases)
    func aMillionEventsAreCountedInTheDatabase(kind: StoreKind) async throws {
        let n = 1_000_000
        let from = Self.week.fromMilliseconds, to = Self.week.toMilliseconds
        // Event i shows t(i % 100) and u(i % 7); every tenth lies after the week.
        let json = """
            '{"id":"e' || i || '","name":"token_usage","flowId":"","flowVersion":"","session":"s","timestamp":0,"seq":1,"userId":"u","properties":{"tokens":[{"id":"t' || (i % 100) || '","version":1,"source":"pack"},{"id":"u' || (i % 7) || '","version":2,"source":"network"}]}}'
            """
        let ts = "CASE WHEN i % 10 = 9 THEN \(to) + i ELSE \(from) + (i * 600) % \(to - from) END"
        try await withStore(kind) { store in
            switch kind {
            case .sqlite:
                let s = try #require(store as? SQLiteRegistryStore)
                _ = try await s.connection.query("""
                    WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < \(n - 1))
                    INSERT INTO flow_events (id, name, flow_id, user_id, ts, json, received_ms)
                    SELECT 'e' || i, 'token_usage', '', 'u', \(ts), \(json), 0 FROM c
                    """)
            case .postgres:
                let p = try #require(store as? PostgresRegistryStore)
                try await p.client.query(PostgresQuery(unsafeSQL: """
                    INSERT INTO flow_events (id, name, flow_id, user_id, ts, json, received_ms)
                    SELECT 'e' || i, 'token_usage', '', 'u', \(ts), \(json), 0 FROM generate_series(0, \(n - 1)) AS i
                    """), logger: p.logger)
            }
            var expected: [String: Int] = [:]
            for i in 0..<n where i % 10 != 9 {
                expected["t\(i % 100)", default: 0] += 1
                expected["u\(i % 7)", default: 0] += 1
            }
            let counts = try await store.tokenUsage(fromMilliseconds: from, toMilliseconds: to)
            #expect(counts.count == 97)   // t0…t99 but the ten ending in 9, and u0…u6
            #expect(counts == expected)
        }
    }

    func post(_ r: RunningRegistry, _ events: [StoredEvent]) async throws -> HTTPClientResponse {
        let body = #"{"events":["# + events.map { String(decoding: $0.json, as: UTF8.self) }.joined(separator: ",") + "]}"
        return try await HTTPClient(timeout: 30, maxBodyBytes: 1 << 20).post(
            URL(string: "events", relativeTo: r.baseURL)!.absoluteURL, body: Data(body.utf8),
            headers: ["Content-Type": "application/json"])
    }

    /// The value of the sample `name` (no labels) on a /metrics page.
    static func sample(_ page: String, _ name: String) -> Double? {
        for line in page.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// Exposures become `sdui_experiment_exposures_total` by experiment,
    /// variation and eligibility, once per stored event; bad ones are not
    /// counted.
    @Test func exposuresBecomeLabeledCountersOnce() async throws {
        try await withStore(.sqlite) { store in
            let server = try await startServer(store)
            func metrics() async throws -> String {
                String(decoding: try await HTTPClient(timeout: 30, maxBodyBytes: 1 << 22)
                    .get(URL(string: "metrics", relativeTo: server.baseURL)!.absoluteURL).body, as: UTF8.self)
            }
            #expect(Self.sample(try await metrics(), "sdui_experiment_exposures_unlabeled_total") == 0)
            let batch = [
                Self.event("x1", "experiment_exposure", ts: 1, #"{"experiment":"cta","variation":"green","eligible":true}"#),
                Self.event("x2", "experiment_exposure", ts: 1, #"{"experiment":"cta","variation":"green","eligible":true}"#),
                Self.event("x3", "experiment_exposure", ts: 1, #"{"experiment":"cta","variation":"green","eligible":false}"#),
                Self.event("x4", "experiment_exposure", ts: 1, #"{"experiment":"cta","variation":"control"}"#),
                Self.event("x5", "experiment_exposure", ts: 1, #"{"experiment":"","variation":"x"}"#),          // not counted
                Self.event("x6", "experiment_exposure", ts: 1, #"{"experiment":"cta","variation":"a\nb"}"#),    // not counted
            ]
            #expect(try await post(server, batch).status == 200)
            #expect(try await post(server, batch).status == 200)   // sent again: counted once
            let page = try await metrics()
            func count(_ labels: String) -> Double? { Self.sample(page, "sdui_experiment_exposures_total{\(labels)}") }
            #expect(count(#"experiment="cta",variation="green",eligible="true""#) == 2, "\(page)")
            #expect(count(#"experiment="cta",variation="green",eligible="false""#) == 1)
            #expect(count(#"experiment="cta",variation="control",eligible="true""#) == 1)
            #expect(!page.contains(#"variation="x""#))
        }
    }

    @Test func clientReportsBecomeCountersOnce() async throws {
        try await withStore(.sqlite) { store in
            let server = try await startServer(store)
            func metrics() async throws -> String {
                String(decoding: try await HTTPClient(timeout: 30, maxBodyBytes: 1 << 22)
                    .get(URL(string: "metrics", relativeTo: server.baseURL)!.absoluteURL).body, as: UTF8.self)
            }
            var page = try await metrics()
            for name in ["sdui_client_token_lookups_total", "sdui_client_token_hits_total", "sdui_client_unknown_primitive_total"] {
                #expect(Self.sample(page, name) == 0, "\(name) is there from the start")
            }
            let batch = [
                Self.event("c1", "cache_stats", ts: 1, #"{"lookups":10,"hits":9}"#),
                Self.event("c2", "cache_stats", ts: 1, #"{"lookups":4,"hits":1}"#),
                Self.event("c3", "cache_stats", ts: 1, #"{"lookups":2,"hits":3}"#),          // hits > lookups: not counted
                Self.event("c4", "cache_stats", ts: 1, #"{"lookups":-1,"hits":0}"#),         // not counted
                Self.event("c5", "cache_stats", ts: 1, #"{"lookups":"5","hits":1}"#),        // not counted
                Self.event("c6", "cache_stats", ts: 1, #"{"lookups":2000000,"hits":0}"#),    // over the bound
                Self.event("p1", "unknown_primitive", ts: 1, #"{"primitive":"Hologram","token":"x","appVersion":"1"}"#),
                Self.event("p2", "unknown_primitive", ts: 1, #"{"primitive":"Hologram","token":"y","appVersion":"1"}"#),
            ]
            #expect(try await post(server, batch).status == 200)
            // Sent again (a lost answer): stored once, counted once.
            #expect(try await post(server, batch).status == 200)
            page = try await metrics()
            #expect(Self.sample(page, "sdui_client_token_lookups_total") == 14)
            #expect(Self.sample(page, "sdui_client_token_hits_total") == 10)
            #expect(Self.sample(page, "sdui_client_unknown_primitive_total") == 2)
            await server.stop()
        }
    }
}
#endif
