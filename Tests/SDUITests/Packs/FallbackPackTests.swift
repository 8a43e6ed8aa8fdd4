// FallbackPackTests.swift - a pack's fallback screens: read once, refused when malformed.
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct FallbackPackTests {
    static func fallbackPack(screens: String) throws -> FallbackPack {
        let tokens = [Fixtures.token("offline_notice", props: #"{"text":"You are offline: pay at pickup"}"#),
                      Fixtures.token("offline_button", primitive: "Button", props: #"{"label":"Retry"}"#)]
        let data = Fixtures.pack(tokens: tokens, extra: #""screens":\#(screens)"#)
        return try FallbackPack(pack: CorePack(data: data, name: "fallback.json.gz"))
    }

    @Test func badFallbackPacksAreErrors() {
        #expect(throws: SDUIError.self) { try Self.fallbackPack(screens: #"[{"id":"x","tokens":[]}]"#) }
        #expect(throws: SDUIError.self) { try Self.fallbackPack(screens: #"{"id":"x"}"#) }
        #expect(throws: SDUIError.self) {
            try Self.fallbackPack(screens: #"[{"id":"a","fallbackFor":"c","tokens":[]},{"id":"b","fallbackFor":"c","tokens":[]}]"#)
        }
    }

    @Test func screensAreFoundByTheScreenTheyStandInFor() throws {
        let pack = try Self.fallbackPack(screens: #"""
        [{"id":"checkout_offline","fallbackFor":"checkout","tokens":[{"id":"offline_notice"}]},
         {"id":"login_offline","fallbackFor":"login","tokens":[{"id":"offline_button"}]}]
        """#)
        #expect(pack.screen(for: "checkout")?.id == "checkout_offline")
        #expect(pack.screen(for: "login")?.tokens.map(\.id) == ["offline_button"])
        #expect(pack.screen(for: "checkout_offline") == nil)
        #expect(Set(pack.pack.ids) == ["offline_notice", "offline_button"])
        // A pack without a "screens" member is a Fallback Pack with none.
        let plain = try FallbackPack(pack: CorePack(data: Fixtures.pack(tokens: [Fixtures.token("t")])))
        #expect(plain.screens.isEmpty && plain.screen(for: "checkout") == nil)
    }
}
