// ThemeCatalogTests.swift - seed 001's resolution order and themes flattened per mode.
import Foundation
@testable import SDUI
import Testing

@Suite struct ThemeCatalogTests {
    let screenTheme = Theme(id: "screen_t", colors: ["primary": .init(try! RGBColor(hex: "#111111"))])
    let flowTheme = Theme(id: "flow_t", colors: ["primary": .init(try! RGBColor(hex: "#222222"))])

    @Test func resolutionOrder() {
        let catalog = ThemeCatalog([screenTheme, flowTheme])
        let a = catalog.resolve(screenThemeID: "screen_t", flowThemeID: "flow_t")
        #expect(a.theme.id == "screen_t")
        #expect(a.source == .screen)
        #expect(a.issues.isEmpty)

        let b = catalog.resolve(screenThemeID: nil, flowThemeID: "flow_t")
        #expect(b.theme.id == "flow_t")
        #expect(b.source == .flow)

        let c = catalog.resolve(screenThemeID: nil, flowThemeID: nil)
        #expect(c.theme == Theme.sdkFallback)
        #expect(c.source == .sdk)
    }

    @Test func unknownIDsFallThroughWithAnIssue() {
        let catalog = ThemeCatalog([flowTheme])
        let r = catalog.resolve(screenThemeID: "gone", flowThemeID: "flow_t")
        #expect(r.source == .flow)
        #expect(r.issues.map(\.kind) == [.unknownTheme])
        #expect(r.issues[0].message.contains("gone"))

        let s = catalog.resolve(screenThemeID: "gone", flowThemeID: "also_gone")
        #expect(s.source == .sdk)
        #expect(s.issues.count == 2)
    }

    @Test func chosenThemeIsMergedOverTheSDKFallback() {
        let r = ThemeCatalog([screenTheme]).resolve(screenThemeID: "screen_t", flowThemeID: nil)
        #expect(r.theme.colors["primary"]?.light.description == "#111111")
        #expect(r.theme.colors["textPrimary"] == Theme.sdkFallback.colors["textPrimary"])
        #expect(r.theme.spacing["md"] == 16)
    }

    @Test func lightAndDarkReferences() {
        let light = ResolvedTheme(.sdkFallback, mode: .light)
        let dark = ResolvedTheme(.sdkFallback, mode: .dark)
        #expect(light.reference(group: "color", name: "background") == "#FFFFFF")
        #expect(dark.reference(group: "color", name: "background") == "#0F172A")
        #expect(light.reference(group: "colors", name: "primary") == "#1D4ED8")
        #expect(light.reference(group: "spacing", name: "md") == 16)
        #expect(light.reference(group: "radius", name: "lg") == 16)
        #expect(light.reference(group: "animation", name: "quickTransition") == 200)
        #expect(light.reference(group: "typography", name: "bodyMedium")
                == .object(["size": 16, "lineHeight": 24, "weight": 400, "family": "system"]))
        #expect(light.reference(group: "color", name: "nope") == nil)
        #expect(light.reference(group: "shadow", name: "md") == nil)
    }

    @Test func spacingNamesOfBothSeeds() {
        let t = ResolvedTheme(.sdkFallback, mode: .light)
        for (name, points) in [("xs", 4), ("s", 8), ("sm", 8), ("m", 16), ("md", 16), ("l", 24), ("lg", 24), ("xl", 32)] {
            #expect(t.spacing(named: name) == .int(Int64(points)), "\(name)")
        }
        #expect(t.spacing(named: "xxl") == nil)
    }

    @Test func accessibilityScales() {
        let t = ResolvedTheme(.sdkFallback, mode: .light, textScale: 1.5, spacingScale: 1.3)
        #expect(t.typography(named: "bodyMedium") == .object(["size": 24, "lineHeight": 36, "weight": 400, "family": "system"]))
        // Spacing stays on the 4 pt grid: 16 × 1.3 = 20.8 → 20; 24 × 1.3 = 31.2 → 32; 4 × 1.3 → 4.
        #expect(t.spacing(named: "md") == 20)
        #expect(t.spacing(named: "lg") == 32)
        #expect(t.spacing(named: "xs") == 4)
        // Radius does not scale.
        #expect(t.reference(group: "radius", name: "md") == 8)
    }
}
