import Foundation
import Logging
import NIOConcurrencyHelpers
import SDUI
import SDUICore
import SDUIFlow
import SDUITestSupport
import Testing

@Suite struct ScreenPresenterTests {
    struct Boom: Error {}

    @Test func fetchFailureIsBadDataAndRetryPresents() async throws {
        let fails = NIOLockedValueBox(1)
        let p = ScreenPresenter<Int, String>(fetch: {
            if fails.withLockedValue({ n in defer { n -= 1 }; return n > 0 }) { throw Boom() }
            return 7
        }, load: { "screen \($0)" })
        await #expect(throws: Boom.self) { try await p.present() }
        #expect(p.machine.state == .error)
        #expect(try await p.present() == "screen 7")
        #expect(p.machine.history == [.initiate, .badData, .retry, .loadData, .success])
        // From PRESENT, present() is `react`: fetch and load again.
        #expect(try await p.present() == "screen 7")
        #expect(p.machine.history.suffix(3) == [.react, .loadData, .success])
    }

    @Test func loadFailureIsFailure() async throws {
        let p = ScreenPresenter<Int, String>(fetch: { 1 }, load: { _ in throw Boom() })
        await #expect(throws: Boom.self) { try await p.present() }
        #expect(p.machine.history == [.initiate, .loadData, .failure])
        #expect(p.machine.state == .error)
    }

    @Test func aSecondCallWhileFetchingIsRefused() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let p = ScreenPresenter<Int, Int>(fetch: {
            for await _ in gate.stream { break }
            return 1
        }, load: { $0 })
        let first = Task { try await p.present() }
        while p.machine.state != .fetch { await Task.yield() }
        await #expect(throws: SDUIError.self) { try await p.present() }
        gate.continuation.yield()
        #expect(try await first.value == 1)
        #expect(p.machine.state == .present)
    }
}

/// The presenter over a real `ScreenLoader`: a registry on 127.0.0.1 and a
/// real SQLite disk cache.
@Suite(.serialized) struct ScreenPresenterLoaderTests {
    static let screen = Data(#"{"id":"home","tokens":[{"id":"hello"}]}"#.utf8)

    func loader(_ registry: LoopbackRegistry, cache: String) throws -> ScreenLoader {
        let disk = try DiskCache(path: cache, durable: false)
        let transport = HTTPRegistryTransport(baseURL: registry.baseURL, primitives: "Column@3,Text@4", timeout: 30)
        var config = TokenRepository.Configuration()
        config.coalescingWindow = .milliseconds(1)
        let repo = TokenRepository(memory: try TokenCache(), disk: disk, transport: transport, configuration: config)
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        return ScreenLoader(repository: repo, resolver: ScreenResolver(), logger: quiet)
    }

    @Test func fetchLoadPresentThenBadDataThenRetry() async throws {
        let registry = try await LoopbackRegistry.start(tokens: ["hello": Data(Fixtures.token("hello").utf8)])
        let cache = Fixtures.temporaryDirectory().appendingPathComponent("c.db").path
        // A screen the registry does not have: FETCH fails, ERROR.
        let missing = ScreenPresenter.screen("nope", loader: try loader(registry, cache: cache))
        await #expect(throws: SDUIError.self) { try await missing.present() }
        #expect(missing.machine.history == [.initiate, .badData])
        // Published meanwhile: retry reaches PRESENT.
        registry.publishScreen(Data(#"{"id":"nope","tokens":[{"id":"hello"}]}"#.utf8), id: "nope")
        let shown = try await missing.present()
        #expect(shown.source == .network && shown.tree.root.children.count == 1)
        #expect(missing.machine.state == .present)
        // A screen whose only token cannot be had: LOAD fails, ERROR.
        registry.publishScreen(Data(#"{"id":"ghost","tokens":[{"id":"not-there"}]}"#.utf8), id: "ghost")
        let ghost = ScreenPresenter.screen("ghost", loader: try loader(registry, cache: cache))
        await #expect(throws: SDUIError.self) { try await ghost.present() }
        #expect(ghost.machine.history == [.initiate, .loadData, .failure])
        // React: fetch again from PRESENT (a 304 now).
        let again = try await missing.present()
        #expect(again.source == .revalidated)
        #expect(missing.machine.history.suffix(3) == [.react, .loadData, .success])
        await registry.stop()
    }
}
