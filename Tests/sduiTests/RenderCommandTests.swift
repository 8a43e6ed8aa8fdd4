// RenderCommandTests.swift - `sdui render` run as a user would.
#if Server
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct RenderCommandTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
    var pack: String { examples.appendingPathComponent("core-pack.json.gz").path }
    func path(_ p: String) -> String { examples.appendingPathComponent(p).path }

    func tree(_ args: [String]) async throws -> (RenderTree, String) {
        let r = try await sdui(["render"] + args)
        #expect(r.status == 0, "\(r.err)")
        return (try JSONDecoder().decode(RenderTree.self, from: Data(r.out.utf8)), r.err)
    }

    @Test func tokenScreenToJSONWithThemeModeAndBindings() async throws {
        let (light, warnings) = try await tree([path("screens/onboarding_welcome.json"), "--pack", pack,
                                          "--theme", path("themes/theme_nordlicht.json")])
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(light.theme == "theme_nordlicht" && light.themeSource == .flow && light.mode == .light)
        #expect(light.root.props["background"] == "#FFFFFF")
        let (dark, _) = try await tree([path("screens/onboarding_welcome.json"), "--pack", pack,
                                  "--theme", path("themes/theme_nordlicht.json"), "--mode", "dark"])
        #expect(dark.root.props["background"] == "#0E1726")
        #expect(dark.root.children.count == light.root.children.count)

        // Host bindings fill what the items leave open: a JSON value or plain text.
        let dir = Fixtures.temporaryDirectory()
        let screen = dir.appendingPathComponent("s.json")
        try Data(#"{"id":"s","tokens":[{"id":"onboarding_header","bind":{"subtitle":"Sub"}}]}"#.utf8).write(to: screen)
        let (bound, w2) = try await tree([screen.path, "--pack", pack, "--bind", "title=Hello {{x}}", "--bind", "user.age=42"])
        #expect(w2.isEmpty)
        #expect(bound.root.children[0].children.map { $0.props["text"] } == ["Hello {{x}}", "Sub"])
        let (missing, w3) = try await tree([screen.path, "--pack", pack])
        #expect(missing.issues.map(\.kind) == [.missingBinding, .propRule])
        #expect(w3.contains("warning: missing_binding: onboarding_header props.children[0].props.text"), "\(w3)")
    }

    @Test func blockScreenOfflineAndPrimitivesOptions() async throws {
        let (goal, _) = try await tree([path("blocks/screen_goal.json"), "--theme", path("themes/theme_mint_dark.json")])
        #expect(goal.themeSource == .screen && goal.root.props["background"] == "#0B1220")
        let (offline, _) = try await tree([path("screens/checkout.json"), "--pack", pack, "--offline", "checkout_upsell"])
        #expect(offline.root.children.filter { $0.kind == .skeleton }.map(\.token) == ["checkout_upsell"])
        let (old, _) = try await tree([path("screens/login.json"), "--pack", pack, "--primitives", "Column@2"])
        #expect(old.root.children.contains { $0.reason == "incompatible_version" })
        let strict = try await sdui(["render", path("screens/login.json"), "--pack", pack, "--primitives", "Column@2", "--strict"])
        #expect(strict.status == 1)
    }

    @Test func fallbackPackSwitchesTheScreen() async throws {
        let dir = Fixtures.temporaryDirectory()
        let fb = dir.appendingPathComponent("fallback.json.gz")
        let tokens = [Fixtures.token("checkout_offline_notice", props: #"{"text":"Offline: pay at pickup"}"#)]
        try Fixtures.pack(tokens: tokens, extra: #""screens":[{"id":"checkout_offline","fallbackFor":"checkout","tokens":[{"id":"checkout_offline_notice"}]}]"#)
            .write(to: fb)
        let (t, err) = try await tree([path("screens/checkout.json"), "--pack", pack, "--offline", "checkout_totals",
                                 "--fallback-pack", fb.path])
        #expect(t.renderedScreen == "checkout_offline")
        #expect(t.root.children.map { $0.props["text"] } == ["Offline: pay at pickup"])
        #expect(err.contains("fallback_screen"))
    }

    @Test func htmlOutputToAFile() async throws {
        let out = Fixtures.temporaryDirectory().appendingPathComponent("team.html")
        let r = try await sdui(["render", path("screens/team_page.json"), "--pack", pack, "--format", "html", "--out", out.path])
        #expect(r.status == 0 && r.out.isEmpty)
        let html = try String(contentsOf: out, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("data-token=\"team_header\""))
    }

    /// A normalized payload that lists one 601-node component in 300
    /// templates draws up to the render bound, as JSON and as HTML: one
    /// `limit` warning naming the screen, template and component, a
    /// placeholder, status 0 (1 with --strict).
    @Test func aReusedComponentStopsAtTheRenderBound() async throws {
        let items = (0..<200).map { "\"item \($0)\"" }.joined(separator: ",")
        let templates = (0..<300).map { #"{"id":"t\#($0)","type":"list","order":\#($0),"componentsId":[{"id":"c","order":1}]}"# }
        let payload = #"{"screenName":"deep","templates":[\#(templates.joined(separator: ","))],"#
            + #""components":[{"id":"c","type":"benefits_list","bodyId":"b"}],"body":[{"id":"b","body":{"items":[\#(items)]}}]}"#
        let file = Fixtures.temporaryDirectory().appendingPathComponent("deep.json")
        try Data(payload.utf8).write(to: file)

        let (tree, err) = try await tree([file.path])
        #expect(tree.root.allNodes.count - 1 == 33 * 602 + 2)
        #expect(tree.root.allNodes.last?.reason == "limit")
        let warnings = err.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(warnings.count == 1, "\(err)")
        #expect(warnings.first?.hasPrefix("warning: limit: block[33].blocks[0] root: benefits_list: ") == true, "\(err)")
        #expect(err.contains(#"screen "deep" (in block "t33" › "c")"#), "\(err)")

        let html = try await sdui(["render", file.path, "--format", "html"])
        #expect(html.status == 0)
        #expect(html.out.contains(#"data-reason="limit""#))
        #expect(html.out.utf8.count < 16 << 20)
        let strict = try await sdui(["render", file.path, "--strict"])
        #expect(strict.status == 1)
    }

    @Test func badInputsExitOneNamingTheInput() async throws {
        let dir = Fixtures.temporaryDirectory()
        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"{"id":"s","tokens":[{"bind":{}}]}"#.utf8).write(to: bad)
        // Text the core's parser refuses is named as such, whatever format
        // it looks like (it was guessed a token screen: `missing "id"`).
        let huge = dir.appendingPathComponent("huge.json")
        try Data("{\"screenName\":\"s\",\n\"templates\":[12345678901234567890]}".utf8).write(to: huge)
        let cut = dir.appendingPathComponent("cut.json")
        try Data(#"{"blocks":[{"#.utf8).write(to: cut)
        let cases: [([String], String)] = [
            ([bad.path, "--pack", pack], "error: schema: \(bad.path): missing \"id\" at tokens[0]"),
            ([path("screens/checkout.json")], "error: argument: \(path("screens/checkout.json")): a token screen needs --pack"),
            ([path("screens/checkout.json"), "--pack", pack, "--bind", "=x"], "error: argument: --bind =x:"),
            ([path("screens/checkout.json"), "--pack", pack, "--primitives", "Column@0"], "error: schema: X-Primitives: byte 7:"),
            ([path("screens/checkout.json"), "--pack", pack, "--theme", bad.path], "error: schema: \(bad.path): tokens: must be an object"),
            ([dir.appendingPathComponent("none.json").path, "--pack", pack], "error: io: "),
            ([huge.path], "error: json: \(huge.path): line 2, column 34 (byte 52):"),
            ([cut.path], "error: json: \(cut.path): line 1, column 13 (byte 12):"),
            ([path("screens/checkout.json"), "--pack", pack, "--text-scale", "0"],
             "error: argument: --text-scale: must be from 0.5 to 4.0, not 0.0"),
            ([path("screens/checkout.json"), "--pack", pack, "--spacing-scale", "nan"],
             "error: argument: --spacing-scale: must be from 0.5 to 4.0, not nan"),
        ]
        for (args, prefix) in cases {
            let r = try await sdui(["render"] + args)
            #expect(r.status == 1, "\(args)")
            #expect(r.err.hasPrefix(prefix), "\(args): \(r.err)")
        }
    }
}
#endif
