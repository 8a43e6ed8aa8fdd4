// ThemeLintTests.swift - the theme lint rules: AA contrast, the 4 pt grid, animation timing.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct ThemeLintTests {
    func c(_ light: String, _ dark: String? = nil) -> Theme.ColorPair {
        Theme.ColorPair(light: try! RGBColor(hex: light), dark: try! RGBColor(hex: dark ?? light))
    }

    @Test func exampleThemesAndTheFallbackPass() throws {
        #expect(ThemeLint.check(.sdkFallback).isEmpty)
        for name in ["theme_nordlicht.json", "theme_mint_dark.json", "brand.tokens.json"] {
            let t = try Theme(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Examples/themes/\(name)"))
            #expect(ThemeLint.check(t).filter { $0.severity == .error } == [], "\(name)")
        }
    }

    @Test func derivedPairs() {
        let t = Theme(id: "t", colors: ["background": c("#FFFFFF"), "surface": c("#EEEEEE"), "primary": c("#0000FF"),
                                        "onPrimary": c("#FFFFFF"), "textPrimary": c("#000000"), "textured": c("#123456"),
                                        "onion": c("#FFFFFF")],
                      contrastPairs: [Theme.ContrastPair(text: "primary", background: "surface", largeText: true)])
        let pairs = Set(ThemeLint.pairs(of: t).map { "\($0.text)/\($0.background)/\($0.largeText)" })
        #expect(pairs == ["primary/surface/true", "textPrimary/background/false", "textPrimary/surface/false",
                          "onPrimary/primary/false", "primary/background/false"])
    }

    @Test func contrastFailsPerModeWithTheRatio() {
        // #777777 on white is 4.48:1: fails body text, passes large text.
        // (over: nil — the theme's own colours only; see inheritedColours.)
        let t = Theme(id: "t", colors: ["background": c("#FFFFFF", "#000000"), "textSecondary": c("#777777", "#777777")])
        let f = ThemeLint.check(t, over: nil)
        #expect(f.count == 1)
        #expect(f[0].rule == .contrast)
        #expect(f[0].mode == .light)
        #expect(f[0].subject == "textSecondary on background")
        #expect(f[0].message.contains("4.48:1"), "\(f[0].message)")
        // In dark mode #777777 on black is 4.69:1, which passes.
        let large = Theme(id: "t", colors: t.colors,
                          contrastPairs: [Theme.ContrastPair(text: "textSecondary", background: "background", largeText: true)])
        #expect(ThemeLint.check(large, over: nil).isEmpty)
        // #767676 on white (4.54:1) passes body text.
        let ok = Theme(id: "t", colors: ["background": c("#FFFFFF"), "textSecondary": c("#767676")])
        #expect(ThemeLint.check(ok, over: nil).isEmpty)
    }

    @Test func darkModeFailureIsReportedAsDark() {
        let t = Theme(id: "t", colors: ["surface": c("#FFFFFF", "#333333"), "textPrimary": c("#000000", "#555555")])
        let f = ThemeLint.check(t, over: nil)
        #expect(f.map(\.mode) == [.dark])
    }

    @Test func inheritedColoursAreCheckedWhereBlocksDrawThem() {
        // The mint example theme has no onPrimary: the CTA would draw the
        // SDK's white (light) on its mint primary, 1.77:1.
        let mint = Theme(id: "mint", colors: ["background": c("#0B1220"), "surface": c("#111827"),
                                              "primary": c("#3DDC97"), "textPrimary": c("#E5E7EB"),
                                              "textSecondary": c("#9CA3AF")])
        let f = ThemeLint.check(mint)
        #expect(f.map(\.subject) == ["onPrimary on primary"])
        #expect(f.first?.mode == .light)
        #expect(f.first?.message.contains("onPrimary from sdk_fallback") == true, "\(f)")
        #expect(ThemeLint.checkedPairs(mint).contains { $0.text == "onPrimary" && $0.background == "primary" })
        // Setting it clears the finding; pairs of two inherited colours are not checked.
        var fixed = mint
        fixed.colors["onPrimary"] = c("#0B1220")
        #expect(ThemeLint.check(fixed).isEmpty)
        #expect(!ThemeLint.checkedPairs(Theme(id: "empty")).contains { $0.text == "onPrimary" })
        #expect(ThemeLint.check(mint, over: nil).isEmpty)
    }

    @Test func spacingGrid() {
        let t = Theme(id: "t", spacing: ["xs": 4, "sm": 6, "md": 16, "odd": 17.5])
        let f = ThemeLint.check(t)
        #expect(Set(f.map(\.subject)) == ["spacing.sm", "spacing.odd"])
        #expect(f.allSatisfy { $0.rule == .spacingGrid && $0.severity == .error })
    }

    @Test func animationDurations() {
        let t = Theme(id: "t", animations: ["quickTransition": 250, "standardTransition": 351, "slowTransition": 450,
                                            "fade": 0, "tour": 1500, "pop": 1000])
        let f = ThemeLint.check(t)
        #expect(Set(f.map(\.subject)) == ["animations.standardTransition", "animations.fade", "animations.tour"])
    }

    @Test func typographyWarningsDoNotFail() {
        let t = Theme(id: "t", typography: ["headingLarge": .init(size: 20, lineHeight: 24),
                                            "headingMedium": .init(size: 24, lineHeight: 20)])
        let f = ThemeLint.check(t)
        #expect(f.count == 2)
        #expect(f.allSatisfy { $0.severity == .warning && $0.rule == .typographyScale })
    }

    @Test func errorsComeBeforeWarnings() {
        let t = Theme(id: "t", typography: ["caption": .init(size: 12, lineHeight: 10)], spacing: ["x": 3])
        #expect(ThemeLint.check(t).map(\.severity) == [.error, .warning])
    }
}
