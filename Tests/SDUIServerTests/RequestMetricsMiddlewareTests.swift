// RequestMetricsMiddlewareTests.swift - latency histograms, counts and errors per route on /metrics.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import MetricsTestKit
import Testing

@Suite struct RequestMetricsMiddlewareTests: RegistryServerFixtures {
    @Test func metricsExposeLatencyHistogramsAndErrors() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            for _ in 0..<3 { _ = try await get(r, "design-tokens?ids=plain") }
            _ = try await get(r, "design-tokens?ids=..")
            let m = try await get(r, "metrics", [:]).text
            #expect(m.contains(#"sdui_http_request_duration_seconds_bucket{route="/design-tokens",method="GET",le="0.001"}"#), "\(m.prefix(2000))")
            #expect(m.contains(#"sdui_http_requests_total{route="/design-tokens",method="GET",status="200"} 3"#))
            // A 400 is counted by status, not as a server error.
            #expect(m.contains(#"sdui_http_requests_total{route="/design-tokens",method="GET",status="400"} 1"#))
            #expect(!m.contains(#"sdui_http_errors_total{route="/design-tokens",status="400"}"#))
            // Buckets from 50 µs to 5 s, and the build.
            #expect(m.contains(#"sdui_http_request_duration_seconds_bucket{route="/design-tokens",method="GET",le="5e-05"}"#)
                    || m.contains(#"sdui_http_request_duration_seconds_bucket{route="/design-tokens",method="GET",le="0.00005"}"#), "\(m.prefix(3000))")
            #expect(m.contains(#"sdui_http_request_duration_seconds_bucket{route="/design-tokens",method="GET",le="5.0"}"#)
                    || m.contains(#"sdui_http_request_duration_seconds_bucket{route="/design-tokens",method="GET",le="5"}"#))
            #expect(m.contains(#"sdui_build_info{version="\#(SDUIKitVersion.string)"} 1"#), "\(m.prefix(3000))")
            #expect(m.contains("sdui_registry_token_ids 3"))
            // The Grafana dashboard queries these names.
            let dashboard = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("dashboards/registry.json"),
                                       encoding: .utf8)
            // A fleet's dashboard: job and instance variables, the rate window Grafana picks.
            #expect(!dashboard.contains("[5m]") && dashboard.contains("[$__rate_interval]"))
            #expect(dashboard.contains(#""name": "job""#) && dashboard.contains(#""name": "instance""#))
            for name in ["sdui_http_request_duration_seconds_bucket", "sdui_http_requests_total"] {
                #expect(dashboard.contains(name) && m.contains(name), "\(name)")
            }
            await r.stop()
        }
    }
}

extension RequestMetricsMiddlewareTests {
    /// A service that uses another swift-metrics backend gets every metric there.
    @Test func metricsGoThroughAnInjectedFactory() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let test = TestMetrics()
            var c = RegistryServerConfiguration()
            c.port = 0
            let r = try await RegistryServer(store: store, configuration: c, metricsFactory: test).start()
            _ = try await get(r, "design-tokens?ids=plain")
            _ = try await get(r, "design-tokens?ids=..")
            #expect(try test.expectCounter("sdui_http_requests_total",
                                           [("route", "/design-tokens"), ("method", "GET"), ("status", "200")]).totalValue == 1)
            #expect(try test.expectTimer("sdui_http_request_duration_seconds",
                                         [("route", "/design-tokens"), ("method", "GET")]).values.count == 2)
            #expect(try test.expectGauge("sdui_build_info", [("version", SDUIKitVersion.string)]).lastValue == 1)
            #expect(try test.expectGauge("sdui_registry_generation").lastValue ?? 0 > 0)
            await r.stop()
        }
    }
}
#endif
