// GestureTests.swift - gestures in the render tree with the theme's
// settings, rows that take them, and swipes and long presses running their
// actions in a screen session.
import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUIStore
import SDUITestSupport
import Testing

@Suite struct GestureTests {
    static let card = #"""
        {"id":"card","version":1,"primitive":"Column","primitiveVersion":3,"props":{
          "gestures":{"swipe":{"direction":"left","action":{"type":"set","key":"swiped","value":true}},
                      "longPress":{"duration":800,"action":{"type":"set","key":"pressed","value":true}}},
          "children":[{"primitive":"Text","primitiveVersion":4,"props":{"text":"Inbox item"}},
                      {"primitive":"AsyncImage","primitiveVersion":2,"props":{"url":"https://cdn.x.test/a.png","alt":"A",
                        "gestures":{"pinch":{"max":4}}}}]}}
        """#

    static func tree(_ json: String, theme: Theme? = nil) throws -> RenderTree {
        var context = RenderContext()
        if let theme {
            context.themes = ThemeCatalog([theme])
            context.flowThemeID = theme.id
        }
        let token = try DesignToken(json: Data(json.utf8))
        return ScreenResolver(context).resolve(ScreenPayload(id: "s", tokens: [.init(id: token.id)]),
                                               lookups: [token.id: .found(token, .pack)])
    }

    /// Settings the author left out come from the theme: the SDK's
    /// defaults, or a theme's own `gestures`.
    @Test func theTreeCarriesEveryGestureWholeWithTheThemesSettings() throws {
        let t = try Self.tree(Self.card)
        let g = try #require(t.root.children.first?.props["gestures"])
        #expect(g["swipe"] == ["direction": "left", "threshold": 50.0, "velocity": 500.0,
                               "action": ["type": "set", "key": "swiped", "value": true]], "\(g)")
        #expect(g["longPress"]?["duration"]?.doubleValue == 800)
        let pinch = try #require(t.root.children.first?.children.last?.props["gestures"]?["pinch"])
        #expect(pinch == ["min": 0.5, "max": 4.0])
        #expect(t.issues.isEmpty, "\(t.issues)")
        let brisk = Theme(id: "brisk", gestures: ["swipeThreshold": 30, "swipeVelocity": 800])
        let b = try Self.tree(Self.card, theme: brisk).root.children.first?.props["gestures"]?["swipe"]
        #expect(b?["threshold"]?.doubleValue == 30 && b?["velocity"]?.doubleValue == 800)
    }

    @Test func aGestureTheRowDoesNotTakeOrABadSettingIsDroppedWithItsPath() throws {
        for (props, says) in [
            (#"{"text":"x","gestures":{"pinch":{}}}"#, "gestures.pinch: Text does not take pinch"),
            (#"{"text":"x","gestures":{"longPress":{}}}"#, "gestures.longPress.action"),
            (#"{"text":"x","gestures":{"longPress":{"duration":20,"action":"back"}}}"#, "gestures.longPress.duration"),
            (#"{"text":"x","gestures":{"wave":{}}}"#, "gestures.wave: not a gesture"),
        ] {
            let t = try Self.tree(#"{"id":"t","version":1,"primitive":"Text","primitiveVersion":4,"props":\#(props)}"#)
            #expect(t.root.children.first?.props["gestures"] == nil && t.root.children.first?.props["text"] == "x")
            #expect(t.issues.first?.message.contains(says) == true, "\(t.issues)")
        }
        let swipe = try Self.tree(#"{"id":"t","version":1,"primitive":"Row","primitiveVersion":2,"props":{"gestures":{"swipe":{"direction":"sideways","action":"back"}}}}"#)
        #expect(swipe.issues.first?.message.contains("gestures.swipe.direction") == true)
    }

    /// A swipe in the node's direction and a long press run their actions
    /// (on the node or the nearest above it); another direction is not taken.
    @Test func swipesAndLongPressesRunTheirActions() async throws {
        struct One: ScreenProvider {
            func screen(_ id: String) async throws -> ProvidedScreen {
                let token = try DesignToken(json: Data(GestureTests.card.utf8))
                return ProvidedScreen(requested: id, items: ScreenPayload(id: id, tokens: [.init(id: "card")]).screenItems,
                                      lookups: ["card": .found(token, .pack)])
            }
        }
        let store = DefaultStore(appID: "test").store(.scenarioSession(id: UUID().uuidString))
        let s = ScreenSession(provider: One(), store: store)
        _ = try await s.open("inbox")
        await #expect(throws: SDUIError.self) { _ = try await s.swipe("card", direction: "right") }
        #expect(store.get("swiped") == nil)
        _ = try await s.swipe("Inbox item", direction: "left")   // on a child: the card's swipe
        #expect(store.get("swiped") == .bool(true))
        _ = try await s.longPress("card")
        #expect(store.get("pressed") == .bool(true))
        await #expect(throws: SDUIError.self) { _ = try await s.longPress("nothing here") }
    }
}
