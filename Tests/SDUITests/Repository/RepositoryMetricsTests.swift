// RepositoryMetricsTests.swift - one place for hit and miss counts, and the metrics made from them.
import Foundation
import MetricsTestKit
@testable import SDUI
import Testing

@Suite struct RepositoryMetricsTests {
    @Test func countsAndTheRatioComeFromTheSameTallies() throws {
        let test = TestMetrics()
        var m = RepositoryMetrics(factory: test)
        m.found(.pack)
        m.found(.disk)
        m.found(.network)
        m.found(.stale)
        m.missed(offline: true)
        m.missed(offline: false)
        m.fetched(in: .milliseconds(3))
        #expect(m.hits == [.pack: 1, .disk: 1, .network: 1, .stale: 1] && m.misses == 2)
        #expect(try test.expectCounter("sdui_token_lookups_total", [("source", "disk")]).totalValue == 1)
        #expect(try test.expectCounter("sdui_token_lookups_total", [("outcome", "offline")]).totalValue == 1)
        #expect(try test.expectCounter("sdui_token_lookups_total", [("outcome", "unavailable")]).totalValue == 1)
        // Cache hits are pack, memory and fresh disk: 2 of 6 lookups.
        let ratio = try test.expectGauge("sdui_token_cache_hit_ratio").lastValue
        #expect(ratio == TokenSource.hitRatio(m.hits, misses: m.misses) && abs((ratio ?? 0) - 2.0 / 6.0) < 1e-12)
        #expect(try test.expectTimer("sdui_token_fetch_seconds").values == [3_000_000])
    }
}
