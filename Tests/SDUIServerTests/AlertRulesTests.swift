// AlertRulesTests.swift - the Prometheus alert rules of dashboards/alerts.yml: promtool checks them and runs their unit tests.
#if Server
import Foundation
import SDUITestSupport
import Testing

@Suite struct AlertRulesTests {
    /// The rules file, and the promtool unit tests of it.
    static let alerts = Fixtures.repositoryRoot.appendingPathComponent("dashboards/alerts.yml")
    static let alertTests = Fixtures.repositoryRoot.appendingPathComponent("dashboards/alerts.test.yml")

    /// Runs `promtool` with `arguments`: its exit status and what it said
    /// (standard output and error together).
    static func promtool(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["promtool"] + arguments
        let output = Pipe()
        p.standardOutput = output
        p.standardError = output
        try p.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, said)
    }

    /// `promtool check rules`: the file parses, every expression and template is valid.
    @Test func promtoolChecksTheRules() throws {
        let (status, said) = try Self.promtool(["check", "rules", Self.alerts.path])
        #expect(status == 0, "promtool check rules: \(said)")
    }

    /// `promtool test rules`: the series that must fire each alert fire it,
    /// with its labels and annotations, and the ones that must not do not.
    @Test func promtoolUnitTestsOfTheRulesPass() throws {
        let (status, said) = try Self.promtool(["test", "rules", Self.alertTests.path])
        #expect(status == 0, "promtool test rules: \(said)")
    }

    /// The rules read the three client counters, record the fleet's
    /// token_cache_hit_ratio and alert below 0.85 for 15 minutes.
    @Test func theRulesNameTheCountersAndTheThreshold() throws {
        let rules = try String(contentsOf: Self.alerts, encoding: .utf8)
        for name in ["sdui_client_token_lookups_total", "sdui_client_token_hits_total",
                     "sdui_client_unknown_primitive_total"] {
            #expect(rules.contains(name), "\(name)")
        }
        #expect(rules.contains("record: token_cache_hit_ratio"))
        #expect(rules.contains("alert: TokenCacheHitRatioLow") && rules.contains("alert: UnknownPrimitiveRising"))
        #expect(rules.contains("token_cache_hit_ratio < 0.85"))
        #expect(rules.contains("for: 15m"))
        #expect(rules.contains("record: experiment_ineligible_share") && rules.contains("alert: ExperimentIneligibleShareHigh"))
        #expect(rules.contains("sdui_experiment_exposures_total"))
    }

    /// The Grafana dashboard draws what the rules watch: the three counters.
    @Test func theDashboardDrawsTheSameCounters() throws {
        let dashboard = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("dashboards/registry.json"),
                                   encoding: .utf8)
        for name in ["sdui_client_token_lookups_total", "sdui_client_token_hits_total",
                     "sdui_client_unknown_primitive_total", "sdui_experiment_exposures_total"] {
            #expect(dashboard.contains(name), "\(name)")
        }
    }
}
#endif
