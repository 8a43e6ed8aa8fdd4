// FallbackPackWriterTests.swift - the Fallback Pack of critical screens and the tokens they use.
import Foundation
@testable import SDUI
@testable import SDUIRegistryKit
import SDUITestSupport
import Testing

@Suite struct FallbackPackWriterTests {
    static let candidates = PackFixtures.candidates

    @Test func fallbackPackHoldsScreensAndTheirTokens() throws {
        let screens = ["checkout": screen("checkout", ["t1", "t2"], fallback: "checkout_offline"),
                       "checkout_offline": screen("checkout_offline", ["t3"]),
                       "login": screen("login", ["t4", "t5"])]
        let byID = Dictionary(uniqueKeysWithValues: Self.candidates.map { ($0.id, $0) })
        let data = try CorePackPlanner().fallbackPack(critical: ["checkout", "login"], screens: screens, tokens: { byID[$0] })
        let fallback = try FallbackPack(pack: CorePack(data: data))
        #expect(fallback.screen(for: "checkout")?.id == "checkout_offline")
        #expect(fallback.screen(for: "login")?.id == "login")
        #expect(Set(fallback.pack.ids) == ["t3", "t4", "t5"])
        #expect(throws: RegistryError.self) {
            try CorePackPlanner().fallbackPack(critical: ["nope"], screens: screens, tokens: { byID[$0] })
        }
        #expect(throws: RegistryError.self) {
            try CorePackPlanner().fallbackPack(critical: ["login"], screens: screens, tokens: { _ in nil })
        }
    }

    /// Each critical screen is embedded under its own id, without the
    /// fallbackScreenId it may carry; tokens shared by two screens go in once.
    @Test func embeddedScreensStandInForTheCriticalOnes() throws {
        let c = StoredScreen(id: "c", payload: Data(#"{"id":"c","fallbackScreenId":"x","tokens":[{"id":"t2"}]}"#.utf8))
        let screens = ["a": screen("a", ["t1", "t2"]), "b": screen("b", ["t2", "t3"], fallback: "c"), "c": c]
        let byID = Dictionary(uniqueKeysWithValues: Self.candidates.map { ($0.id, $0) })
        let data = try CorePackPlanner().fallbackPack(critical: ["a", "b"], screens: screens, tokens: { byID[$0] })
        let fallback = try FallbackPack(pack: CorePack(data: data))
        #expect(fallback.screens.keys.sorted() == ["a", "b"])
        #expect(fallback.screen(for: "a")?.fallbackFor == "a" && fallback.screen(for: "b")?.id == "c")
        #expect(fallback.pack.ids == ["t1", "t2"])
        #expect(try fallback.pack.member("screens").map { String(decoding: $0, as: UTF8.self).contains("fallbackScreenId") } == false)
    }
}
