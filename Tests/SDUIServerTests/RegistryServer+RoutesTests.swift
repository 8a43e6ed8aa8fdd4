// RegistryServer+RoutesTests.swift - every status code and header of /screens and /design-tokens, on loopback, over both stores.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryServerRoutesTests: RegistryServerFixtures {
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
            let t = HTTPRegistryTransport(baseURL: r.baseURL, primitives: Self.modern, timeout: 30)
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
}

extension RegistryServerRoutesTests {
    /// The method corpus: GET and HEAD wherever GET is, 405 with `Allow` and
    /// a JSON error for every other method, liveness and readiness apart.
    @Test func methodsAndHealthEndpoints() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            defer { Task { await r.stop() } }
            let paths = ["health", "health/live", "health/ready", "metrics", "screens/home", "design-tokens?ids=plain"]
            for path in paths {
                let got = try await HTTPProbe.get(URL(string: path, relativeTo: r.baseURL)!.absoluteURL,
                                                  headers: ["X-Primitives": Self.modern])
                #expect(got.status == 200, "GET \(path)")
                let head = try await HTTPProbe.get(URL(string: path, relativeTo: r.baseURL)!.absoluteURL,
                                                   headers: ["X-Primitives": Self.modern], method: "HEAD")
                #expect(head.status == 200 && head.body.isEmpty, "HEAD \(path)")
                for method in ["POST", "PUT", "DELETE", "PATCH"] {
                    let wrong = try await HTTPProbe.get(URL(string: path, relativeTo: r.baseURL)!.absoluteURL,
                                                        headers: ["X-Primitives": Self.modern], method: method)
                    #expect(wrong.status == 405 && wrong.header("Allow") == "GET, HEAD", "\(method) \(path)")
                    #expect(wrong.json?["error"] as? String == "method-not-allowed", "\(method) \(path)")
                }
            }
            // The router's own 404 is the same JSON error as every other.
            let nowhere = try await get(r, "nowhere/at/all", [:])
            #expect(nowhere.status == 404 && nowhere.json?["error"] as? String == "not-found"
                    && nowhere.header("Cache-Control") == "no-store", "\(String(decoding: nowhere.body, as: UTF8.self))")
            let live = try await get(r, "health/live", [:])
            #expect(live.json?["status"] as? String == "ok")
            let ready = try await get(r, "health/ready", [:])
            #expect(ready.json?["status"] as? String == "ok" && ready.json?["generation"] != nil)
        }
    }
}
#endif
