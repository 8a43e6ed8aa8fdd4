// RegistryServerTests.swift - every status code and header of the registry API, on loopback, over both stores.
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryServerTests {
    static let modern = "Column@3,Row@2,Text@5,AsyncImage@2,Spacer@1"
    static let old = "Column@3,Row@2,Text@4,AsyncImage@2,Spacer@1"

    /// A registry where `card` has v1 (Text@4 inside) and v2 (Text@5 inside),
    /// `plain` one version, and `future` only a version needing Text@9.
    static func seed(_ store: any RegistryStore) async throws {
        let nested = { (v: Int) in
            #"{"children":[{"primitive":"Text","primitiveVersion":\#(v),"props":{"text":"v"}}]}"#
        }
        try await store.publish([
            stored("card", version: 1, primitive: "Column", primitiveVersion: 3, props: nested(4)),
            stored("card", version: 2, primitive: "Column", primitiveVersion: 3, props: nested(5)),
            stored("plain"),
            stored("future", primitive: "Column", primitiveVersion: 3, props: nested(9)),
        ])
        try await store.putScreens([screen("home", ["card", "plain"]),
                                    screen("lab", ["card", "future"], fallback: "home")])
    }

    func get(_ r: RunningRegistry, _ path: String, _ headers: [String: String] = ["X-Primitives": modern])
        async throws -> HTTPAnswer {
        try await HTTPProbe.get(URL(string: path, relativeTo: r.baseURL)!.absoluteURL, headers: headers)
    }

    @Test(arguments: StoreKind.allCases)
    func screensAnswer200Then304AndPickVersionsPerClient(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            defer { Task { await r.stop() } }
            let ok = try await get(r, "screens/home")
            #expect(ok.status == 200)
            #expect(ok.header("Content-Type") == "application/json; charset=utf-8")
            #expect(ok.header("Cache-Control") == "max-age=86400")
            #expect(ok.header("Vary") == "X-Primitives")
            let etag = try #require(ok.header("ETag"))
            #expect(etag == ETag.of(json: ok.body))
            #expect(try ScreenPayload(json: ok.body).tokens.map(\.id) == ["card", "plain"])
            for inm in [etag, "W/\(etag)", "\"nope\", \(etag)", "*"] {
                let nm = try await get(r, "screens/home", ["X-Primitives": Self.modern, "If-None-Match": inm])
                #expect(nm.status == 304, "\(inm)")
                #expect(nm.header("ETag") == etag && nm.header("Cache-Control") == "max-age=86400"
                        && nm.header("Vary") == "X-Primitives")
                #expect(nm.body.isEmpty)
            }
            #expect(try await get(r, "screens/home", ["X-Primitives": Self.modern, "If-None-Match": "\"other\""]).status == 200)
            // An older client gets the screen too: card has a version it can draw.
            #expect(try await get(r, "screens/home", ["X-Primitives": Self.old]).status == 200)
            await r.stop()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func incompatibleScreenIs409WithTheFallback(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            let c = try await get(r, "screens/lab")
            #expect(c.status == 409)
            #expect(c.json?["error"] as? String == "Incompatible-Primitives")
            #expect(c.json?["fallbackScreenId"] as? String == "home")
            #expect(c.json?["tokens"] as? [String] == ["future"])
            #expect(c.header("Cache-Control") == "no-store" && c.header("Vary") == "X-Primitives")
            // The client's transport turns it into the fallback id.
            let t = HTTPRegistryTransport(baseURL: r.baseURL, primitives: Self.modern)
            #expect(try await t.fetchScreen("lab") == .incompatible(fallbackScreenId: "home",
                                                                     message: "Incompatible-Primitives"))
            await r.stop()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func designTokensServeTheBestVersionWithBatchETags(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            let new = try await get(r, "design-tokens?ids=plain,card")
            #expect(new.status == 200)
            let elements = try HTTPRegistryTransport.elements(of: new.body, source: "t")
            let tokens = try elements.map { try DesignToken(json: $0) }
            #expect(tokens.map(\.description) == ["plain@1 (Text@1)", "card@2 (Column@3)"])
            #expect(new.header("ETag") == ETag.batch(elements.map { ETag.of(json: $0) }))
            #expect(new.header("Cache-Control") == "max-age=86400" && new.header("Vary") == "X-Primitives")
            // Downgrade: Text@4 gets card@1.
            let old = try await get(r, "design-tokens?ids=card", ["X-Primitives": Self.old])
            #expect(try DesignToken(json: try HTTPRegistryTransport.elements(of: old.body, source: "t")[0]).version == 1)
            // 304 by If-None-Match; the v hint alone is not a conditional request (RFC 9110 §15.4.5).
            let etag = try #require(new.header("ETag"))
            #expect(try await get(r, "design-tokens?ids=plain,card", ["X-Primitives": Self.modern, "If-None-Match": etag]).status == 304)
            let v = etag.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let hinted = try await get(r, "design-tokens?ids=plain,card&v=\(v)")
            #expect(hinted.status == 200 && hinted.header("ETag") == etag)
            // Unknown or unservable ids are left out and named.
            let partial = try await get(r, "design-tokens?ids=plain,future,nope")
            #expect(partial.status == 200 && partial.header("X-SDUI-Missing") == "future,nope")
            #expect(try HTTPRegistryTransport.elements(of: partial.body, source: "t").count == 1)
            let none = try await get(r, "design-tokens?ids=future")
            #expect(none.status == 404 && none.header("Cache-Control") == "no-store")
            await r.stop()
        }
    }

    @Test func badRequestsAre400WithJSONErrors() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            let fifty = (0..<50).map { "t\($0)" }.joined(separator: ",")
            let cases: [(String, [String: String], String)] = [
                ("design-tokens?ids=\(fifty),t50", ["X-Primitives": Self.modern], "51 ids"),
                ("design-tokens?ids=", ["X-Primitives": Self.modern], "ids is required"),
                ("design-tokens", ["X-Primitives": Self.modern], "ids is required"),
                ("design-tokens?ids=a,a", ["X-Primitives": Self.modern], "twice"),
                ("design-tokens?ids=a,,b", ["X-Primitives": Self.modern], "not a token id"),
                ("design-tokens?ids=..", ["X-Primitives": Self.modern], "not a token id"),
                ("design-tokens?ids=a%2Fb", ["X-Primitives": Self.modern], "not a token id"),
                ("design-tokens?ids=%00", ["X-Primitives": Self.modern], "not a token id"),
                ("design-tokens?ids=" + String(repeating: "x", count: 129), ["X-Primitives": Self.modern], "not a token id"),
                ("design-tokens?ids=plain", [:], "X-Primitives header is required"),
                ("design-tokens?ids=plain", ["X-Primitives": "Column@0"], "X-Primitives"),
                ("screens/home", ["X-Primitives": "Column@3,Column@3"], "twice"),
                ("screens/home", [:], "X-Primitives header is required"),
            ]
            for (path, headers, fragment) in cases {
                let a = try await get(r, path, headers)
                #expect(a.status == 400, "\(path)")
                #expect(a.header("Cache-Control") == "no-store")
                #expect((a.json?["message"] as? String)?.contains(fragment) == true, "\(path): \(a.text)")
            }
            #expect(try await get(r, "screens/nope").status == 404)
            #expect(try await get(r, "nowhere").status == 404)
            await r.stop()
        }
    }

    @Test func signedTokensVerifyAndAuthIsRequired() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let signer = try TokenSigner(hs256Secret: Data(repeating: 7, count: 32))
            let access = TokenSigner.generateEd25519(kid: "k1")
            let clock = ManualClock(Date())
            var verifier = AccessTokenVerifier(verifier: try TokenVerifier(key: access.verificationKey))
            verifier.now = { clock.now }
            let r = try await startServer(store) { c in
                c.signer = signer
                c.access = verifier
            }
            let issuer = AccessTokenIssuer(signer: access)
            let good = try issuer.issue(subject: "app", lifetime: 600, now: clock.now)
            let ok = try await get(r, "design-tokens?ids=plain", ["X-Primitives": Self.modern, "Authorization": "Bearer \(good)"])
            #expect(ok.status == 200)
            #expect(ok.header("Cache-Control") == "max-age=86400, private")
            let element = try HTTPRegistryTransport.elements(of: ok.body, source: "t")[0]
            let json = try TokenVerifier(key: signer.verificationKey).verify(compact: element)
            #expect(ok.header("ETag") == ETag.batch([ETag.of(json: json)]))
            // The repository verifies what the server signed.
            var config = TokenRepository.Configuration()
            config.verifier = try TokenVerifier(key: signer.verificationKey)
            let repo = TokenRepository(memory: try TokenCache(),
                                       transport: HTTPRegistryTransport(baseURL: r.baseURL, primitives: Self.modern, bearerToken: good),
                                       configuration: config)
            #expect(await repo.get("card").token?.version == 2)

            let other = TokenSigner.generateEd25519(kid: "k1")
            let refusals: [(String?, String)] = [
                (nil, "missing bearer token"),
                ("Basic dXNlcjpwYXNz", "expected Authorization: Bearer"),
                ("Bearer garbage", "bad token signature"),
                ("Bearer " + (try AccessTokenIssuer(signer: other).issue(subject: "x", now: clock.now)), "bad token signature"),
                ("Bearer " + (try issuer.issue(subject: "x", lifetime: 60, now: clock.now.addingTimeInterval(-3600))), "token expired"),
                ("Bearer " + (try other.sign(#"{"sub":"x","iat":\#(Int(clock.now.timeIntervalSince1970)),"exp":\#(Int(clock.now.timeIntervalSince1970) + 7200)}"#)),
                 "bad token signature"),
                ("Bearer " + (try access.sign(#"{"sub":"x","iat":\#(Int(clock.now.timeIntervalSince1970)),"exp":\#(Int(clock.now.timeIntervalSince1970) + 7200)}"#)),
                 "longer than one hour"),
                ("Bearer " + (try access.sign(#"{"sub":"x"}"#)), "no exp"),
            ]
            for (auth, reason) in refusals {
                var headers = ["X-Primitives": Self.modern]
                headers["Authorization"] = auth
                let a = try await get(r, "design-tokens?ids=plain", headers)
                #expect(a.status == 401, "\(reason)")
                #expect(a.header("WWW-Authenticate")?.hasPrefix("Bearer error=\"invalid_token\"") == true)
                #expect((a.json?["message"] as? String)?.contains(reason) == true, "\(reason): \(a.text)")
                #expect(a.header("Cache-Control") == "no-store")
            }
            // The same token expires as the clock moves past exp.
            clock.advance(601 + 30)
            #expect(try await get(r, "screens/home", ["X-Primitives": Self.modern, "Authorization": "Bearer \(good)"]).status == 401)
            // Health and metrics stay open.
            #expect(try await get(r, "health", [:]).status == 200)
            #expect(try await get(r, "metrics", [:]).status == 200)
            #expect(throws: RegistryError.self) { try issuer.issue(subject: "x", lifetime: 3601) }
            await r.stop()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func publishedVersionsAppearWithoutARestart(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            let before = try await get(r, "design-tokens?ids=plain")
            try await store.publish([stored("plain", version: 2, props: #"{"text":"new"}"#)])
            try await r.server.refresh()
            let after = try await get(r, "design-tokens?ids=plain")
            #expect(after.header("ETag") != before.header("ETag"))
            #expect(try DesignToken(json: try HTTPRegistryTransport.elements(of: after.body, source: "t")[0]).version == 2)
            // An old ETag now answers 200, not 304.
            #expect(try await get(r, "design-tokens?ids=plain",
                                  ["X-Primitives": Self.modern, "If-None-Match": before.header("ETag")!]).status == 200)
            await r.stop()
        }
    }

    @Test func metricsExposeLatencyHistogramsAndErrors() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            for _ in 0..<3 { _ = try await get(r, "design-tokens?ids=plain") }
            _ = try await get(r, "design-tokens?ids=..")
            let m = try await get(r, "metrics", [:]).text
            #expect(m.contains(#"sdui_http_request_duration_seconds_bucket{route="/design-tokens",method="GET",le="0.001"}"#), "\(m.prefix(2000))")
            #expect(m.contains(#"sdui_http_requests_total{route="/design-tokens",method="GET",status="200"} 3"#))
            #expect(m.contains(#"sdui_http_errors_total{route="/design-tokens",status="400"} 1"#))
            #expect(m.contains("sdui_registry_token_ids 3"))
            // The Grafana dashboard queries these names.
            let dashboard = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("dashboards/registry.json"),
                                       encoding: .utf8)
            for name in ["sdui_http_request_duration_seconds_bucket", "sdui_http_errors_total", "sdui_http_requests_total"] {
                #expect(dashboard.contains(name) && m.contains(name), "\(name)")
            }
            await r.stop()
        }
    }

    @Test func badInputCorpusNeverGets5xxAndTheServerLives() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let access = try TokenSigner(hs256Secret: Data(repeating: 9, count: 32))
            let r = try await startServer(store) { c in
                c.access = AccessTokenVerifier(verifier: try! TokenVerifier(key: access.verificationKey))
            }
            let token = try AccessTokenIssuer(signer: access).issue(subject: "t")
            let expired = try AccessTokenIssuer(signer: access).issue(subject: "t", lifetime: 60,
                                                                      now: Date().addingTimeInterval(-7200))
            func req(_ target: String, _ headers: [String] = ["X-Primitives: Column@3,Text@4", "Authorization: Bearer \(token)"]) -> String {
                "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "Connection: close\r\n\r\n"
            }
            let corpus: [String] = [
                req("/screens/.."), req("/screens/..%2F..%2Fetc%2Fpasswd"), req("/screens/%00"), req("/screens/a%2Fb"),
                req("/screens/%FF%FE"), req("/design-tokens?ids=%00"), req("/design-tokens?ids=../x"),
                req("/design-tokens?ids=" + (0..<51).map { "t\($0)" }.joined(separator: ",")),
                req("/design-tokens?ids=" + (0..<5000).map { "t\($0)" }.joined(separator: ",")),
                req("/design-tokens?ids=a&ids=b"), req("/design-tokens?ids=%"),
                req("/screens/home", ["X-Primitives: Column@0", "Authorization: Bearer \(token)"]),
                req("/screens/home", ["X-Primitives: " + String(repeating: "A@1,", count: 2000) + "B@1", "Authorization: Bearer \(token)"]),
                req("/screens/home", ["X-Primitives: Column@3,,Text@4", "Authorization: Bearer \(token)"]),
                req("/screens/home", ["X-Primitives: Column@3"]),
                req("/screens/home", ["X-Primitives: Column@3", "Authorization: Bearer " + String(repeating: "a", count: 9000)]),
                req("/screens/home", ["X-Primitives: Column@3", "Authorization: Bearer \(expired)"]),
                req("/screens/home", ["X-Primitives: Column@3", "Authorization: Bearer \(token)x"]),
                req("/screens/home", ["X-Primitives: Column@3", "Authorization: Bearer \(token)", "X-Pad: " + String(repeating: "p", count: 20_000)]),
                "POST /design-tokens?ids=plain HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
                "GET /design-tokens?ids=plain HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n",
                "DELETE /screens/home HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                req("/" + String(repeating: "a/", count: 3000)),
            ]
            for (i, request) in corpus.enumerated() {
                let status = await HTTPProbe.raw(port: r.port, request)
                let s = try #require(status, "case \(i): no answer")
                #expect((400..<500).contains(s), "case \(i): \(s) for \(request.prefix(120))")
            }
            // `v` is only a hint: a malformed one matches nothing.
            #expect(await HTTPProbe.raw(port: r.port, req("/design-tokens?ids=plain&v=%ZZ")) == 200)
            // Headers far beyond the limit: refused or cut off, never a 5xx, and the server lives on.
            let huge = req("/screens/home", ["X-Pad: " + String(repeating: "p", count: 300_000)])
            if let s = await HTTPProbe.raw(port: r.port, huge) { #expect((400..<500).contains(s)) }
            let alive = try await get(r, "design-tokens?ids=plain", ["X-Primitives": Self.modern, "Authorization": "Bearer \(token)"])
            #expect(alive.status == 200)
            let metrics = try await get(r, "metrics", [:]).text
            #expect(!metrics.contains(#"status="5"#))
            await r.stop()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func repositoryAndServerEndToEnd(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            try await Self.seed(store)
            let r = try await startServer(store) { $0.maxAge = 60 }
            let clock = ManualClock(Date())
            var config = TokenRepository.Configuration()
            config.now = { clock.now }
            config.coalescingWindow = .milliseconds(1)
            let disk = try DiskCache(path: Fixtures.temporaryDirectory().appendingPathComponent("c.db").path, durable: false)
            let repo = TokenRepository(memory: try TokenCache(maxEntries: 1), disk: disk,
                                       transport: HTTPRegistryTransport(baseURL: r.baseURL, primitives: Self.old),
                                       configuration: config)
            func source(_ l: TokenLookup) -> TokenSource? { if case .found(_, let s) = l { s } else { nil } }
            // First fetch: network, the downgraded card for a Text@4 client.
            let first = await repo.get(["card", "plain"])
            #expect(first["card"]?.token?.version == 1 && first["card"].map(source) == .network)
            // Past max-age: revalidated with the batch ETag, answered 304.
            clock.advance(120)
            _ = await repo.get("x-evict")   // pushes card and plain out of the one-entry memory cache
            let again = await repo.get(["card", "plain"])
            #expect(again["card"].map(source) == .revalidated && again["plain"].map(source) == .revalidated)
            // A new version of plain: the next revalidation gets a 200 with it.
            try await store.publish([stored("plain", version: 3, props: #"{"text":"three"}"#)])
            try await r.server.refresh()
            clock.advance(120)
            _ = await repo.get("x-evict")
            let fresh = await repo.get(["plain"])
            #expect(fresh["plain"]?.token?.version == 3)
            // An id the registry does not have is unavailable, not offline.
            guard case .unavailable = await repo.get("nope") else {
                Issue.record("an unknown id must be unavailable")
                return
            }
            await r.stop()
            // Registry gone: what is cached is still served (stale-if-error), a new id is offline.
            clock.advance(120)
            _ = await repo.get("x-evict")
            #expect(await repo.get("plain").token?.version == 3)
            guard case .offline = await repo.get("never") else {
                Issue.record("a miss with the registry down must be offline")
                return
            }
        }
    }

    @Test func theOpenAPIDocumentDescribesWhatTheServerAnswers() async throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("schemas/openapi.json")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let paths = try #require(doc["paths"] as? [String: [String: Any]])
        #expect(Set(paths.keys) == ["/screens/{id}", "/design-tokens", "/metrics", "/health"])
        func documented(_ path: String) -> Set<Int> {
            let get = paths[path]?["get"] as? [String: Any]
            return Set(((get?["responses"] as? [String: Any]) ?? [:]).keys.compactMap { Int($0) })
        }
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            let probes: [(String, String, [String: String])] = [
                ("/screens/{id}", "screens/home", ["X-Primitives": Self.modern]),
                ("/screens/{id}", "screens/lab", ["X-Primitives": Self.modern]),
                ("/screens/{id}", "screens/none", ["X-Primitives": Self.modern]),
                ("/screens/{id}", "screens/home", [:]),
                ("/design-tokens", "design-tokens?ids=plain,future", ["X-Primitives": Self.modern]),
                ("/design-tokens", "design-tokens?ids=future", ["X-Primitives": Self.modern]),
                ("/design-tokens", "design-tokens?ids=a,a", ["X-Primitives": Self.modern]),
                ("/metrics", "metrics", [:]),
                ("/health", "health", [:]),
            ]
            var seen: [String: Set<Int>] = [:]
            for (path, target, headers) in probes {
                let a = try await get(r, target, headers)
                #expect(documented(path).contains(a.status), "\(target) answered \(a.status), not documented")
                seen[path, default: []].insert(a.status)
            }
            #expect(seen["/screens/{id}"] == [200, 409, 404, 400])
            #expect(seen["/design-tokens"] == [200, 404, 400])
            await r.stop()
        }
    }

    /// A store that can be swapped for another or made to fail, as a
    /// restored database or an outage looks to a running server.
    final class SwitchableStore: RegistryStore, @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var current: any RegistryStore
        private var failing = false
        init(_ store: any RegistryStore) { current = store }
        func swap(to store: any RegistryStore) { lock.withLock { current = store } }
        func fail(_ on: Bool) { lock.withLock { failing = on } }
        private func store() throws -> any RegistryStore {
            try lock.withLock {
                if failing { throw RegistryError(.store, "switched off", subject: "test") }
                return current
            }
        }
        func migrate() async throws { try await store().migrate() }
        func publish(_ tokens: [StoredToken]) async throws -> Int { try await store().publish(tokens) }
        func putScreens(_ screens: [StoredScreen]) async throws { try await store().putScreens(screens) }
        func generation() async throws -> Int64 { try await store().generation() }
        func changes(after seq: Int64) async throws -> (tokens: [StoredToken], screens: [StoredScreen]) {
            try await store().changes(after: seq)
        }
        func close() async throws {}
    }

    /// Asks `path` every 50 ms until `done` holds or 20 s pass; the last answer.
    func poll(_ r: RunningRegistry, _ path: String, until done: (HTTPAnswer) -> Bool) async throws -> HTTPAnswer {
        var last = try await get(r, path, [:])
        for _ in 0..<400 where !done(last) {
            try await Task.sleep(for: .milliseconds(50))
            last = try await get(r, path, [:])
        }
        return last
    }

    @Test func restoredStoreIsReloadedAndAnOutageShowsInHealth() async throws {
        try await withStore(.sqlite) { big in
            try await Self.seed(big)   // generation 6
            try await withStore(.sqlite) { small in
                try await small.publish([stored("only")])   // generation 1
                let store = SwitchableStore(big)
                let r = try await startServer(store) { $0.healthStaleAfter = .milliseconds(1500) }
                #expect(try await get(r, "design-tokens?ids=plain").status == 200)
                // Polled, not timed: a loaded machine may delay a refresh past the window.
                let health = try await poll(r, "health") { $0.status == 200 }
                #expect(health.status == 200 && health.json?["status"] as? String == "ok" && health.json?["generation"] as? Int == 6)
                // The database is restored to an older state: its sequence went backwards.
                store.swap(to: small)
                try await r.server.refresh()
                #expect(try await get(r, "design-tokens?ids=plain").status == 404)
                #expect(try await get(r, "design-tokens?ids=only").status == 200)
                // The store stops answering: requests are still served from the snapshot, health turns 503.
                store.fail(true)
                let stale = try await poll(r, "health") { $0.status == 503 }
                #expect(try await get(r, "design-tokens?ids=only").status == 200)
                #expect(stale.status == 503 && stale.json?["status"] as? String == "stale")
                store.fail(false)
                #expect(try await poll(r, "health") { $0.status == 200 }.status == 200)
                await r.stop()
            }
        }
    }

    @Test func requestBodiesAreRefusedAndTheConnectionClosed() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            // A chunked body that never ends: 413 at once, and the connection closed.
            let slow = "GET /design-tokens?ids=plain HTTP/1.1\r\nHost: x\r\nX-Primitives: Text@1\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
            let a = await HTTPProbe.rawUntilClosed(port: r.port, slow, timeout: 5)
            #expect(a.status == 413 && a.closed)
            let sized = "POST /screens/home HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\npartial"
            let b = await HTTPProbe.rawUntilClosed(port: r.port, sized, timeout: 5)
            #expect(b.status == 413 && b.closed)
            #expect(try await get(r, "design-tokens?ids=plain").status == 200)
            await r.stop()
        }
    }

    @Test func headAnswersLikeGetWithoutABody() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            for path in ["design-tokens?ids=plain,card", "screens/home", "screens/lab", "design-tokens?ids=a,a"] {
                let url = URL(string: path, relativeTo: r.baseURL)!.absoluteURL
                let get = try await HTTPProbe.get(url, headers: ["X-Primitives": Self.modern])
                let head = try await HTTPProbe.get(url, headers: ["X-Primitives": Self.modern], method: "HEAD")
                #expect(head.status == get.status, "\(path)")
                #expect(head.body.isEmpty)
                #expect(head.header("ETag") == get.header("ETag") && head.header("Vary") == get.header("Vary"))
                #expect(head.header("Content-Length") == String(get.body.count), "\(path)")
            }
            // The connection stays in step: a GET after a HEAD gets its own answer, body and all.
            let both = await HTTPProbe.rawResponse(port: r.port,
                "HEAD /screens/home HTTP/1.1\r\nHost: x\r\nX-Primitives: \(Self.modern)\r\n\r\n"
                + "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(both.hasPrefix("HTTP/1.1 200 OK"))
            let parts = both.components(separatedBy: "HTTP/1.1 200 OK")
            #expect(parts.count == 3 && parts[2].contains("\"status\":\"ok\""), "\(both)")
            await r.stop()
        }
    }

    @Test func entityTagMatching() {
        let e = "\"abc\""
        #expect(EntityTagMatch.matches("\"abc\"", current: e))
        #expect(EntityTagMatch.matches("W/\"abc\"", current: e))
        #expect(EntityTagMatch.matches("\"x\", W/\"abc\"", current: e))
        #expect(EntityTagMatch.matches(" * ", current: e))
        #expect(!EntityTagMatch.matches("\"abcd\"", current: e))
        #expect(!EntityTagMatch.matches("abc", current: e))
        #expect(!EntityTagMatch.matches("\"abc", current: e))
        #expect(!EntityTagMatch.matches("", current: e))
    }
}
