// RegistryServerTests.swift - the server as a whole: hostile input, the repository end to end, the OpenAPI contract.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryServerTests: RegistryServerFixtures {
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
            // No 5xx answered: the error counter's series (there from the start) are all 0.
            for line in metrics.split(separator: "\n") where line.contains(#"status="5"#) {
                #expect(line.hasPrefix("sdui_http_errors_total{") && line.hasSuffix(" 0"), "\(line)")
            }
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
                                       transport: HTTPRegistryTransport(baseURL: r.baseURL, primitives: Self.old, timeout: 30),
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
        #expect(Set(paths.keys) == ["/screens/{id}", "/design-tokens", "/flows/{id}", "/events", "/metrics", "/health",
                                    "/health/live", "/health/ready", "/experiments", "/strings", "/strings/{locale}"])
        // Every operation has an operationId (unique) and tags; GET has HEAD beside it; /events is POST only.
        var operationIDs: [String] = []
        for (path, ops) in paths {
            if path == "/events" {
                #expect(Set(ops.keys).intersection(["get", "head", "post"]) == ["post"])
            } else {
                #expect(ops["get"] != nil && ops["head"] != nil, "\(path)")
            }
            for (method, op) in ops where ["get", "head", "post"].contains(method) {
                let op = op as? [String: Any]
                if let id = op?["operationId"] as? String { operationIDs.append(id) } else { Issue.record("\(method) \(path): no operationId") }
                #expect((op?["tags"] as? [String])?.isEmpty == false, "\(method) \(path): no tags")
            }
        }
        #expect(Set(operationIDs).count == operationIDs.count)
        // A server entry a user can point elsewhere.
        let server = (doc["servers"] as? [[String: Any]])?.first
        #expect((server?["variables"] as? [String: Any])?.keys.sorted() == ["host", "port", "scheme"])
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
                ("/health/live", "health/live", [:]),
                ("/health/ready", "health/ready", [:]),
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
}
#endif
