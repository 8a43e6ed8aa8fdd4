import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUIStore
import SDUITestSupport
import Testing

/// A screen session: screens shown and the back stack, actions from the one
/// table on any screen, inputs through the store's rules, only the bound
/// nodes updated, and the events each step commits.
@Suite struct ScreenSessionTests {
    /// Screens by id: token screens over tokens given as JSON, and block screens.
    struct Screens: ScreenProvider {
        var tokens: [String: String] = [:]
        var tokenScreens: [String: [String]] = [:]
        var blockScreens: [String: JSONValue] = [:]

        func screen(_ id: String) async throws -> ProvidedScreen {
            if let ids = tokenScreens[id] {
                var lookups: [String: TokenLookup] = [:]
                for t in ids {
                    if let json = tokens[t] {
                        lookups[t] = .found(try DesignToken(json: json, source: t), t.hasPrefix("net_") ? .network : .pack)
                    }
                }
                let payload = ScreenPayload(id: id, tokens: ids.map { .init(id: $0) })
                return ProvidedScreen(requested: id, items: payload.screenItems, lookups: lookups)
            }
            if let blocks = blockScreens[id] {
                return ProvidedScreen(requested: id, items: try BlockScreen(value: blocks, source: id).screenItems)
            }
            throw SDUIError(.notFound, "no screen \"\(id)\"", input: id)
        }
    }

    static let screens = Screens(
        tokens: [
            "count_label": #"{"id":"count_label","version":3,"primitive":"Text","primitiveVersion":1,"props":{"text":"Items: {{cart.count}}"}}"#,
            "add_button": #"{"id":"add_button","version":2,"primitive":"Button","primitiveVersion":1,"props":{"label":"Add","action":{"type":"set","key":"cart.count","expr":"cart.count + 1"}}}"#,
            "net_change": #"{"id":"net_change","version":1,"primitive":"Button","primitiveVersion":1,"props":{"label":"Change","action":{"type":"navigate","to":"address"}}}"#,
            "static_text": #"{"id":"static_text","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"Thanks"}}"#,
            "hologram": #"{"id":"hologram","version":1,"primitive":"Hologram","primitiveVersion":1,"props":{}}"#,
        ],
        tokenScreens: ["cart": ["count_label", "static_text", "add_button", "net_change"], "odd": ["hologram"]],
        blockScreens: [
            "address": ["id": "address", "blocks": [
                ["type": "header", "title": "Address"],
                ["type": "text_input", "key": "city", "label": "City"],
                ["type": "cta", "primary": ["label": "Save", "action": ["type": "sequence", "actions": [
                    ["type": "validate", "keys": ["city"]], "back"]]]],
            ]],
        ])

    static func session(journal: FlowJournal? = nil, store: ScenarioStore? = nil,
                        client: HTTPClient = patientClient) -> ScreenSession {
        let store = store ?? DefaultStore(appID: "test").store(.scenarioSession(id: UUID().uuidString))
        return ScreenSession(provider: screens, store: store, journal: journal,
                             configuration: .init(userID: "u1", httpClient: client))
    }

    @Test func aTapUpdatesOnlyTheBoundNode() async throws {
        let s = Self.session()
        s.store.set("cart.count", .integer(1))
        let tree = try await s.open("cart")
        #expect(tree.root.children.first?.props["text"] == "Items: 1")
        let update = try await s.tap("Add")
        #expect(update.step == .screen("cart"))
        #expect(s.store.get("cart.count") == .integer(2))
        #expect(update.changes.map(\.path) == [[0]])
        #expect(update.changes.first?.node.props["text"] == "Items: 2")
        #expect(update.tree.root.children.first?.props["text"] == "Items: 2")
        // By node id, too.
        _ = try await s.tap("add_button")
        #expect(s.tree?.root.children.first?.props["text"] == "Items: 3")
        #expect(s.emittedEvents.filter { $0 == "action" }.count == 2)
    }

    @Test func navigateBackAndTheBackStack() async throws {
        let journal = try FlowFixtures.journal()
        let s = Self.session(journal: journal)
        _ = try await s.open("cart")
        let update = try await s.tap("Change")
        #expect(update.step == .screen("address"))
        #expect(update.changes.map(\.path) == [[]])
        #expect(s.currentScreen == "address" && s.backStack == ["cart"])
        #expect(try s.back() == .screen("cart"))
        #expect(try s.back() == .stayed("there is no previous screen"))
        #expect(s.screensShown == ["cart", "address", "cart"])
        let events = try FlowFixtures.queued(journal)
        #expect(events.map(\.seq) == Array(1...events.count))
        #expect(Set(events.map(\.session)) == [s.sessionID])
        #expect(events.allSatisfy { $0.flowId == "" && $0.userId == "u1" })
        let views = events.filter { $0.name == "screen_view" }
        #expect(views.map(\.screen) == ["cart", "address", "cart"])
        #expect(views.last?.properties["back"] == true)
        // token_usage: each token with its version and source.
        let usage = try #require(events.first { $0.name == "token_usage" })
        #expect(usage.properties["tokens"]?.arrayValue?.count == 4)
        #expect(usage.properties["tokens"]?.arrayValue?.contains(["id": "net_change", "version": 1, "source": "network"]) == true)
        let stats = try #require(events.first { $0.name == "cache_stats" })
        #expect(stats.properties["lookups"] == 4 && stats.properties["hits"] == 3)
    }

    @Test func aScreenThatCannotBeLoadedIsARenderErrorAndTheScreenStays() async throws {
        let s = Self.session()
        _ = try await s.open("cart")
        let update = try await s.perform(json: ["type": "navigate", "to": "nowhere"], node: "x")
        guard case .stayed(let why) = update.step else { Issue.record("\(update.step)"); return }
        #expect(why.hasPrefix("navigate: no screen \"nowhere\""))
        #expect(s.currentScreen == "cart")
        #expect(s.issues.last?.kind == "render_error" && s.issues.last?.node == "x")
        #expect(s.emittedEvents.suffix(2) == ["action", "render_error"])
    }

    @Test func flowOnlyActionsAndMalformedActionsAreRefused() async throws {
        let s = Self.session()
        _ = try await s.open("cart")
        for (json, prefix) in [("next", "next: only a flow"), ("exit", "exit: only a flow"), ("submit", "submit: only a flow"),
                               ("teleport", "action: unknown action \"teleport\"")] as [(JSONValue, String)] {
            let u = try await s.perform(json: json)
            guard case .stayed(let why) = u.step else { Issue.record("\(json): \(u.step)"); continue }
            #expect(why.hasPrefix(prefix), "\(why)")
        }
        #expect(s.currentScreen == "cart")
        #expect(s.emittedEvents.filter { $0 == "render_error" }.count == 4)
    }

    @Test func unknownPrimitivesAreReportedWithTheirToken() async throws {
        let journal = try FlowFixtures.journal()
        let s = Self.session(journal: journal)
        _ = try await s.open("odd")
        let e = try #require(try FlowFixtures.queued(journal).first { $0.name == "unknown_primitive" })
        #expect(e.properties["token"] == "hologram")
        #expect(e.properties["primitive"]?.stringValue?.contains("Hologram") == true)
        #expect(e.properties["appVersion"]?.stringValue?.isEmpty == false)
    }

    @Test func inputsWriteThroughTheStoreAndShowItsMessage() async throws {
        let store = DefaultStore(appID: "test").store(.scenarioSession(id: UUID().uuidString))
        try store.setValidation(ValidationOptions(mode: .strict, schema: [
            "city": Rule(kind: .string, required: true, pattern: "^[A-Z][a-z]+$")]))
        let s = Self.session(store: store)
        _ = try await s.open("address")
        // Save with nothing: validate stops the sequence (no back) and shows the message.
        var u = try await s.tap("Save")
        guard case .stayed(let why) = u.step else { Issue.record("\(u.step)"); return }
        #expect(why == "validate: city is required")
        #expect(s.messages["city"] == "city is required")
        let field = { (tree: RenderTree) in RenderNodeID.all(in: tree).first { $0.node.primitive == "TextField" }?.node }
        #expect(field(u.tree)?.props["message"] == "city is required")
        // A value the pattern refuses is not written; its message shows.
        u = try s.input("city", "berlin")
        #expect(store.get("city") == nil)
        #expect(field(u.tree)?.props["message"]?.stringValue?.contains("city") == true)
        #expect(u.changes.count == 1)
        // A good value is written, shown, and clears the message.
        u = try s.input("city", "Berlin")
        #expect(store.get("city") == .string("Berlin"))
        #expect(field(u.tree)?.props["value"] == "Berlin" && field(u.tree)?.props["message"] == nil)
        #expect(s.issues.filter { $0.kind == "input" }.count == 1)
    }

    /// The toggle block binds a boolean; a required input's message shows
    /// in the tree and, escaped, in the HTML preview.
    @Test func theToggleBlockAndMessagesInThePreview() async throws {
        let screens = Screens(blockScreens: ["prefs": ["id": "prefs", "blocks": [
            ["type": "toggle", "key": "news", "label": "News", "default": false],
            ["type": "text_input", "key": "name", "label": "Name", "required": true],
        ]]])
        let store = DefaultStore(appID: "test").store(.scenarioSession(id: UUID().uuidString))
        try store.setValidation(ValidationOptions(mode: .strict, schema: ["news": Rule(kind: .bool)]))
        let s = ScreenSession(provider: screens, store: store)
        let tree = try await s.open("prefs")
        let toggle = { (t: RenderTree) in RenderNodeID.all(in: t).first { $0.node.primitive == "Toggle" }?.node }
        #expect(toggle(tree)?.props["label"] == "News" && toggle(tree)?.props["value"] == false)
        var u = try s.input("news", true)
        #expect(toggle(u.tree)?.props["value"] == true && store.get("news") == .bool(true))
        u = try s.input("news", "<b>yes</b>")
        #expect(store.get("news") == .bool(true), "the rule refused a string")
        #expect(toggle(u.tree)?.props["message"]?.stringValue?.isEmpty == false)
        u = try s.input("name", "  ")
        #expect(s.messages["name"] == "name is required")
        let html = HTMLPreview.render(u.tree, title: "prefs")
        #expect(html.contains("<span class=\"sdui-field-message\" role=\"alert\">name is required</span>"))
        #expect(!html.contains("<b>yes</b>"))
    }

    /// A screen session's screens go through the screen state machine, as a flow's do.
    @Test func aPresenterRunsTheStateMachine() async throws {
        let s = Self.session()
        let p = s.presenter("cart")
        #expect(p.machine.state == .start)
        let tree = try await p.present()
        #expect(p.machine.state == .present && tree.screen == "cart" && s.currentScreen == "cart")
        let missing = s.presenter("nowhere")
        await #expect(throws: SDUIError.self) { _ = try await missing.present() }
        #expect(missing.machine.state == .error && s.currentScreen == "cart")
    }

    // MARK: request

    @Test func aRequestWritesItsAnswerIntoTheStore() async throws {
        let server = try RawHTTPServer(answer: .fixed(Data(#"{"code":"SAVE10","off":10}"#.utf8), chunked: false))
        defer { server.stop() }
        let s = Self.session()
        _ = try await s.open("cart")
        let u = try await s.perform(json: ["type": "request", "method": "POST",
                                           "url": .string(server.baseURL.absoluteString + "coupon"),
                                           "body": ["code": "SAVE10"], "into": "coupon"])
        #expect(u.step == .screen("cart"))
        #expect(s.store.get("coupon.off") == .integer(10))
        #expect(s.store.get(FlowActions.requestErrorKey) == nil)
        #expect(server.targetsRead == ["/coupon"])
    }

    /// Every failure is recorded under the documented key and runs onError;
    /// the step stays.
    @Test(arguments: ["status", "garbage", "timeout", "unreachable"])
    func aFailedRequestIsRecordedAndRunsOnError(_ failure: String) async throws {
        var server: RawHTTPServer?
        switch failure {
        case "status": server = try RawHTTPServer(answer: .status(503, Data("busy".utf8)))
        case "garbage": server = try RawHTTPServer(answer: .fixed(Data("<html>".utf8), chunked: false))
        case "timeout": server = try RawHTTPServer(answer: .held(Data("{}".utf8)))
        default: server = nil
        }
        defer { server?.stop() }
        // A port nothing listens on: bind one, note it, close it.
        let url = server?.baseURL.absoluteString ?? "http://127.0.0.1:9/"
        let s = Self.session()
        _ = try await s.open("cart")
        let u = try await s.perform(json: ["type": "request", "method": "GET", "url": .string(url + "x"), "into": "answer",
                                           "timeout": 0.5, "onError": ["type": "set", "key": "failed", "value": true]])
        guard case .stayed(let why) = u.step else { Issue.record("\(u.step)"); return }
        #expect(why.hasPrefix("request: GET "))
        let record = try #require(s.store.get(FlowActions.requestErrorKey)?.jsonValue)
        #expect(record["method"] == "GET" && record["url"]?.stringValue == url + "x")
        #expect(record["status"] == (failure == "status" ? .int(503) : .null))
        #expect(record["message"]?.stringValue?.isEmpty == false)
        #expect(s.store.get("failed") == .bool(true))
        #expect(s.store.get("answer") == nil)
        server?.release()
    }

    @Test func requestsAreReadWithTheirRules() {
        func fails(_ json: JSONValue) -> String? {
            if case .failure(let why) = FlowAction.parse(json) { return why.message }
            return nil
        }
        #expect(fails(["type": "request", "method": "TRACE", "url": "https://a.example/"])?.hasPrefix("request needs \"method\"") == true)
        #expect(fails(["type": "request", "method": "GET"]) == "request needs \"url\", an absolute http(s) URL or a path starting with /")
        #expect(fails(["type": "request", "method": "GET", "url": "javascript:alert(1)"])?.hasPrefix("request: url refused") == true)
        #expect(fails(["type": "request", "method": "GET", "url": "https://a.example/", "into": "attributes.x"])
                == "request: \"attributes\" belong to the host")
        #expect(fails(["type": "request", "method": "GET", "url": "https://a.example/", "timeout": 0])?.hasPrefix("request: \"timeout\"") == true)
        #expect(fails(["type": "request", "method": "GET", "url": "https://a.example/", "onError": "warp"])?
                .hasPrefix("request: onError: unknown action \"warp\"") == true)
        #expect(fails(["type": "navigate"]) == "navigate needs \"to\", a screen id")
        #expect(fails(["type": "validate", "keys": []])?.hasPrefix("validate needs \"keys\"") == true)
        #expect(fails(["type": "validate", "keys": ["a..b"]]) == "validate: keys[0] must be a key path")
        #expect((try? FlowAction.parse(["type": "request", "method": "PUT", "url": "https://a.example/x",
                                         "body": [1, 2], "into": "r"]).get()) != nil)
    }

    /// Node ids name a token's nodes by the token and their path inside it,
    /// so they do not move when other items come before them.
    @Test func nodeIDsAreStable() async throws {
        let s = Self.session()
        let tree = try await s.open("cart")
        let ids = RenderNodeID.all(in: tree).map(\.id)
        #expect(ids.prefix(4) == ["count_label", "static_text", "add_button", "net_change"])
        let block = try await s.perform(json: ["type": "navigate", "to": "address"])
        let blockIDs = RenderNodeID.all(in: block.tree).map(\.id)
        #expect(blockIDs.first == "$/0" && blockIDs.contains("$/0/0"))
        // find gives what the walk gives, for every node; and nothing else.
        for t in [tree, block.tree] {
            for n in RenderNodeID.all(in: t) { #expect(RenderNodeID.find(n.id, in: t) == n, "\(n.id)") }
        }
        for bad in ["", "$", "count_label/9", "nope", "count_label/x", "count_label/01", "count_label#2", "$/0/99"] {
            #expect(RenderNodeID.find(bad, in: tree) == nil, "\(bad)")
        }
        #expect(RenderNodeID.find("$/0", in: tree) == nil, "a token's node is named by its token")
    }

    /// A token shown twice: the second time its ids carry #2.
    @Test func aTokenShownTwiceIsNumbered() async throws {
        var screens = Self.screens
        screens.tokenScreens["twice"] = ["add_button", "static_text", "add_button"]
        let s = ScreenSession(provider: screens)
        s.store.set("cart.count", .integer(0))
        let tree = try await s.open("twice")
        #expect(RenderNodeID.all(in: tree).map(\.id) == ["add_button", "static_text", "add_button#2"])
        #expect(RenderNodeID.find("add_button#2", in: tree)?.path == [2])
        let u = try await s.tap("add_button#2")
        #expect(s.emittedEvents.contains("action"))
        #expect(u.step == .screen("twice"))
    }
}
