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

    /// `promtool check metrics` on a live `/metrics`, after every kind of
    /// request: no problem, every family with a HELP and a TYPE line; and
    /// the error counter is there before any request, at 0.
    @Test func promtoolFindsNoProblemInALiveMetricsPage() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            // A running experiment: its weights and critical value are exported.
            try await store.putExperiments([StoredExperiment(key: "cta", json: Data(
                #"{"key":"cta","status":"running","variations":[{"id":"control"},{"id":"green","screens":{"home":"lab"}}]}"#.utf8))])
            let r = try await startServer(store)
            let first = try await get(r, "metrics", [:]).text
            #expect(first.contains(#"sdui_http_errors_total{route="/design-tokens",status="500"} 0"#), "\(first)")
            for path in ["design-tokens?ids=plain", "design-tokens?ids=..", "screens/home", "screens/nope", "flows/none",
                         "experiments", "health", "health/live", "health/ready", "no/such/path"] {
                _ = try await get(r, path)
            }
            let events = try await HTTPClient(timeout: 30, maxBodyBytes: 1 << 20).post(
                URL(string: "events", relativeTo: r.baseURL)!.absoluteURL,
                body: Data(#"{"events":[{"id":"m1","name":"n","flowId":"f","userId":"u","timestamp":1},{"id":"m2"}]}"#.utf8),
                headers: ["Content-Type": "application/json"])
            #expect(events.status == 400)
            _ = try await HTTPClient(timeout: 30, maxBodyBytes: 1 << 20).post(
                URL(string: "events", relativeTo: r.baseURL)!.absoluteURL,
                body: Data(#"{"events":[{"id":"m1","name":"n","flowId":"f","userId":"u","timestamp":1},{"id":"m3","name":"experiment_exposure","flowId":"","userId":"u","timestamp":1,"properties":{"experiment":"cta \"b\" \\ c","variation":"green","eligible":true}}]}"#.utf8),
                headers: ["Content-Type": "application/json"])
            let page = try await get(r, "metrics", [:]).text
            await r.stop()
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["promtool", "check", "metrics"]
            let input = Pipe(), output = Pipe()
            p.standardInput = input
            p.standardOutput = output
            p.standardError = output
            try p.run()
            try input.fileHandleForWriting.write(contentsOf: Data(page.utf8))
            try input.fileHandleForWriting.close()
            let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationStatus == 0 && said.isEmpty, "promtool: \(said)\n\(page)")
            // Every family: one HELP and one TYPE line; every sample belongs to one.
            let lines = page.split(separator: "\n")
            let typed = Set(lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] })
            let helped = Set(lines.filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] })
            #expect(typed == helped && typed.count >= 12, "\(typed.sorted()) \(helped.sorted())")
            for sample in lines where !sample.hasPrefix("#") {
                var family = sample.prefix { $0 != "{" && $0 != " " }
                if !typed.contains(family), let suffix = ["_bucket", "_sum", "_count"].first(where: family.hasSuffix) {
                    family = family.dropLast(suffix.count)
                }
                #expect(typed.contains(family), "\(sample)")
            }
            for name in RegistryMetrics.help.keys {
                #expect(typed.contains(Substring(name)), "\(name) is on /metrics")
            }
            // Every family the Grafana dashboard queries is there, and every
            // route it names is the registry's own (no mount prefix).
            let dashboard = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("dashboards/registry.json"),
                                       encoding: .utf8)
            let queried = Set(dashboard.matches(of: /sdui_[a-z_]+/).map { m -> Substring in
                m.output.hasSuffix("_bucket") ? m.output.dropLast("_bucket".count) : m.output
            })
            #expect(queried.count >= 10, "\(queried.sorted())")
            for family in queried { #expect(typed.contains(family), "the dashboard queries \(family)") }
            for m in dashboard.matches(of: /route=\\"([^\\]*)\\"/) {
                #expect(RequestMetrics.routes.contains(String(m.output.1)), "\(m.output.0)")
            }
        }
    }
}
#endif
