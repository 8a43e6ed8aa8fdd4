// ThemeCatalogTests.swift - the theme resolution order and the merge over the SDK fallback.
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

}
