// ScreenLoaderTests.swift - loading a screen as an app does: a real registry on
// 127.0.0.1, a real SQLite file, revalidation, 409 fallbacks, offline starts.
import Foundation
import Logging
@testable import SDUI
import SDUITestSupport
import Testing

@Suite(.serialized) struct ScreenLoaderTests {
    static let screen = Data(#"{"id":"home","tokens":[{"id":"hello","bind":{"name":"Ada"}},{"id":"bye"}]}"#.utf8)
    static let tokens: [String: Data] = [
        "hello": Data(Fixtures.token("hello", props: #"{"text":"Hi {{name}}"}"#).utf8),
        "bye": Data(Fixtures.token("bye").utf8),
        "lite": Data(Fixtures.token("lite").utf8),
    ]

    /// A loader over a repository on `cache` that talks to `registry`.
    func loader(_ registry: LoopbackRegistry, cache: String, context: RenderContext = RenderContext()) throws -> ScreenLoader {
        let disk = try DiskCache(path: cache, durable: false)
        let transport = HTTPRegistryTransport(baseURL: registry.baseURL, primitives: "Column@3,Text@4", timeout: 30)
        var config = TokenRepository.Configuration()
        config.coalescingWindow = .milliseconds(1)
        let repo = TokenRepository(memory: try TokenCache(), disk: disk, transport: transport, configuration: config)
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        return ScreenLoader(repository: repo, resolver: ScreenResolver(context), logger: quiet)
    }

    func cachePath() -> String { Fixtures.temporaryDirectory().appendingPathComponent("c.db").path }

    @Test func onlineThenRevalidatedThenOffline() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens)
        registry.publishScreen(Self.screen, id: "home")
        let path = cachePath()

        let first = try await loader(registry, cache: path).load("home")
        #expect(first.source == .network && first.payload.id == "home")
        #expect(first.tree.root.children.map { $0.props["text"] } == ["Hi Ada", "hi"])
        #expect(first.lookups.count == 2 && first.lookups.values.allSatisfy { $0.token != nil })
        // The payload is kept, with its ETag, in the same file as the tokens.
        let kept = try #require(try DiskCache(path: path).screen("home", now: Date()))
        #expect(kept.payload == Self.screen && kept.etag == ETag.of(json: Self.screen))

        // A second start revalidates: If-None-Match with the kept ETag, a 304.
        let second = try await loader(registry, cache: path).load("home")
        #expect(second.source == .revalidated && second.payload == first.payload)
        #expect(registry.requests.last { $0.ids == ["home"] }?.ifNoneMatch == kept.etag)

        // Offline: the kept payload and the cached tokens draw the same tree.
        await registry.stop()
        let offline = try await loader(registry, cache: path).load("home")
        #expect(offline.source == .disk)
        #expect(offline.tree.root == first.tree.root)
    }

    @Test func a409IsFollowedAndItsFallbackKeptForOfflineStarts() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens)
        registry.publishScreen(Data(#"{"id":"lite_home","tokens":[{"id":"lite"}]}"#.utf8), id: "lite_home")
        registry.makeIncompatible("home", fallback: "lite_home")
        let path = cachePath()
        let loaded = try await loader(registry, cache: path).load("home")
        #expect(loaded.requested == "home" && loaded.payload.id == "lite_home" && loaded.source == .network)
        #expect(loaded.tree.renderedScreen == "lite_home")
        await registry.stop()
        // Next start, offline: what was shown for "home" last time.
        let offline = try await loader(registry, cache: path).load("home")
        #expect(offline.source == .disk && offline.payload.id == "lite_home")
    }

    @Test func fallbackLoopsAndUnknownScreensAreErrors() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens)
        defer { Task { await registry.stop() } }
        registry.makeIncompatible("a", fallback: "b")
        registry.makeIncompatible("b", fallback: "a")
        let l = try loader(registry, cache: cachePath())
        let loop = await #expect(throws: SDUIError.self) { _ = try await l.load("a") }
        #expect(loop?.category == .http && loop?.message.contains("a → b → a") == true, "\(String(describing: loop))")
        let missing = await #expect(throws: SDUIError.self) { _ = try await l.load("nowhere") }
        #expect(missing?.category == .http && missing?.message.contains("404") == true)
    }

    @Test func offlineWithNothingCachedUsesTheFallbackPackOrFails() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens)
        await registry.stop()
        let pack = Fixtures.pack(tokens: [Fixtures.token("lite")],
                                 extra: #""screens":[{"id":"checkout_offline","fallbackFor":"checkout","tokens":[{"id":"lite"}]}]"#)
        var context = RenderContext()
        context.fallbackPack = try FallbackPack(pack: CorePack(data: pack))
        let l = try loader(registry, cache: cachePath(), context: context)
        let shown = try await l.load("checkout")
        #expect(shown.source == .fallbackPack && shown.payload.id == "checkout_offline")
        // Its tokens come from the Fallback Pack itself: no skeleton.
        #expect(shown.tree.root.children.map(\.kind) == [.primitive] && shown.lookups["lite"]?.token != nil)
        let e = await #expect(throws: SDUIError.self) { _ = try await l.load("home") }
        #expect(e?.category == .network && e?.message.contains("not cached") == true)
    }
}
