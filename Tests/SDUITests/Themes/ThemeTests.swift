// ThemeTests.swift - the theme JSON forms, their errors, and merging.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct ThemeTests {
    static let themes = Fixtures.repositoryRoot.appendingPathComponent("Examples/themes")

    @Test func readsTheFullFormWithLightAndDark() throws {
        let t = try Theme(contentsOf: Self.themes.appendingPathComponent("theme_nordlicht.json"))
        #expect(t.id == "theme_nordlicht")
        #expect(t.colors["background"]?.light == (try RGBColor(hex: "#FFFFFF")))
        #expect(t.colors["background"]?.dark == (try RGBColor(hex: "#0E1726")))
        #expect(t.typography["headingLarge"] == Theme.Typography(size: 28, lineHeight: 34, weight: 700))
        #expect(t.typography["bodyMedium"]?.weight == 400)
        #expect(t.spacing == ["xs": 4, "sm": 8, "md": 16, "lg": 24, "xl": 32])
        #expect(t.radius["md"] == 10)
        #expect(t.animations["standardTransition"] == 300)
        #expect(t.contrastPairs.contains(Theme.ContrastPair(text: "success", background: "surface")))
    }

    @Test func readsSeed001FlatForm() throws {
        let t = try Theme(contentsOf: Self.themes.appendingPathComponent("theme_mint_dark.json"))
        #expect(t.id == "theme_mint_dark")
        let bg = try RGBColor(hex: "#0B1220")
        #expect(t.colors["background"] == Theme.ColorPair(bg))
        #expect(t.colors["textSecondary"]?.dark == (try RGBColor(hex: "#9CA3AF")))
        #expect(t.settings == ["radius": "lg", "buttonStyle": "filled", "font": "system"])
        #expect(t.spacing.isEmpty)
        // Merged over the SDK fallback, the missing groups are filled in.
        let merged = t.merged(over: .sdkFallback)
        #expect(merged.colors["background"] == Theme.ColorPair(bg))
        #expect(merged.spacing["md"] == 16)
        #expect(merged.typography["caption"] != nil)
        #expect(merged.id == "theme_mint_dark")
    }

    @Test(arguments: [
        (##"[]"##, "the top level"),
        (##"{"colors":{}}"##, "id"),
        (##"{"id":"t","colors":{"a":"red"}}"##, "colors.a"),
        (##"{"id":"t","colors":{"a":{"light":"#fff"}}}"##, "colors.a"),
        (##"{"id":"t","colors":{"a":{"light":"#fff","dark":"#12"}}}"##, "colors.a.dark"),
        (##"{"id":"t","typography":{"body":{"lineHeight":20}}}"##, "typography.body.size"),
        (##"{"id":"t","typography":{"body":{"size":16,"weight":1200}}}"##, "typography.body.weight"),
        (##"{"id":"t","typography":{"body":{"size":16,"weight":1e300}}}"##, "typography.body.weight"),
        (##"{"id":"t","typography":{"body":{"size":16,"weight":9.3e18}}}"##, "typography.body.weight"),
        (##"{"id":"t","typography":{"body":{"size":16,"weight":400.5}}}"##, "typography.body.weight"),
        (##"{"id":"t","typography":{"title":{"size":1.7e308}}}"##, "typography.title.size"),
        (##"{"id":"t","typography":{"title":{"size":16,"lineHeight":1e20}}}"##, "typography.title.lineHeight"),
        (##"{"id":"t","radius":{"lg":10001}}"##, "radius.lg"),
        (##"{"id":"t","animations":{"fade":1e300}}"##, "animations.fade"),
        (##"{"id":"t","spacing":{"md":"16px"}}"##, "spacing.md"),
        (##"{"id":"t","spacing":{"md":-4}}"##, "spacing.md"),
        (##"{"id":"t","animations":[]}"##, "animations"),
        (##"{"id":"t","colors":{"a":"#fff"},"contrastPairs":[{"text":"a","background":"b"}]}"##, "contrastPairs[0].background"),
        (##"{"id":"t","tokens":{"background":"#GGG"}}"##, "tokens.background"),
        (##"{"id":"t","tokens":{"radius":4}}"##, "tokens.radius"),
    ])
    func badThemesNameTheMember(json: String, member: String) {
        do {
            _ = try Theme(json: Data(json.utf8), source: "bad.json")
            Issue.record("accepted \(json)")
        } catch let e as SDUIError {
            #expect(e.category == .schema)
            #expect(e.input == "bad.json")
            #expect(e.message.hasPrefix(member), "\(e.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func notJSONIsAJSONError() {
        #expect(throws: SDUIError.self) { try Theme(json: Data("{".utf8)) }
        let e = try? #require(throws: SDUIError.self) { try Theme(json: Data("{".utf8), source: "x.json") }
        #expect(e?.category == .json)
    }

    @Test func jsonValueRoundTrips() throws {
        let t = try Theme(contentsOf: Self.themes.appendingPathComponent("theme_nordlicht.json"))
        let again = try Theme(value: t.jsonValue)
        #expect(again == t)
        #expect(try Theme(value: Theme.sdkFallback.jsonValue) == Theme.sdkFallback)
    }

    /// An integer past 2^63 is refused by the core's parser, naming the
    /// input and the place, even in a member the theme does not read
    /// (JSONDecoder took it as a double and the theme loaded).
    @Test func anIntegerPast2To63IsRefused() throws {
        let json = Data(#"{"id":"t","spacing":{"md":16},"x-build":18446744073709551616}"#.utf8)
        for read in [{ _ = try Theme(json: json, source: "t.json") },
                     { _ = try Theme(document: json, fileName: "t.json", source: "t.json") }] as [() throws -> Void] {
            let e = try #require(throws: SDUIError.self, performing: read)
            #expect(e.category == .json && e.input == "t.json" && e.line == 1 && e.offset == 60, "\(e)")
            #expect(e.message.contains("integer"), "\(e)")
        }
    }
}
