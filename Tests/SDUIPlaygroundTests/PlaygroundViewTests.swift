// PlaygroundViewTests.swift - one page's engine: the screen and flow
// sessions behind it, the patches it sends (only the nodes that changed),
// files changing under it, the panels' options, and messages it refuses.
#if Server
import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUITestSupport
@testable import SDUIPlayground
import Testing

@Suite struct PlaygroundViewTests {
    /// A view of `target` over a fresh copy of the examples.
    static func view(_ target: PlaygroundView.Target) throws -> (PlaygroundFixture, PlaygroundFolder, PlaygroundView) {
        let fixture = try PlaygroundFixture()
        let folder = try fixture.folder()
        let journal = try FlowJournal(path: fixture.dir.appendingPathComponent("journal.sqlite").path)
        return (fixture, folder, PlaygroundView(folder: folder, journal: journal, target: target))
    }

    /// The message of `type` among `messages`.
    static func message(_ type: String, in messages: [JSONValue]) -> JSONValue? {
        messages.first { $0["type"]?.stringValue == type }
    }

    /// The path of the first node of `tree` that `match` accepts.
    static func path(in tree: RenderTree, _ match: (RenderNode) -> Bool) -> String? {
        RenderNodeID.all(in: tree).first { match($0.node) }.map { HTMLPreview.pathText($0.path) }
    }

    @Test func startsWithTheWholeScreenAndItsPanels() async throws {
        let (fixture, _, view) = try Self.view(.screen("checkout"))
        defer { fixture.remove() }
        let first = await view.start()
        let render = try #require(Self.message("render", in: first)?["html"]?.stringValue)
        #expect(render.contains(#"class="sdui-frame"#) && render.contains(#"data-path="""#) && render.contains(#"data-path="0""#))
        let state = try #require(Self.message("state", in: first))
        #expect(state["screen"]?.stringValue == "checkout")
        #expect(state["events"]?.arrayValue?.contains(.string("screen_view")) == true)
        #expect(state["errors"]?.arrayValue?.isEmpty == true)
    }

    @Test func typingAndTappingChangeTheStoreAndPatchOnlyTheirNodes() async throws {
        let (fixture, _, view) = try Self.view(.screen("checkout"))
        defer { fixture.remove() }
        _ = await view.start()
        let tree = try #require(await view.shownTree)
        let field = try #require(Self.path(in: tree) { $0.primitive == "TextField" && $0.props["key"] == "promoCode" })
        let apply = try #require(Self.path(in: tree) { $0.props["label"] == "Apply" })

        let typed = await view.handle(["type": "input", "path": .string(field), "value": "WINTER24"])
        #expect(Self.message("render", in: typed) == nil, "typing redrew the whole screen")
        #expect(Self.message("state", in: typed)?["store"]?["promoCode"] == "WINTER24")

        let tapped = await view.handle(["type": "tap", "path": .string(apply)])
        let state = try #require(Self.message("state", in: tapped))
        #expect(state["store"]?["cart"]?["promoCode"] == "WINTER24", "\(state)")
        let events = state["events"]?.arrayValue ?? []
        #expect(events.contains("action") && events.contains("promo_applied"), "\(events)")

        // Emptied, the required field is refused and shows why, in a patch of that field alone.
        let emptied = await view.handle(["type": "input", "path": .string(field), "value": ""])
        let patch = try #require(Self.message("patch", in: emptied)?["changes"]?.arrayValue, "\(emptied)")
        #expect(patch.map { $0["path"] } == [.string(field)], "\(patch)")
        #expect(patch.first?["html"]?.stringValue?.contains("sdui-field-message") == true, "\(patch)")
        // Apply validates it: refused, the store keeps the applied code.
        let refused = await view.handle(["type": "tap", "path": .string(apply)])
        #expect(Self.message("render", in: refused) == nil)
        #expect(Self.message("state", in: refused)?["store"]?["cart"]?["promoCode"] == "WINTER24", "\(refused)")
    }

    @Test func aSavedTokenPatchesTheNodesItDrawsAndABrokenOneOnlyTheBanner() async throws {
        let (fixture, folder, view) = try Self.view(.screen("checkout"))
        defer { fixture.remove() }
        _ = await view.start()
        try fixture.replace("tokens/checkout_header.json", #""text": "@string.checkout.title""#, with: #""text": "Kasse""#)
        folder.reload("tokens/checkout_header.json")
        let saved = await view.folderChanged(["tokens/checkout_header.json"])
        let changes = try #require(Self.message("patch", in: saved)?["changes"]?.arrayValue, "\(saved)")
        #expect(changes.count == 1)
        #expect(changes.first?["html"]?.stringValue?.contains("Kasse") == true)
        #expect(changes.first?["html"]?.stringValue?.contains("Pay CHF") == false, "more than the header was sent")

        try fixture.write("tokens/checkout_header.json", "{ \"id\": ")
        folder.reload("tokens/checkout_header.json")
        let broken = await view.folderChanged(["tokens/checkout_header.json"])
        #expect(Self.message("patch", in: broken) == nil && Self.message("render", in: broken) == nil, "\(broken)")
        let errors = try #require(Self.message("state", in: broken)?["errors"]?.arrayValue)
        #expect(errors.first?["file"] == "tokens/checkout_header.json")
        #expect(errors.first?["place"]?.stringValue?.hasPrefix("line 1, column") == true, "\(errors)")
        // A file no part of this screen reads: the panels only.
        let other = await view.folderChanged(["tokens/login_title.json"])
        #expect(other.count == 1 && other.first?["type"] == "state")
    }

    @Test func anOldPrimitiveMapShowsPlaceholders() async throws {
        let (fixture, _, view) = try Self.view(.screen("checkout"))
        defer { fixture.remove() }
        let first = await view.start()
        #expect(Self.message("render", in: first)?["html"]?.stringValue?.contains("sdui-placeholder") == false)
        let old = await view.handle(["type": "options", "primitives": "Column@1,Row@1,Text@1,AsyncImage@1,Spacer@1"])
        let html = (old.compactMap { m in m["html"]?.stringValue } + old.flatMap { m in
            (m["changes"]?.arrayValue ?? []).compactMap { $0["html"]?.stringValue } }).joined()
        #expect(html.contains("sdui-placeholder"), "\(old)")
        #expect(Self.message("state", in: old)?["options"]?["primitives"] == "Column@1,Row@1,Text@1,AsyncImage@1,Spacer@1")
        let refused = await view.handle(["type": "options", "primitives": "Column@x"])
        #expect(Self.message("error", in: refused) != nil)
        let scale = await view.handle(["type": "options", "textScale": 9])
        #expect(Self.message("error", in: scale)?["message"]?.stringValue?.contains("textScale") == true)
    }

    @Test func aFlowStepsForwardAndBack() async throws {
        let (fixture, _, view) = try Self.view(.flow("onboarding"))
        defer { fixture.remove() }
        let first = await view.start()
        #expect(Self.message("render", in: first)?["html"]?.stringValue?.contains("Train smarter") == true)
        let tree = try #require(await view.shownTree)
        let start = try #require(Self.path(in: tree) { $0.props["label"] == "Get started" })
        let next = await view.handle(["type": "tap", "path": .string(start)])
        let html = try #require(Self.message("render", in: next)?["html"]?.stringValue, "\(next)")
        #expect(html.contains("What is your goal?"))
        #expect(Self.message("state", in: next)?["canBack"] == true)
        let back = await view.handle(["type": "back"])
        #expect(Self.message("render", in: back)?["html"]?.stringValue?.contains("Train smarter") == true)
        #expect(Self.message("state", in: back)?["screen"] == "screen_welcome")
    }

    @Test(arguments: [
        JSONValue.object([:]), ["type": "launch"], ["type": "tap", "path": "0.x"], ["type": "tap", "path": "999"],
        ["type": "tap"], ["type": "input", "key": "a..b", "value": 1], ["type": "select", "path": "-1"],
        ["type": "options", "mode": "sepia"], ["type": "next"],
    ])
    func refusesMessagesThatCannotApply(_ message: JSONValue) async throws {
        let (fixture, _, view) = try Self.view(.screen("checkout"))
        defer { fixture.remove() }
        _ = await view.start()
        let answer = await view.handle(message)
        let error = try #require(Self.message("error", in: answer)?["message"]?.stringValue, "\(answer)")
        #expect(!error.isEmpty)
        #expect(Self.message("state", in: answer)?["issues"]?.arrayValue?.contains(.string(error)) == true)
    }

    @Test func selectAnswersWithTheNodeAsJSON() async throws {
        let (fixture, _, view) = try Self.view(.screen("checkout"))
        defer { fixture.remove() }
        _ = await view.start()
        let answer = await view.handle(["type": "select", "path": "0"])
        let node = try #require(Self.message("node", in: answer)?["node"])
        #expect(node["token"] == "checkout_header")
        #expect(node["children"]?.arrayValue?.isEmpty == false)
    }

    @Test func hostileTextInAFileIsEscapedInWhatThePageGets() async throws {
        let (fixture, folder, view) = try Self.view(.screen("checkout"))
        defer { fixture.remove() }
        _ = await view.start()
        let text = try fixture.read("tokens/checkout_header.json")
        var hostile = text
        for (i, s) in [HostileStrings.text, HostileStrings.label, HostileStrings.value].enumerated() {
            let old = ["\"@string.checkout.title\"", "\"@string.checkout.back\"", "\"{{step}}/3\""][i]
            hostile = hostile.replacingOccurrences(of: old, with: JSONValue.literal(s))
        }
        try fixture.write("tokens/checkout_header.json", hostile)
        folder.reload("tokens/checkout_header.json")
        let answer = await view.folderChanged(["tokens/checkout_header.json"])
        let html = answer.flatMap { m in (m["changes"]?.arrayValue ?? []).compactMap { $0["html"]?.stringValue } }.joined()
        #expect(html.contains("&lt;script&gt;"), "\(answer)")
        #expect(!html.contains("<script") && !html.contains(#"id="pwned"#) && !html.contains("<img") && !html.contains("<i "))
    }
    @Test func theThemePickerWinsOverTheScreensOwnAndModeFollows() async throws {
        let (fixture, folder, view) = try Self.view(.screen("checkout"))
        defer { fixture.remove() }
        _ = await view.start()
        let before = try #require(await view.shownTree)
        let other = try #require(folder.themeList.map(\.id).first { $0 != before.theme })
        let picked = await view.handle(["type": "options", "theme": .string(other)])
        #expect(Self.message("render", in: picked)?["html"]?.stringValue?.contains(#"data-theme="\#(other)""#) == true,
                "\(picked.map { $0["type"] ?? "" })")
        #expect(Self.message("state", in: picked)?["options"]?["theme"] == .string(other))
        let dark = await view.handle(["type": "options", "mode": "dark"])
        #expect(Self.message("render", in: dark)?["html"]?.stringValue?.contains("sdui-mode-dark") == true)
        let back = await view.handle(["type": "options", "theme": .null, "mode": "light"])
        #expect(Self.message("render", in: back)?["html"]?.stringValue?.contains(#"data-theme="\#(before.theme)""#) == true)
    }
}
#endif
