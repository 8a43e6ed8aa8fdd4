// ScreenResolverTests.swift - screens into render trees: props, bindings, themes and every fallback.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct ScreenResolverTests {
    static let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")

    func token(_ id: String, _ json: String) -> DesignToken { try! DesignToken(json: json, source: id) }

    func found(_ tokens: DesignToken...) -> [String: TokenLookup] {
        Dictionary(uniqueKeysWithValues: tokens.map { ($0.id, .found($0, .pack)) })
    }

    func screen(_ ids: String..., bind: [String: JSONValue]? = nil) -> ScreenPayload {
        ScreenPayload(id: "s", tokens: ids.map { ScreenPayload.Item(id: $0, bind: bind) })
    }

    func kinds(_ tree: RenderTree) -> [RenderIssue.Kind] { tree.issues.map(\.kind) }

    static let card = """
    {"id":"card","version":1,"primitive":"Column","primitiveVersion":3,"props":{
      "padding":{"horizontal":"md","top":"@spacing.lg"},"spacing":"@spacing.sm","background":"@color.surface",
      "cornerRadius":"@radius.md","children":[
        {"primitive":"Text","primitiveVersion":4,"props":{"text":"Hi {{user.name}}","style":"@typography.bodyMedium","color":"@color.textPrimary"}},
        {"primitive":"Text","props":{"text":"{{count}} left","style":"caption","maxLines":"{{lines}}"}},
        {"primitive":"Spacer","props":{"size":"xl"}}]}}
    """

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

    @Test func wholeValueBindingsMeetPropRules() throws {
        // "{{count}}" bound to 7 stays a number, which a string prop shows as "7";
        // bound to an object, Text.text is broken and the node a placeholder.
        let card = Self.card.replacingOccurrences(of: "{{count}} left", with: "{{count}}")
        let number = ScreenResolver().resolve(screen("card", bind: ["count": 7]), lookups: found(token("card", card)))
        #expect(number.root.children[0].children[1].props["text"] == "7")
        let object = ScreenResolver().resolve(screen("card", bind: ["count": .object(["n": 7])]),
                                              lookups: found(token("card", card)))
        let caption = object.root.children[0].children[1]
        #expect(caption.kind == .placeholder && caption.reason == "prop_rule")
        #expect(caption.primitive == "Text")
        // "{{lines}}" and "{{user.name}}" had no value: removed or emptied, and reported.
        #expect(Set(object.issues.filter { $0.kind == .missingBinding }.map(\.path))
                == ["props.children[1].props.maxLines", "props.children[0].props.text"])
        #expect(object.root.children[0].children[0].props["text"] == "Hi ")
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

    @Test func unknownPrimitiveIsAPlaceholderWithAnEvent() throws {
        let t = token("mixed", """
        {"id":"mixed","version":1,"primitive":"Column","primitiveVersion":3,"props":{"children":[
          {"primitive":"Text","primitiveVersion":4,"props":{"text":"kept"}},
          {"primitive":"Carousel","primitiveVersion":2,"props":{"children":[{"primitive":"Text","props":{"text":"x"}}]}},
          {"primitive":"Text","primitiveVersion":4,"props":{"text":"also kept"}}]}}
        """)
        var ctx = RenderContext()
        ctx.appVersion = "4.2.0"
        let tree = ScreenResolver(ctx).resolve(screen("mixed"), lookups: found(t))
        let kids = tree.root.children[0].children
        #expect(kids.map(\.kind) == [.primitive, .placeholder, .primitive])
        #expect(kids[1].primitive == "Carousel" && kids[1].version == 2 && kids[1].reason == "unknown_primitive")
        #expect(kids[1].children.isEmpty)
        #expect(tree.events == [RenderEvent(name: "unknown_primitive", token: "mixed", appVersion: "4.2.0", detail: "Carousel@2")])
        #expect(tree.issues.map(\.path) == ["props.children[1]"])
    }

    @Test func incompatibleVersionsNestedAndAtTheRoot() throws {
        let nested = token("n", """
        {"id":"n","version":1,"primitive":"Column","primitiveVersion":3,"props":{"children":[
          {"primitive":"Row","primitiveVersion":2,"props":{"children":[{"primitive":"Text","primitiveVersion":5,"props":{"text":"new"}}]}}]}}
        """)
        let root = token("r", #"{"id":"r","version":1,"primitive":"Column","primitiveVersion":4,"props":{}}"#)
        let tree = ScreenResolver().resolve(screen("n", "r"), lookups: found(nested, root))
        let deep = tree.root.children[0].children[0].children[0]
        #expect(deep.kind == .placeholder && deep.reason == "incompatible_version" && deep.primitive == "Text" && deep.version == 5)
        #expect(tree.root.children[0].kind == .primitive)
        #expect(tree.root.children[1].kind == .placeholder && tree.root.children[1].reason == "incompatible_version")
        #expect(tree.issues.map(\.path) == ["props.children[0].props.children[0]", "root"])
        #expect(tree.events.isEmpty)
        // The same tokens render in full for a client that has the newer versions.
        var ctx = RenderContext()
        ctx.primitives = try PrimitiveMap.builtIn.adding("Text", version: 5).adding("Column", version: 4)
        #expect(ScreenResolver(ctx).resolve(screen("n", "r"), lookups: found(nested, root)).issues.isEmpty)
    }

    @Test func offlineMissesAreSkeletonsAndFailuresPlaceholders() {
        let ok = token("ok", #"{"id":"ok","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"hi"}}"#)
        var lookups = found(ok)
        lookups["away"] = .offline
        lookups["broken"] = .unavailable(SDUIError(.signature, "bad signature", input: "registry"))
        let tree = ScreenResolver().resolve(screen("ok", "away", "broken", "never"), lookups: lookups)
        #expect(tree.root.children.map(\.kind) == [.primitive, .skeleton, .placeholder, .placeholder])
        #expect(tree.root.children.map(\.reason) == [nil, "offline", "unavailable", "unavailable"])
        #expect(tree.root.children[1].token == "away")
        #expect(kinds(tree) == [.offline, .unavailable, .unavailable])
        #expect(tree.issues[1].message.contains("bad signature"))
        #expect(tree.renderedScreen == "s")
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

    @Test func malformedNodesDegradeOneByOne() {
        // The C core refuses tokens with malformed nodes, so they reach the
        // resolver only from code: here, a block renderer.
        var ctx = RenderContext()
        ctx.blocks.register("odd") { _ in
            .object(["primitive": "Column", "primitiveVersion": 3, "props": .object(["children": .array([
                .object(["props": .object(["text": "no primitive"])]), 42,
                .object(["primitive": "Text", "primitiveVersion": 0, "props": .object(["text": "v0"])]),
                .object(["primitive": "Text", "props": "not an object"]),
                .object(["primitive": "Row", "props": .object(["children": .object(["not": "a list"])])]),
                .object(["primitive": "Text", "props": .object(["text": "fine"])]),
            ])])])
        }
        let tree = ScreenResolver(ctx).resolve(BlockScreen(id: "b", blocks: [.object(["type": "odd"])]))
        let kids = tree.root.children[0].children
        #expect(kids.map(\.kind) == [.placeholder, .placeholder, .placeholder, .placeholder, .primitive, .primitive])
        #expect(kids.prefix(4).allSatisfy { $0.reason == "bad_content" })
        #expect(kids[4].children.isEmpty && kids[5].props["text"] == "fine")
        #expect(kinds(tree) == Array(repeating: .badContent, count: 5))
        #expect(tree.issues.allSatisfy { $0.token == "block[0]" })
    }

    @Test func propRulesRequiredAndOptional() throws {
        let t = token("rules", """
        {"id":"rules","version":1,"primitive":"Column","primitiveVersion":3,"props":{"background":"tomato","children":[
          {"primitive":"Text","props":{"color":"#000"}},
          {"primitive":"AsyncImage","primitiveVersion":2,"props":{"url":"https://cdn.sdui.example.com/a.png","width":-5}},
          {"primitive":"Gauge","props":{"value":"high"}},
          {"primitive":"Gauge","props":{"value":0.5}}]}}
        """)
        var ctx = RenderContext()
        ctx.primitives = try PrimitiveMap.builtIn.adding("Gauge", version: 1, props: ["value": .required(.number)])
        #expect(ctx.primitives.propRules(of: "Gauge") == ["value": .required(.number)])
        let tree = ScreenResolver(ctx).resolve(screen("rules"), lookups: found(t))
        let col = tree.root.children[0]
        #expect(col.kind == .primitive && col.props["background"] == nil)
        #expect(col.children.map(\.kind) == [.placeholder, .primitive, .placeholder, .primitive])
        #expect(col.children[1].props["width"] == nil && col.children[1].props["url"] != nil)
        #expect(col.children[3].props["value"] == 0.5)
        #expect(kinds(tree) == [.propRule, .propRule, .propRule, .propRule])
        #expect(tree.issues.contains { $0.message.contains("Text needs the prop \"text\"") })
        #expect(tree.issues.contains { $0.message.contains("Gauge.value must be number") })
    }

    @Test func inlineStylesSpacingNamesAndBoundNames() throws {
        let t = token("st", """
        {"id":"st","version":1,"primitive":"Column","primitiveVersion":3,"props":{
          "padding":{"horizontal":"md","top":"huge","bottom":"@spacing.nope"},"children":[
          {"primitive":"Text","props":{"text":"a","style":{"size":12}}},
          {"primitive":"Text","props":{"text":"b","style":{"size":-3,"lineHeight":"x","weight":2.5,"family":7}}},
          {"primitive":"Text","props":{"text":"c","style":"{{st}}"}},
          {"primitive":"Column","primitiveVersion":3,"props":{"spacing":"{{gap}}","children":[]}}]}}
        """)
        let tree = ScreenResolver().resolve(screen("st", bind: ["st": "caption", "gap": "lg"]), lookups: found(t))
        let col = tree.root.children[0]
        // One unknown spacing name drops that side only.
        #expect(col.props["padding"] == .object(["horizontal": 16]))
        // A partial inline style is completed; a broken one is dropped.
        #expect(col.children[0].props["style"] == .object(["size": 12, "lineHeight": 15, "weight": 400, "family": "system"]))
        #expect(col.children[1].props["style"] == nil)
        // A bound name in a style or spacing prop is looked up as a name.
        #expect(col.children[2].props["style"] == .object(["size": 12, "lineHeight": 16, "weight": 400, "family": "system"]))
        #expect(col.children[3].props["spacing"] == 24)
        #expect(kinds(tree) == [.unknownThemeReference, .unknownThemeReference, .propRule])
        #expect(tree.issues[0].message.contains("no spacing \"huge\"") || tree.issues[1].message.contains("no spacing \"huge\""))
    }

    @Test func issuesComeInPropNameOrder() throws {
        // Rule checks walk props sorted by name, so the same content gives
        // the same issue list on every run (dictionaries are not ordered).
        let t = token("o", """
        {"id":"o","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"x",
          "style":{"size":0},"maxLines":"many","color":"blue","zIndex":"@color.nope","alpha":"@color.nada"}}
        """)
        let tree = ScreenResolver().resolve(screen("o"), lookups: found(t))
        // Theme references while props resolve, then the rule checks.
        #expect(tree.issues.map(\.path) == ["props.alpha", "props.zIndex", "props.color", "props.maxLines", "props.style"],
                "\(tree.issues)")
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

    @Test func visibilityThemeReferencesAndBindingsInTrees() {
        let t = token("v", """
        {"id":"v","version":1,"primitive":"Column","primitiveVersion":3,"props":{"children":[
          {"primitive":"Text","props":{"text":"shown","visible":"{{show}}"}},
          {"primitive":"Text","props":{"text":"hidden","visible":"{{hide}}"}},
          {"primitive":"Text","props":{"text":"no flag","visible":"{{missing}}"}},
          {"primitive":"Text","props":{"text":"@handle and user@example.com","color":"@color.nope","style":"@shadow.md"}}]}}
        """)
        let tree = ScreenResolver().resolve(screen("v", bind: ["show": true, "hide": false]), lookups: found(t))
        let kids = tree.root.children[0].children
        #expect(kids.compactMap { $0.props["text"]?.stringValue } == ["shown", "no flag", "@handle and user@example.com"])
        #expect(kids.allSatisfy { $0.props["visible"] == nil })
        // An unknown theme reference drops the prop; "@shadow.md" is no theme group, so it is an unknown typography name.
        #expect(kids[2].props["color"] == nil && kids[2].props["style"] == nil)
        #expect(kinds(tree) == [.missingBinding, .unknownThemeReference, .unknownThemeReference])
    }

    @Test func everyExampleScreenRendersCleanly() throws {
        let pack = try CorePack(contentsOf: Self.examples.appendingPathComponent("core-pack.json.gz"))
        let nord = try Theme(contentsOf: Self.examples.appendingPathComponent("themes/theme_nordlicht.json"))
        var ctx = RenderContext()
        ctx.themes = ThemeCatalog([nord])
        ctx.flowThemeID = nord.id
        let dir = Self.examples.appendingPathComponent("screens")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count == 8)
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

    @Test func treeJSONRoundTrips() throws {
        let pack = try CorePack(contentsOf: Self.examples.appendingPathComponent("core-pack.json.gz"))
        let payload = try ScreenPayload(json: Data(contentsOf: Self.examples.appendingPathComponent("screens/checkout.json")))
        var lookups: [String: TokenLookup] = [:]
        for item in payload.tokens { lookups[item.id] = try pack.token(item.id).map { .found($0, .pack) } }
        lookups["checkout_upsell"] = .offline
        let tree = ScreenResolver().resolve(payload, lookups: lookups)
        let decoded = try JSONDecoder().decode(RenderTree.self, from: try tree.jsonData())
        #expect(decoded == tree)
        #expect(decoded.root.allNodes.contains { $0.kind == .skeleton })
    }

    @Test func throughTheRepositoryWithARealRegistry() async throws {
        let net = Fixtures.token("net_banner", props: #"{"text":"from the registry"}"#)
        let registry = try await LoopbackRegistry.start(tokens: ["net_banner": Data(net.utf8)])
        let pack = try CorePack(data: Fixtures.pack(tokens: [Fixtures.token("packed", props: #"{"text":"from the pack"}"#)]))
        let disk = try DiskCache(path: Fixtures.temporaryDirectory().appendingPathComponent("r.db").path, durable: false)
        let transport = HTTPRegistryTransport(baseURL: registry.baseURL, primitives: PrimitiveMap.builtIn.headerValue,
                                           bearerToken: nil, timeout: 5)
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

    /// Five thousand `{{a}}` bound to a large value: the node degrades to a
    /// placeholder with a `limit` issue, and the rest of the screen renders.
    @Test func bindingExpansionIsBounded() throws {
        let text = String(repeating: "{{a}}", count: 5000)
        let bomb = token("bomb", #"{"id":"bomb","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"\#(text)"}}"#)
        let ok = token("ok", #"{"id":"ok","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"hi {{a}}"}}"#)
        let value = JSONValue.string(String(repeating: "z", count: 30_000))
        let tree = ScreenResolver().resolve(screen("bomb", "ok", bind: ["a": value]), lookups: found(bomb, ok))
        #expect(tree.root.children.map(\.kind) == [.placeholder, .primitive])
        #expect(tree.root.children[0].reason == "limit")
        let issue = try #require(tree.issues.first { $0.kind == .limit })
        #expect(issue.token == "bomb" && issue.path == "root")
        #expect(issue.message.contains("props.text") && issue.message.contains("string"))
        #expect(tree.root.children[1].props["text"] == .string("hi " + String(repeating: "z", count: 30_000)))
        // The encoded tree stays small.
        #expect(try tree.jsonData().count < 200_000)
    }

    /// Many tokens each under the per-node bound still meet the per-tree one,
    /// and whole-value bindings in lists count too.
    @Test func treeAndListBoundsHold() throws {
        var ctx = RenderContext()
        ctx.bindingLimits = BindingLimits(maxStringBytes: 1000, maxNodeBytes: 1500, maxTreeBytes: 2500)
        let t = token("t", #"{"id":"t","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"{{a}}"}}"#)
        let list = token("l", #"{"id":"l","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"x","items":["{{a}}","{{a}}"]}}"#)
        let value = JSONValue.string(String(repeating: "q", count: 798))   // 800 bytes as counted
        let tree = ScreenResolver(ctx).resolve(screen("t", "t", "t", "t", bind: ["a": value]), lookups: found(t))
        #expect(tree.root.children.map(\.kind) == [.primitive, .primitive, .primitive, .placeholder])
        #expect(tree.issues.last?.message.contains("per-tree") == true)
        let listTree = ScreenResolver(ctx).resolve(screen("l", bind: ["a": value]), lookups: found(list))
        #expect(listTree.root.children.map(\.kind) == [.placeholder])
        #expect(listTree.issues.first?.message.contains("per-node") == true)
    }
}
