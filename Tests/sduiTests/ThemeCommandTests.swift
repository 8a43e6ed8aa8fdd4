// ThemeCommandTests.swift - `sdui theme lint`: report and exit status.
#if Server
import Foundation
import SDUITestSupport
import Testing

@Suite struct ThemeCommandTests {
    let themes = Fixtures.repositoryRoot.appendingPathComponent("Examples/themes")

    @Test func exampleThemesPass() async throws {
        for name in ["theme_nordlicht.json", "theme_mint_dark.json", "brand.tokens.json"] {
            let r = try await sdui(["theme", "lint", themes.appendingPathComponent(name).path])
            #expect(r.status == 0, "\(name): \(r.out)\(r.err)")
            #expect(r.out.contains(": 0 error(s)"), "\(r.out)")
        }
    }

    @Test func failuresExitOneWithAReport() async throws {
        let dir = Fixtures.temporaryDirectory()
        let t = dir.appendingPathComponent("bad_theme.json")
        try Data(#"""
        {"id":"bad_theme","colors":{"background":"#FFFFFF","textSecondary":"#AAAAAA"},
         "spacing":{"md":15},"animations":{"quickTransition":400}}
        """#.utf8).write(to: t)
        let r = try await sdui(["theme", "lint", t.path])
        #expect(r.status == 1)
        #expect(r.out.contains("error: contrast: textSecondary on background (light): #AAAAAA on #FFFFFF is 2.32:1; AA needs 4.5:1 (body text)"), "\(r.out)")
        #expect(r.out.contains("error: spacing-grid: spacing.md: 15 is not a multiple of 4"))
        #expect(r.out.contains("error: animation-duration: animations.quickTransition: 400 ms is more than 50 ms from the web's 200 ms"))
        // Colours it leaves out render from the SDK fallback: the dark fallback text on its white background.
        #expect(r.out.contains("error: contrast: textPrimary on background (dark): #F1F5F9 on #FFFFFF is 1.10:1; "
                               + "AA needs 4.5:1 (body text) (textPrimary from sdk_fallback"), "\(r.out)")
        #expect(r.out.contains("bad_theme: 7 error(s), 0 warning(s); 4 contrast pair(s) checked"), "\(r.out)")

        let json = try await sdui(["theme", "lint", t.path, "--json"])
        #expect(json.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        #expect(report?["errors"] as? Int == 7)
        #expect((report?["findings"] as? [[String: Any]])?.first?["rule"] as? String == "contrast")
    }

    @Test func dtcgCycleIsACleanError() async throws {
        let t = Fixtures.temporaryDirectory().appendingPathComponent("loop.tokens.json")
        try Data(#"{"color":{"$type":"color","a":{"$value":"{color.b}"},"b":{"$value":"{color.a}"}}}"#.utf8).write(to: t)
        let r = try await sdui(["theme", "lint", t.path])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("error: schema: \(t.path): color.a: alias cycle: color.a → color.b → color.a"), "\(r.err)")
    }
}
#endif
