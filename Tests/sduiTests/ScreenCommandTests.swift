// ScreenCommandTests.swift - `sdui screen run` over a folder and over a
// running registry, and the usage loop: the events a screen run sends, the
// usage file `sdui registry usage` makes of them, a pack ranked by them.
#if Server
import Foundation
import SDUICore
import SDUITestSupport
import Testing

@Suite(.serialized) struct ScreenCommandTests {
    /// A folder with block screens only (no tokens/, no themes/).
    static func blockFolder() throws -> URL {
        let dir = Fixtures.temporaryDirectory()
        let blocks = dir.appendingPathComponent("blocks")
        try FileManager.default.createDirectory(at: blocks, withIntermediateDirectories: true)
        try Data(#"""
        {"id": "cart", "blocks": [
          {"type": "header", "title": "Cart"},
          {"type": "text_input", "key": "coupon", "label": "Coupon"},
          {"type": "cta", "primary": {"label": "Apply", "action": {"type": "sequence", "actions": [
              {"type": "validate", "keys": ["coupon"]},
              {"type": "set", "key": "applied", "expr": "coupon"},
              {"type": "track", "event": "coupon_applied"}]}},
            "secondary": {"label": "Address", "action": {"type": "navigate", "to": "address"}}}
        ]}
        """#.utf8).write(to: blocks.appendingPathComponent("cart.json"))
        try Data(#"""
        {"id": "address", "blocks": [
          {"type": "header", "title": "Address"},
          {"type": "cta", "primary": {"label": "Done", "action": "back"},
           "secondary": {"label": "Broken", "action": {"type": "open_url", "url": "javascript:alert(1)"}}}
        ]}
        """#.utf8).write(to: blocks.appendingPathComponent("address.json"))
        return dir
    }

    static func script(_ steps: String) throws -> String {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("steps.json")
        try Data(steps.utf8).write(to: url)
        return url.path
    }

    @Test func aScriptTapsTypesAndGoesBack() async throws {
        let dir = try Self.blockFolder()
        let steps = try Self.script(#"""
        [{"input": {"coupon": "SAVE10"}}, {"tap": "Apply"}, {"tap": "Address"}, {"tap": "Broken"},
         {"tap": "Done"}, "back", {"tap": "Nowhere"}, {"input": {"zip": "1"}}, {"jump": 1}]
        """#)
        let r = try await sdui(["screen", "run", "cart", "--examples", dir.path, "--script", steps])
        #expect(r.status == 0, "\(r.err)")
        let out = try JSONValue(json: Data(r.out.utf8))
        #expect(out["screens"] == ["cart", "address", "cart"])
        #expect(out["current"] == "cart")
        #expect(out["store"] == ["coupon": "SAVE10", "applied": "SAVE10"])
        #expect(out["events"] == ["screen_view", "cache_stats", "action", "coupon_applied", "action", "screen_view", "cache_stats",
                                  "action", "render_error", "action", "screen_view", "cache_stats"])
        let issues = try #require(out["issues"]?.arrayValue)
        #expect(issues.map { $0["kind"]?.stringValue ?? "" } == ["render_error", "step", "step", "step", "step"])
        #expect(issues[0]["message"]?.stringValue?.hasPrefix("open_url: link refused") == true)
        #expect(issues[1]["message"]?.stringValue?.hasSuffix("step 5: back: there is no previous screen") == true)
        #expect(issues[2]["node"] == "Nowhere")
        #expect(issues[3]["message"]?.stringValue?.contains("has no input for \"zip\"") == true)
        #expect(issues[4]["message"]?.stringValue?.contains("a step is") == true)
    }

    @Test func aFailedValidationStopsTheSequence() async throws {
        let dir = try Self.blockFolder()
        // The text_input block is required by nothing; a required rule comes from the block.
        let cart = dir.appendingPathComponent("blocks/cart.json")
        let text = try String(contentsOf: cart, encoding: .utf8)
            .replacingOccurrences(of: #""label": "Coupon"}"#, with: #""label": "Coupon", "required": true}"#)
        try Data(text.utf8).write(to: cart)
        let r = try await sdui(["screen", "run", "cart", "--examples", dir.path, "--script", try Self.script(#"[{"tap": "Apply"}]"#)])
        #expect(r.status == 0, "\(r.err)")
        let out = try JSONValue(json: Data(r.out.utf8))
        #expect(out["store"] == [:], "the set after the validate did not run")
        #expect(out["events"]?.arrayValue?.contains("coupon_applied") == false)
    }

    @Test func badInvocationsAreClearErrors() async throws {
        let dir = try Self.blockFolder()
        #expect(try await sdui(["screen", "run", "cart"]).status == 64)
        #expect(try await sdui(["screen", "run", "cart", "--examples", dir.path, "--registry", "http://127.0.0.1:1/"]).status == 64)
        let missing = try await sdui(["screen", "run", "nope", "--examples", dir.path, "--script", try Self.script("[]")])
        #expect(missing.status == 1 && missing.err.contains("no screen \"nope\""), "\(missing.err)")
        let traversal = try await sdui(["screen", "run", "../blocks/cart", "--examples", dir.path, "--script", try Self.script("[]")])
        #expect(traversal.status == 1 && traversal.err.contains("a screen id is a file name"), "\(traversal.err)")
        let notArray = try await sdui(["screen", "run", "cart", "--examples", dir.path, "--script", try Self.script(#"{"tap": 1}"#)])
        #expect(notArray.status == 1 && notArray.err.contains("a script is a JSON array"), "\(notArray.err)")
    }

    /// The usage loop: screens run against a registry send token_usage
    /// events; `sdui registry usage` counts them for this week; the pack
    /// builder ranks by them straight from the registry.
    @Test func theUsageLoopRunsFromScreensToAPack() async throws {
        let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
        let dir = Fixtures.temporaryDirectory()
        let db = dir.appendingPathComponent("r.db").path
        #expect(try await sdui(["registry", "import", examples.path, "--db", db]).status == 0)
        let server = try ServeProcess(["--db", db])
        let steps = try Self.script(#"[{"tap": "Change"}]"#)
        for screen in ["checkout", "checkout", "login"] {
            let r = try await sdui(["screen", "run", screen, "--registry", server.baseURL.absoluteString,
                                    "--events", server.baseURL.absoluteString + "events",
                                    "--state", dir.appendingPathComponent("outbox-\(screen).db").path, "--script", steps])
            #expect(r.status == 0, "\(r.err)")
            #expect(!r.err.contains("events stay queued"), "\(r.err)")
        }
        #expect(server.stop() == 0)
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: Date())
        let week = String(format: "%04d-W%02d", now.yearForWeekOfYear!, now.weekOfYear!)
        let usageFile = dir.appendingPathComponent("usage.json").path
        let usage = try await sdui(["registry", "usage", "--db", db, "--period", week, "--out", usageFile, "--json"])
        #expect(usage.status == 0, "\(usage.err)")
        let file = try JSONValue(json: Data(contentsOf: URL(fileURLWithPath: usageFile)))
        #expect(file["format"] == "sdui-usage/1" && file["period"] == .string(week))
        #expect(file["counts"]?["checkout_pay_button"] == 2)
        #expect(file["counts"]?["checkout_line_item"] == 2, "a token shown three times on one screen counts once per showing")
        #expect(file["counts"]?["login_logo"] == 1)
        // Another week has none.
        let other = try await sdui(["registry", "usage", "--db", db, "--from", "2001-01-01", "--to", "2001-01-07"])
        #expect(try JSONValue(json: Data(other.out.utf8))["counts"] == [:])
        // The pack builder ranks from the registry directly.
        let pack = dir.appendingPathComponent("core.json.gz").path
        let built = try await sdui(["pack", "build", "--db", db, "--usage-period", week, "--out", pack, "--json"])
        #expect(built.status == 0, "\(built.err)")
        #expect(try await sdui(["pack", "build", "--db", db, "--usage-period", "2026-W99", "--out", pack]).status == 1)
        #expect(try await sdui(["registry", "usage", "--db", db]).status == 64)
    }

    /// `pack build --fallback-flows` puts a flow and its theme into the
    /// Fallback Pack; `flow run` starts it there when the registry cannot
    /// be reached on a device that was never online.
    @Test func aFlowsFirstRunWorksOfflineFromTheFallbackPack() async throws {
        let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
        let dir = Fixtures.temporaryDirectory()
        let db = dir.appendingPathComponent("r.db").path
        #expect(try await sdui(["registry", "import", examples.path, "--db", db]).status == 0)
        let fallback = dir.appendingPathComponent("fallback.json.gz").path
        let built = try await sdui(["pack", "build", "--db", db, "--out", dir.appendingPathComponent("core.json.gz").path,
                                    "--fallback-flows", "onboarding", "--fallback-out", fallback,
                                    "--fallback-theme", examples.appendingPathComponent("themes/theme_mint_dark.json").path])
        #expect(built.status == 0, "\(built.err)")
        #expect(built.out.contains("Fallback Pack for flow onboarding"))
        let steps = try Self.script(#"["next"]"#)
        let offline = ["flow", "run", "onboarding", "--registry", "http://127.0.0.1:9/", "--script", steps]
        let run = try await sdui(offline + ["--fallback-pack", fallback, "--state", dir.appendingPathComponent("s.db").path])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.contains("from the Fallback Pack"))
        #expect(try JSONValue(json: Data(run.out.utf8))["screens"] == ["screen_welcome", "screen_goal"])
        // Without the pack: nothing to start from.
        let none = try await sdui(offline + ["--state", dir.appendingPathComponent("t.db").path])
        #expect(none.status == 1 && none.err.contains("not in a Fallback Pack"), "\(none.err)")
        let unknown = try await sdui(["pack", "build", "--db", db, "--out", dir.appendingPathComponent("c2.json.gz").path,
                                      "--fallback-flows", "nope", "--fallback-out", fallback])
        #expect(unknown.status == 1 && unknown.err.contains("no flow \"nope\""), "\(unknown.err)")
    }
}
#endif
