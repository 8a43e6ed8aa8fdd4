import Foundation
import NIOConcurrencyHelpers
import SDUI
import SDUICore
import SDUIFlow
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
