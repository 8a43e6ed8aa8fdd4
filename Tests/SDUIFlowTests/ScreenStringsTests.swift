// ScreenStringsTests.swift - catalogs in a running session: a block
// screen's texts and a token's resolved in the session's locale, and a key
// no catalog has committed to the outbox as a missing_string event with its
// key and locale.
import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUIStore
import SDUITestSupport
import Testing

@Suite struct ScreenStringsTests {
    static let screens = ScreenSessionTests.Screens(
        tokens: ["title": #"{"id":"title","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":{"$string":"items","count":"{{cart.count}}"}}}"#,
                 "lost": #"{"id":"lost","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"@string.nowhere"}}"#],
        tokenScreens: ["cart": ["title", "lost"]],
        blockScreens: ["welcome": ["id": "welcome", "blocks": [["type": "header", "title": "@string.welcome"]]]])

    static func session(_ locale: String, journal: FlowJournal) throws -> ScreenSession {
        var context = RenderContext()
        context.strings = try StringCatalog(defaultLocale: "en", catalogs: [
            "en": Data(#"{"welcome":"Welcome","items":{"one":"{count} item","other":"{count} items"}}"#.utf8),
            "pl": Data(#"{"welcome":"Witaj","items":{"one":"{count} rzecz","few":"{count} rzeczy","many":"{count} rzeczy","other":"{count} rzeczy"}}"#.utf8),
        ])
        context.locale = locale
        let store = DefaultStore(appID: "test").store(.scenarioSession(id: UUID().uuidString))
        store.set("cart.count", .integer(3))
        return ScreenSession(provider: screens, resolver: ScreenResolver(context), store: store, journal: journal,
                             configuration: .init(userID: "u1"))
    }

    @Test func textsFollowTheSessionsLocaleAndAMissingKeyIsAnEvent() async throws {
        let journal = try FlowFixtures.journal()
        let s = try Self.session("pl-PL", journal: journal)
        let welcome = try await s.open("welcome")
        #expect(welcome.root.allNodes.contains { $0.props["text"] == "Witaj" })
        let cart = try await s.open("cart")
        #expect(cart.root.children.first?.props["text"] == "3 rzeczy")
        #expect(cart.root.children.last?.props["text"] == "nowhere")
        let missing = try FlowFixtures.queued(journal).filter { $0.name == "missing_string" }
        #expect(missing.count == 1)
        #expect(missing.first?.properties["key"] == "nowhere")
        #expect(missing.first?.properties["locale"] == "pl-PL")
        #expect(missing.first?.properties["token"] == "lost")
        #expect(missing.first?.screen == "cart")
    }
}
