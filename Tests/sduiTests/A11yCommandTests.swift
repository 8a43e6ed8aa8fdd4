// A11yCommandTests.swift - `sdui a11y lint` as an author runs it: one
// finding per planted defect of the broken paywall, the JSON shape, the
// platform's target size, the examples clean, and bad input named.
#if Server
import Foundation
import SDUITestSupport
import Testing

@Suite struct A11yCommandTests {
    let paywall = Fixtures.repositoryRoot.appendingPathComponent("Tests/A11yFixtures/broken_paywall").path
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples").path

    /// The findings of `--json` output as (rule, node, severity, wcag).
    func findings(_ out: String) throws -> [[String: Any]] {
        let o = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
        return try #require(o["findings"] as? [[String: Any]])
    }

    /// Exactly one finding per defect the fixture's README lists.
    @Test func theBrokenPaywallHasOneFindingPerPlantedDefect() async throws {
        let r = try await sdui(["a11y", "lint", paywall, "--json"])
        #expect(r.status == 1, "\(r.err)")
        let got = try findings(r.out).map { f in
            "\(f["token"] as? String ?? "-") \(f["rule"] as? String ?? "") \(f["severity"] as? String ?? "") "
                + "\(f["wcag"] as? String ?? "-")"
        }
        #expect(got == [
            "paywall_close touch-target error 2.5.5",
            "paywall_hero image-alt error 1.1.1",
            "paywall_fine_print contrast error 1.4.3",
            "paywall_email label error 4.1.2",
            "paywall_plans focus-order warning 2.4.3",
            "paywall_subscribe contrast error 1.4.3",
            "paywall_restore label error 4.1.2",
        ], "\(got)")
        for f in try findings(r.out) {
            #expect(Set(f.keys) == ["rule", "severity", "screen", "node", "token", "message", "wcag"])
            #expect(f["screen"] as? String == "paywall" && !(f["message"] as? String ?? "").isEmpty)
        }
        // The text report: one line per finding and a summary.
        let text = try await sdui(["a11y", "lint", paywall + "/screens/paywall.json"])
        #expect(text.status == 1)
        #expect(text.out.contains("error: paywall paywall_hero (token paywall_hero): image-alt [WCAG 1.1.1]"), "\(text.out)")
        #expect(text.out.contains("1 screen(s): 6 error(s), 1 warning(s)"), "\(text.out)")
    }

    /// 44 pt on iOS, 48 dp on Android: a 46 pt button passes one and not the other.
    @Test func thePlatformSetsTheTargetSize() async throws {
        let dir = Fixtures.temporaryDirectory()
        for sub in ["screens", "tokens"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try Data(#"{"id":"s","tokens":[{"id":"b"}]}"#.utf8).write(to: dir.appendingPathComponent("screens/s.json"))
        try Data(#"{"id":"b","version":1,"primitive":"Button","primitiveVersion":1,"props":{"label":"Go","height":46}}"#.utf8)
            .write(to: dir.appendingPathComponent("tokens/b.json"))
        #expect(try await sdui(["a11y", "lint", dir.path]).status == 0)
        let android = try await sdui(["a11y", "lint", dir.path, "--platform", "android", "--json"])
        let rules = try findings(android.out).map { $0["rule"] as? String }
        #expect(android.status == 1 && rules == ["touch-target"])
        let bad = try await sdui(["a11y", "lint", dir.path, "--platform", "watchos"])
        #expect(bad.status != 0 && bad.err.contains("watchos"), "\(bad.err)")
    }

    /// The example screens and flows pass, on both platforms.
    @Test func theExamplesPass() async throws {
        for platform in ["ios", "android"] {
            let r = try await sdui(["a11y", "lint", examples, "--platform", platform, "--json"])
            let errors = try findings(r.out).filter { $0["severity"] as? String == "error" }
            #expect(r.status == 0 && errors.isEmpty, "\(platform): \(errors)")
        }
        // And laid out at text scale 3.1, 320 px wide.
        let layout = try await sdui(["a11y", "lint", examples, "--layout"])
        #expect(layout.status == 0 && layout.out.contains("0 error(s)"), "\(layout.out) \(layout.err)")
        // A flow file alone: each of its screens.
        let flow = try await sdui(["a11y", "lint", examples + "/flows/onboarding.json"])
        #expect(flow.status == 0 && flow.out.contains("screen(s): 0 error(s)"), "\(flow.out) \(flow.err)")
    }

    @Test func badInputIsNamed() async throws {
        let missing = try await sdui(["a11y", "lint", "/nonexistent/screen.json"])
        #expect(missing.status != 0 && missing.err.contains("/nonexistent/screen.json"), "\(missing.err)")
        let file = Fixtures.temporaryDirectory().appendingPathComponent("x.json")
        try Data("{ not json".utf8).write(to: file)
        let garbage = try await sdui(["a11y", "lint", file.path])
        #expect(garbage.status != 0 && garbage.err.contains("x.json"), "\(garbage.err)")
    }
}
#endif
