// RegistryServer+ExperimentsTests.swift - the registry assigns experiments:
// GET /experiments, GET /screens/{id} with X-SDUI-Attributes, the
// X-SDUI-Experiments answer, and agreement with the app's own assignment.
#if Server
import Foundation
import Logging
import SDUI
import SDUICore
import SDUIFlow
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryServerExperimentsTests: RegistryServerFixtures {
    /// The seeded registry (``seed(_:)``) plus `card_b` (Text@5 inside, so
    /// `old` apps cannot render it), `home_b` (a second home drawing
    /// `card_b`), and three experiments: `home-layout` replaces the screen
    /// home with home_b; `plain-swap` replaces the token plain with card_b;
    /// `promo` changes a store value only (every screen takes part); a
    /// draft that is never served nor assigned.
    static func seedExperiments(_ store: any RegistryStore) async throws {
        try await seed(store)
        let text5 = #"{"children":[{"primitive":"Text","primitiveVersion":5,"props":{"text":"b"}}]}"#
        try await store.publish([stored("card_b", primitive: "Column", primitiveVersion: 3, props: text5)])
        try await store.putScreens([screen("home_b", ["card_b", "plain"])])
        try await store.putExperiments([
            experiment(#"{"key":"home-layout","status":"running","phase":2,"weights":[0.5,0.5],"#
                       + #""variations":[{"id":"control"},{"id":"b","screens":{"home":"home_b"}}]}"#),
            experiment(#"{"key":"plain-swap","status":"running","coverage":0.8,"seed":"s1","#
                       + #""variations":[{"id":"control"},{"id":"fancy","tokens":{"plain":"card_b"}}]}"#),
            experiment(#"{"key":"promo","status":"running","audience":"platform == 'ios'","weights":[0.2,0.8],"#
                       + #""variations":[{"id":"off"},{"id":"on","store":{"promo":"TEN"}}]}"#),
            experiment(#"{"key":"drafted","variations":[{"id":"a"},{"id":"b","screens":{"home":"home_b"}}]}"#),
        ])
    }

    static func experiment(_ json: String) -> StoredExperiment {
        let key = try! JSONValue(json: Data(json.utf8))["key"]!.stringValue!
        return StoredExperiment(key: key, json: Data(json.utf8))
    }

    /// The attributes header of user `i`.
    static func attributes(_ i: Int) -> [String: JSONValue] {
        ["id": .string("user-\(i)"), "platform": .string(i % 3 == 0 ? "android" : "ios")]
    }

    @Test(arguments: StoreKind.allCases)
    func experimentsAreServedWithETagsAndOnlyWhileRunning(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await Self.seedExperiments(store)
            let server = try await startServer(store)
            let ok = try await get(server, "experiments", [:])   // no X-Primitives needed
            #expect(ok.status == 200)
            #expect(ok.header("Vary") == nil)
            let list = try ExperimentList(json: ok.body, etag: ok.header("ETag"), source: "GET /experiments")
            #expect(list.experiments.map(\.key) == ["home-layout", "plain-swap", "promo"])
            let etag = try #require(ok.header("ETag"))
            #expect(try await get(server, "experiments", ["If-None-Match": etag]).status == 304)
            // Stopping one changes the list and its ETag.
            try await store.putExperiments([Self.experiment(#"{"key":"promo","status":"stopped","#
                                                            + #""variations":[{"id":"off"},{"id":"on"}]}"#)])
            try await server.server.refresh()
            let after = try await get(server, "experiments", ["If-None-Match": etag])
            #expect(after.status == 200)
            #expect(try ExperimentList(json: after.body, etag: nil, source: "t").experiments.map(\.key) == ["home-layout", "plain-swap"])
            await server.stop()
        }
    }

    /// The answer for each user carries the variation the app's own
    /// assigner picks; a variation the app cannot render is served as
    /// control and marked ineligible; without attributes nothing is
    /// assigned; a bad header is a 400 naming it.
    @Test func screensAreDrawnAsTheUsersVariationSays() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seedExperiments(store)
            let server = try await startServer(store)
            let list = try ExperimentList(json: try await get(server, "experiments", [:]).body, etag: nil, source: "t")
            let layout = try ExperimentAssigner(try #require(list.experiments.first { $0.key == "home-layout" }))
            let promo = try ExperimentAssigner(try #require(list.experiments.first { $0.key == "promo" }))
            var seen = Set<String>()
            for i in 0..<120 {
                let attrs = Self.attributes(i)
                let app = i % 2 == 0 ? Self.modern : Self.old
                let r = try await get(server, "screens/home",
                                      ["X-Primitives": app, "X-SDUI-Attributes": JSONValue.object(attrs).jsonText])
                #expect(r.status == 200)
                #expect(r.header("Vary") == "X-Primitives, X-SDUI-Attributes")
                #expect(r.header("Cache-Control")?.hasPrefix("private") == true)
                let served = try ServedVariation.parse(header: try #require(r.header("X-SDUI-Experiments")))
                let payload = try ScreenPayload(json: r.body)
                let mine = layout.assign(attrs)
                let entry = try #require(served.first { $0.experiment == "home-layout" })
                #expect(entry.variation == mine.variationID && entry.phase == 2)
                let canRender = app == Self.modern
                #expect(entry.eligible == (mine.variationIndex == 0 || canRender))
                #expect(payload.id == (mine.variationID == "b" && canRender ? "home_b" : "home"))
                #expect(r.header("ETag") == ETag.of(json: r.body))
                // A store-only experiment takes part in every screen, by its audience.
                let p = promo.assign(attrs)
                #expect(served.contains { $0.experiment == "promo" } == p.inExperiment)
                if p.inExperiment { #expect(served.first { $0.experiment == "promo" }?.variation == p.variationID) }
                #expect(!served.contains { $0.experiment == "drafted" })
                seen.insert("\(entry.variation)/\(entry.eligible)/\(payload.id)")
            }
            #expect(seen == ["control/true/home", "b/true/home_b", "b/false/home"], "\(seen)")

            // No attributes: the stored screen, nothing assigned, but the answer still varies.
            let plain = try await get(server, "screens/home")
            #expect(plain.status == 200 && plain.header("X-SDUI-Experiments") == nil)
            #expect(try ScreenPayload(json: plain.body).id == "home")
            #expect(plain.header("Vary") == "X-Primitives, X-SDUI-Attributes")
            // A screen no experiment touches (other than store-only ones) answers as before without attributes.
            try await store.putExperiments([Self.experiment(#"{"key":"promo","status":"stopped","#
                                                            + #""variations":[{"id":"off"},{"id":"on"}]}"#)])
            try await server.server.refresh()
            #expect(try await get(server, "screens/lab", ["X-Primitives": Self.modern]).header("Vary") == "X-Primitives")

            for bad in ["[1]", "{", "\"id\"", "{\"id\": \"" + String(repeating: "x", count: 5000) + "\"}",
                        "{\"a\":[[[[[1]]]]]}"] {
                let r = try await get(server, "screens/home", ["X-Primitives": Self.modern, "X-SDUI-Attributes": bad])
                #expect(r.status == 400, "\(bad.prefix(20))")
                let body = try JSONValue(json: r.body)
                #expect(body["error"] == "bad-attributes", "\(bad.prefix(20))")
                #expect(body["message"]?.stringValue?.contains("X-SDUI-Attributes") == true, "\(body)")
            }
            await server.stop()
        }
    }

    /// A token substitution rewrites the screen's items (bindings kept) and
    /// the answer's ETag; an app that cannot render the substitute keeps
    /// the stored token.
    @Test func aTokenVariationRewritesTheItems() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seedExperiments(store)
            let server = try await startServer(store)
            let list = try ExperimentList(json: try await get(server, "experiments", [:]).body, etag: nil, source: "t")
            let swap = try ExperimentAssigner(try #require(list.experiments.first { $0.key == "plain-swap" }))
            let layout = try ExperimentAssigner(try #require(list.experiments.first { $0.key == "home-layout" }))
            var fancy = 0
            for i in 0..<200 {
                let attrs = Self.attributes(i)
                guard swap.assign(attrs).variationID == "fancy", layout.assign(attrs).variationID == "control" else { continue }
                for app in [Self.modern, Self.old] {
                    let r = try await get(server, "screens/home",
                                          ["X-Primitives": app, "X-SDUI-Attributes": JSONValue.object(attrs).jsonText])
                    let ids = try ScreenPayload(json: r.body).tokens.map(\.id)
                    #expect(ids == (app == Self.modern ? ["card", "card_b"] : ["card", "plain"]))
                    let entry = try ServedVariation.parse(header: try #require(r.header("X-SDUI-Experiments")))
                        .first { $0.experiment == "plain-swap" }
                    #expect(entry?.eligible == (app == Self.modern))
                }
                fancy += 1
            }
            #expect(fancy > 10)
            await server.stop()
        }
    }

    /// An app that lets the registry assign (its transport sends the
    /// user's attributes) draws the variation served and records an
    /// exposure for each experiment the answer names.
    @Test func theAppsLoaderRecordsWhatTheRegistryAssigned() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seedExperiments(store)
            let server = try await startServer(store)
            let list = try ExperimentList(json: try await get(server, "experiments", [:]).body, etag: nil, source: "t")
            let layout = try ExperimentAssigner(try #require(list.experiments.first { $0.key == "home-layout" }))
            let user = try #require((0..<100).map(Self.attributes).first { layout.assign($0).variationID == "b" })
            let transport = HTTPRegistryTransport(baseURL: server.baseURL, primitives: Self.modern, timeout: 10, attributes: user)
            let disk = try DiskCache(path: Fixtures.temporaryDirectory().appendingPathComponent("c.sqlite").path)
            let loader = ScreenLoader(repository: TokenRepository(memory: try TokenCache(), disk: disk, transport: transport),
                                      resolver: ScreenResolver())
            let shown = try await loader.screen("home")
            #expect(shown.items.id == "home_b")
            let exposure = try #require(shown.exposures.first { $0["experiment"] == "home-layout" })
            #expect(exposure["variation"] == "b" && exposure["eligible"] == true && exposure["phase"] == 2)
            #expect(exposure["source"] == "registry")
            await server.stop()
        }
    }

    /// Client and registry agree on 100,000 users: the app assigning with
    /// the definitions it fetched (ExperimentScreens, as it runs offline)
    /// draws the same screen with the same tokens, and records the same
    /// variations and eligibility, as the registry's answer for that user.
    /// Half the users run an old app that cannot render card_b.
    @Test func clientAndRegistryAgreeOnAHundredThousandUsers() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seedExperiments(store)
            let server = try await startServer(store)
            // The app's definitions, as it fetched them.
            let list = try ExperimentList(json: try await get(server, "experiments", [:]).body, etag: nil, source: "t")
            let assigners = try list.experiments.map(ExperimentAssigner.init)
            await server.stop()
            // The registry's side: its snapshot of the same store.
            let snap = RegistrySnapshot().applying(try await store.changes(after: 0), generation: 1, signer: nil,
                                                   logger: Logger(label: "test"))
            let inner = StoredScreens(snapshot: snap)
            var disagreements: [String] = []
            var variants: [String: Int] = [:]
            for i in 0..<100_000 {
                let attrs = Self.attributes(i)
                let app = try PrimitiveMap(parsing: i % 2 == 0 ? Self.modern : Self.old)
                let client = ExperimentScreens(inner: inner.with(app), token: { inner.lookup($0, app) },
                                               experiments: assigners, attributes: attrs, primitives: app)
                let drawn = try await client.screen("home")
                let registry = snap.varied(try #require(snap.screens["home"]), attributes: attrs, map: app)
                let servedIDs = try ScreenPayload(json: try snap.payload(of: registry).json).tokens.map(\.id)
                // Every item in order, repeats kept (tokenIDs lists each id once).
                let drawnIDs = drawn.items.items.compactMap { item -> String? in
                    if case .token(let id, _) = item { return id }
                    return nil
                }
                let clientExposures = drawn.exposures.map {
                    "\($0["experiment"]?.stringValue ?? "")=\($0["variation"]?.stringValue ?? "")/\($0["eligible"]?.boolValue ?? true)"
                }.sorted()
                let registryExposures = registry.entries.map { "\($0.experiment)=\($0.variation)/\($0.eligible)" }.sorted()
                if drawnIDs != servedIDs || drawn.items.id != registry.screen.stored.id || clientExposures != registryExposures {
                    if disagreements.count < 5 {
                        disagreements.append("user-\(i): app \(drawn.items.id) \(drawnIDs) \(clientExposures), "
                                             + "registry \(registry.screen.stored.id) \(servedIDs) \(registryExposures)")
                    }
                }
                variants[registryExposures.joined(separator: ",") + " " + servedIDs.joined(separator: "+"), default: 0] += 1
            }
            #expect(disagreements.isEmpty, "\(disagreements)")
            // Every path was taken: screen and token variations, ineligible users, the store-only audience.
            #expect(variants.count >= 8, "\(variants.keys.sorted())")
        }
    }

    /// Screens and tokens from a registry snapshot, as the app's loader
    /// would find them for an app with given primitives.
    struct StoredScreens: ScreenProvider {
        let snapshot: RegistrySnapshot
        var app = PrimitiveMap.builtIn

        func with(_ app: PrimitiveMap) -> StoredScreens { StoredScreens(snapshot: snapshot, app: app) }

        func screen(_ id: String) async throws -> ProvidedScreen {
            guard let s = snapshot.screens[id] else { throw SDUIError(.notFound, "no screen", input: id) }
            let payload = try ScreenPayload(json: s.stored.payload)
            var lookups: [String: TokenLookup] = [:]
            for t in s.tokenIDs { lookups[t] = lookup(t, app) }
            return ProvidedScreen(requested: id, items: payload.screenItems, lookups: lookups)
        }

        /// The newest version the app can render; else the newest (the app
        /// then judges it ineligible from its nodes).
        func lookup(_ id: String, _ app: PrimitiveMap) -> TokenLookup {
            guard let versions = snapshot.tokens[id], let newest = versions.first else {
                return .unavailable(SDUIError(.notFound, "no token", input: id))
            }
            let chosen = snapshot.best(id, for: app) ?? newest
            guard let token = try? DesignToken(json: chosen.stored.json) else {
                return .unavailable(SDUIError(.schema, "bad token", input: id))
            }
            return .found(token, .network)
        }
    }
}
#endif
