// HTTPRegistryTransportTests.swift - the URLSession transport against a real
// loopback registry: headers, screens, 409, bodies, statuses, unreachable.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct HTTPRegistryTransportTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")

    @Test func screensCarryXPrimitivesAndDecode() async throws {
        let registry = try await LoopbackRegistry.start()
        defer { Task { await registry.stop() } }
        let payload = try Data(contentsOf: examples.appendingPathComponent("screens/team_page.json"))
        registry.publishScreen(payload, id: "team_page")
        registry.makeIncompatible("new_page", fallback: "team_page")
        let t = HTTPRegistryTransport(baseURL: registry.baseURL, primitives: "Column@3,Text@4,AsyncImage@2",
                                   bearerToken: "tok", timeout: 30)
        guard case .screen(let s) = try await t.fetchScreen("team_page") else {
            Issue.record("expected a screen"); return
        }
        #expect(s.id == "team_page")
        #expect(s.tokens.first?.id == "promo_banner")
        #expect(s.tokens.first?.bind?["title"] == .string("Go Stags!"))
        #expect(try await t.fetchScreen("new_page") == .incompatible(fallbackScreenId: "team_page",
                                                                       message: "Incompatible-Primitives"))
        let e = await #expect(throws: SDUIError.self) { _ = try await t.fetchScreen("missing") }
        #expect(e?.category == .http)
        // X-Primitives (and the bearer token) on every /screens call.
        let calls = registry.requests
        #expect(calls.count == 3)
        #expect(calls.allSatisfy { $0.primitives == "Column@3,Text@4,AsyncImage@2" && $0.authorization == "Bearer tok" })
    }

    @Test func batchBodiesKeepExactBytes() async throws {
        let a = Data(#"{"id":"a", "version":1,"primitive":"Text","primitiveVersion":1,"props":{"t":"]\""}}"#.utf8)
        let registry = try await LoopbackRegistry.start(tokens: ["a": a])
        defer { Task { await registry.stop() } }
        registry.setMaxAge(123)
        let t = HTTPRegistryTransport(baseURL: registry.baseURL, timeout: 30)
        let r = try await t.fetch(TokenFetchRequest(ids: ["a"]))
        #expect(r == .tokens([a], maxAge: 123))
        let tag = ETag.batch([ETag.of(json: a)])
        #expect(try await t.fetch(TokenFetchRequest(ids: ["a"], ifNoneMatch: tag)) == .notModified(maxAge: 123))
        #expect(registry.requests.last?.ifNoneMatch == tag)
    }

    @Test func unreachableIsANetworkError() async throws {
        let registry = try await LoopbackRegistry.start()
        let url = registry.baseURL
        await registry.stop()
        let t = HTTPRegistryTransport(baseURL: url, timeout: 2)
        let e = await #expect(throws: SDUIError.self) { _ = try await t.fetch(TokenFetchRequest(ids: ["x"])) }
        #expect(e?.category == .network)
    }

    @Test func cacheControlMaxAge() {
        #expect(HTTPRegistryTransport.maxAge("max-age=86400") == 86_400)
        #expect(HTTPRegistryTransport.maxAge("public, max-age=60, must-revalidate") == 60)
        #expect(HTTPRegistryTransport.maxAge("no-store") == nil)
        #expect(HTTPRegistryTransport.maxAge("max-age=-1") == nil)
        #expect(HTTPRegistryTransport.maxAge(nil) == nil)
    }

    /// The token transport goes through the same bounds.
    @Test func theTokenTransportIsBounded() async throws {
        let server = try RawHTTPServer(answer: .endlessChunked, pace: 0.001)
        defer { server.stop() }
        let t = HTTPRegistryTransport(baseURL: server.baseURL, timeout: 20, maxBodyBytes: 1 << 20)
        let e = await #expect(throws: SDUIError.self) { _ = try await t.fetch(TokenFetchRequest(ids: ["a"])) }
        #expect(e?.category == .limit)
        let s = await #expect(throws: SDUIError.self) { _ = try await t.fetchScreen("home") }
        #expect(s?.category == .limit)
    }
}
