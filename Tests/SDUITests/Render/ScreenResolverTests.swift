// ScreenResolverTests.swift - screens into render trees: props, themes, modes, the Fallback Pack, the repository.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct ScreenResolverTests: ResolverFixtures {
    @Test func propsAreFullyResolved() throws {
        var ctx = RenderContext()
        ctx.hostBindings = ["user": .object(["name": "Anna"]), "lines": 2]
        let tree = ScreenResolver(ctx).resolve(screen("card", bind: ["count": 7]), lookups: found(token("card", Self.card)))
        #expect(tree.issues.isEmpty, "\(tree.issues)")
        #expect(tree.theme == "sdk_fallback" && tree.themeSource == .sdk)
        #expect(tree.root.primitive == "Column" && tree.root.props["scroll"] == true)
        #expect(tree.root.props["background"] == "#FFFFFF")
        let card = try #require(tree.root.children.first)
        #expect(card.token == "card" && card.primitive == "Column" && card.version == 3)
        #expect(card.props["padding"] == .object(["horizontal": 16, "top": 24]))
        #expect(card.props["spacing"] == 8)
        #expect(card.props["background"] == "#F3F4F6")
        #expect(card.props["cornerRadius"] == 8)
        #expect(card.props["children"] == nil)
        #expect(card.children.map(\.primitive) == ["Text", "Text", "Spacer"])
        #expect(card.children.allSatisfy { $0.token == "card" })
        #expect(card.children[0].props["text"] == "Hi Anna")
        #expect(card.children[0].props["style"] == .object(["size": 16, "lineHeight": 24, "weight": 400, "family": "system"]))
        #expect(card.children[0].props["color"] == "#111827")
        // A whole-value binding keeps its type; a bare typography name resolves; version defaults to 1.
        #expect(card.children[1].props["text"] == "7 left")
        #expect(card.children[1].props["maxLines"] == 2)
        #expect(card.children[1].props["style"] == .object(["size": 12, "lineHeight": 16, "weight": 400, "family": "system"]))
        #expect(card.children[2].props["size"] == 32)
        #expect(card.children[2].version == 1)
    }

    @Test func darkModeSwapsColoursOnly() {
        var ctx = RenderContext()
        ctx.mode = .dark
        let tree = ScreenResolver(ctx).resolve(screen("card"), lookups: found(token("card", Self.card)))
        #expect(tree.mode == .dark)
        #expect(tree.root.props["background"] == "#0F172A")
        #expect(tree.root.children[0].props["background"] == "#1E293B")
        #expect(tree.root.children[0].props["spacing"] == 8)
    }

    @Test func themeResolutionOrderInATree() throws {
        let mint = try Theme(contentsOf: Self.examples.appendingPathComponent("themes/theme_mint_dark.json"))
        let nord = try Theme(contentsOf: Self.examples.appendingPathComponent("themes/theme_nordlicht.json"))
        var ctx = RenderContext()
        ctx.themes = ThemeCatalog([mint, nord])
        ctx.flowThemeID = "theme_nordlicht"
        var s = screen("card")
        let byFlow = ScreenResolver(ctx).resolve(s, lookups: found(token("card", Self.card)))
        #expect(byFlow.theme == "theme_nordlicht" && byFlow.themeSource == .flow)
        #expect(byFlow.root.children[0].props["cornerRadius"] == 10)
        s.themeId = "theme_mint_dark"
        let byScreen = ScreenResolver(ctx).resolve(s, lookups: found(token("card", Self.card)))
        #expect(byScreen.themeSource == .screen)
        #expect(byScreen.root.props["background"] == "#0B1220")
        // Mint defines no radius scale: the SDK fallback's fills the gap.
        #expect(byScreen.root.children[0].props["cornerRadius"] == 8)
        s.themeId = "theme_gone"
        let unknown = ScreenResolver(ctx).resolve(s, lookups: found(token("card", Self.card)))
        #expect(unknown.themeSource == .flow && kinds(unknown).contains(.unknownTheme))
    }

    static func fallbackPack(screens: String) throws -> FallbackPack {
        try FallbackPackTests.fallbackPack(screens: screens)
    }

    @Test func offlineSwitchesTheWholeScreenToItsFallback() throws {
        let pack = try Self.fallbackPack(screens: #"""
        [{"id":"checkout_offline","fallbackFor":"checkout","tokens":[{"id":"offline_notice"},{"id":"offline_button"},{"id":"not_in_pack"}]}]
        """#)
        #expect(pack.screens.keys.sorted() == ["checkout"])
        var ctx = RenderContext()
        ctx.fallbackPack = pack
        let ok = token("ok", #"{"id":"ok","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"hi"}}"#)
        var lookups = found(ok)
        lookups["away"] = .offline
        let checkout = ScreenPayload(id: "checkout", tokens: [.init(id: "ok"), .init(id: "away")])
        let tree = ScreenResolver(ctx).resolve(checkout, lookups: lookups)
        #expect(tree.screen == "checkout" && tree.renderedScreen == "checkout_offline")
        #expect(tree.root.children.map(\.token) == ["offline_notice", "offline_button", "not_in_pack"])
        #expect(tree.root.children.map(\.kind) == [.primitive, .primitive, .skeleton])
        #expect(tree.root.children[0].props["text"] == "You are offline: pay at pickup")
        #expect(kinds(tree).first == .fallbackScreen)
        // Another screen with an offline miss has no fallback: skeleton in place.
        let other = ScreenResolver(ctx).resolve(ScreenPayload(id: "home", tokens: [.init(id: "away")]), lookups: lookups)
        #expect(other.renderedScreen == "home" && other.root.children.map(\.kind) == [.skeleton])
        // Online (no offline miss), the screen itself renders.
        lookups["away"] = .found(ok, .network)
        #expect(ScreenResolver(ctx).resolve(checkout, lookups: lookups).renderedScreen == "checkout")
    }

    @Test func accessibilityScalesAreClamped() {
        let t = token("s", #"{"id":"s","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"x","style":"body"}}"#)
        for (scale, size) in [(Double.nan, 16), (0, 8), (-1, 8), (1e308, 64), (.infinity, 64), (2, 32)] {
            var ctx = RenderContext()
            ctx.textScale = scale
            ctx.spacingScale = scale
            let tree = ScreenResolver(ctx).resolve(screen("s"), lookups: found(t))
            #expect(tree.root.children[0].props["style"]?["size"] == .int(Int64(size)), "\(scale)")
            #expect(tree.issues.isEmpty)
        }
    }

    @Test func everyExampleScreenRendersCleanly() throws {
        let pack = try CorePack(contentsOf: Self.examples.appendingPathComponent("core-pack.json.gz"))
        let nord = try Theme(contentsOf: Self.examples.appendingPathComponent("themes/theme_nordlicht.json"))
        var ctx = RenderContext()
        ctx.themes = ThemeCatalog([nord])
        ctx.flowThemeID = nord.id
        ctx.strings = try pack.strings()
        let dir = Self.examples.appendingPathComponent("screens")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count == 9)
        for file in files {
            let payload = try ScreenPayload(json: Data(contentsOf: dir.appendingPathComponent(file)), source: file)
            for mode in ThemeMode.allCases {
                ctx.mode = mode
                let tree = ScreenResolver(ctx).resolve(payload, pack: pack)
                #expect(tree.issues == [], "\(file) \(mode)")
                // Every token is drawn, except the login error banner, whose `visible` is bound to false.
                let drawn = Set(tree.root.children.compactMap(\.token))
                #expect(Set(payload.tokens.map(\.id)).subtracting(drawn).isSubset(of: ["login_error_banner"]), "\(file)")
                let all = tree.root.allNodes
                #expect(all.allSatisfy { $0.kind == .primitive })
                // Nothing unresolved is left: no "@group.name", no "{{path}}".
                let json = String(decoding: try tree.jsonData(), as: UTF8.self)
                #expect(!json.contains("{{") && !json.contains("\"@color") && !json.contains("\"@spacing"), "\(file)")
            }
        }
    }

    @Test func throughTheRepositoryWithARealRegistry() async throws {
        let net = Fixtures.token("net_banner", props: #"{"text":"from the registry"}"#)
        let registry = try await LoopbackRegistry.start(tokens: ["net_banner": Data(net.utf8)])
        let pack = try CorePack(data: Fixtures.pack(tokens: [Fixtures.token("packed", props: #"{"text":"from the pack"}"#)]))
        let disk = try DiskCache(path: Fixtures.temporaryDirectory().appendingPathComponent("r.db").path, durable: false)
        let transport = HTTPRegistryTransport(baseURL: registry.baseURL, primitives: PrimitiveMap.builtIn.headerValue,
                                           bearerToken: nil, timeout: 30)
        let repo = TokenRepository(pack: pack, memory: try TokenCache(), disk: disk, transport: transport)
        let s = ScreenPayload(id: "home", tokens: [.init(id: "packed"), .init(id: "net_banner")])
        let online = await ScreenResolver().resolve(s, repository: repo)
        #expect(online.root.children.map { $0.props["text"] } == ["from the pack", "from the registry"])
        await registry.stop()
        // Offline now: the fetched token comes from memory; a new id is a skeleton.
        let offline = await ScreenResolver().resolve(
            ScreenPayload(id: "home", tokens: [.init(id: "net_banner"), .init(id: "never_fetched")]), repository: repo)
        #expect(offline.root.children.map(\.kind) == [.primitive, .skeleton])
    }

}
