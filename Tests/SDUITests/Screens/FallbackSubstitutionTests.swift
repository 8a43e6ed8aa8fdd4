// FallbackSubstitutionTests.swift - when a Fallback Pack screen stands in
// for a screen, and which tokens it draws with (the rule ScreenLoader and
// ScreenResolver share).
import Foundation
@testable import SDUI
import SDUICore
import SDUITestSupport
import Testing

@Suite struct FallbackSubstitutionTests: ResolverFixtures {
    /// A Fallback Pack standing in for "checkout" with a screen of three
    /// tokens, two of which the pack holds.
    func pack() throws -> FallbackPack {
        try FallbackPackTests.fallbackPack(screens: #"""
        [{"id":"checkout_offline","fallbackFor":"checkout","tokens":[{"id":"offline_notice"},{"id":"offline_button"},{"id":"not_in_pack"}]}]
        """#)
    }

    func checkout(_ ids: String...) -> ScreenItems {
        ScreenPayload(id: "checkout", tokens: ids.map { .init(id: $0) }).screenItems
    }

    @Test func noPayloadSubstitutesWhenThePackHasTheScreen() throws {
        let pack = try pack()
        let s = try #require(FallbackSubstitution(noPayloadFor: "checkout", pack: pack))
        #expect(s.screen.id == "checkout_offline" && s.reason == .noPayload)
        #expect(FallbackSubstitution(noPayloadFor: "home", pack: pack) == nil)
        #expect(FallbackSubstitution(noPayloadFor: "checkout", pack: nil) == nil)
        // The substitute's own id is not a screen the pack stands in for.
        #expect(FallbackSubstitution(noPayloadFor: "checkout_offline", pack: pack) == nil)
    }

    /// Only an offline miss is a reason; a token that is unavailable (an
    /// error), found, or not looked up at all is not.
    @Test func onlyAnOfflineMissSubstitutes() throws {
        let pack = try pack()
        let ok = token("ok", Fixtures.token("ok"))
        let lookups: [String: TokenLookup] = [
            "ok": .found(ok, .network), "away": .offline, "gone": .offline,
            "broken": .unavailable(SDUIError(.schema, "bad", input: "broken")),
        ]
        let s = try #require(FallbackSubstitution(for: checkout("ok", "gone", "broken", "away"), lookups: lookups, pack: pack))
        #expect(s.screen.id == "checkout_offline" && s.reason == .offlineTokens(["gone", "away"]))
        #expect(FallbackSubstitution(for: checkout("ok", "broken", "unasked"), lookups: lookups, pack: pack) == nil)
        #expect(FallbackSubstitution(for: checkout(), lookups: lookups, pack: pack) == nil)
        // An offline miss on a screen the pack does not stand in for.
        let home = ScreenPayload(id: "home", tokens: [.init(id: "away")]).screenItems
        #expect(FallbackSubstitution(for: home, lookups: lookups, pack: pack) == nil)
        #expect(FallbackSubstitution(for: checkout("away"), lookups: lookups, pack: nil) == nil)
    }

    /// The substitute's tokens: found stays found; otherwise the pack's own
    /// token, else the lookup as it was, else an offline miss.
    @Test func theSubstituteDrawsWithThePacksTokens() throws {
        let pack = try pack()
        let mine = token("offline_button", Fixtures.token("offline_button", primitive: "Button", props: #"{"label":"Mine"}"#))
        let unavailable = TokenLookup.unavailable(SDUIError(.notFound, "no such token", input: "not_in_pack"))
        let before: [String: TokenLookup] = [
            "offline_notice": .offline, "offline_button": .found(mine, .memory), "not_in_pack": unavailable,
            "elsewhere": .offline,
        ]
        let items = pack.screen(for: "checkout")!.screenItems
        let after = FallbackSubstitution.lookups(for: items, before, pack: pack)
        #expect(after["offline_notice"]?.token?.prop("text") == "You are offline: pay at pickup")
        #expect(after["offline_button"]?.token?.prop("label") == "Mine")
        guard case .unavailable(let e) = after["not_in_pack"] else {
            Issue.record("not_in_pack: \(String(describing: after["not_in_pack"]))")
            return
        }
        #expect(e.message == "no such token")
        // Ids the substitute does not show are left alone.
        guard case .offline = after["elsewhere"] else { Issue.record("elsewhere changed"); return }
        // Never looked up and not in the pack: an offline miss.
        let fresh = FallbackSubstitution.lookups(for: items, [:], pack: pack)
        guard case .offline = fresh["not_in_pack"] else { Issue.record("not_in_pack: \(String(describing: fresh["not_in_pack"]))"); return }
        #expect(fresh.keys.sorted() == ["not_in_pack", "offline_button", "offline_notice"])
    }
}
