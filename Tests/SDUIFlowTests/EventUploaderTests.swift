import Foundation
import SDUICore
import SDUIFlow
import SDUITestSupport
import Testing

@Suite struct EventUploaderTests {
    /// A journal holding `n` events of a walked flow.
    func journal(events n: Int) throws -> (FlowJournal, [String]) {
        let j = try FlowFixtures.journal()
        let s = try FlowSession(definition: try FlowFixtures.flow(), journal: j, configuration: .init(userID: "u"))
        try s.start()
        while try j.stats().events < n {
            _ = try s.next()
            _ = try s.back()
        }
        return (j, try FlowFixtures.queued(j).map(\.id))
    }

    static let fast = RetryPolicy(initialDelay: .milliseconds(5), maxDelay: .milliseconds(20), maxAttempts: 6, jitter: .full)

    @Test func sendsInBatchesAndDeletesWhatWasAcknowledged() async throws {
        let server = LoopbackEvents()
        try await server.start()
        defer { Task { await server.stop() } }
        let (j, ids) = try journal(events: 250)
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, retry: Self.fast))
        let report = try await up.flush()
        #expect(report.events == ids.count)
        #expect(report.batches == 3)
        #expect(try j.stats().events == 0)
        let s = server.state.withLockedValue { $0 }
        #expect(s.ids == ids)                     // all, once, in order
        #expect(s.batches.allSatisfy { $0 <= 100 })
        #expect(s.maxBody <= 64 << 10)
    }

    @Test func aByteBoundSplitsBatches() async throws {
        let server = LoopbackEvents()
        try await server.start()
        defer { Task { await server.stop() } }
        let (j, ids) = try journal(events: 60)
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, maxBytes: 4096, retry: Self.fast))
        try await up.flush()
        let s = server.state.withLockedValue { $0 }
        #expect(s.ids == ids)
        #expect(s.batches.count > 1)
        #expect(s.maxBody <= 4096)
    }

    /// Failures, a lost acknowledgement and a timeout, then recovery: no
    /// event lost, none stored twice at the server.
    @Test func failuresTimeoutsAndRecoveryLoseNothingAndDuplicateNothing() async throws {
        let server = LoopbackEvents()
        try await server.start()
        defer { Task { await server.stop() } }
        let (j, ids) = try journal(events: 230)
        server.state.withLockedValue {
            $0.modes = [.unavailable, .storeThenFail, .slow(.seconds(4)), .ok, .unavailable, .storeThenFail, .ok, .ok]
        }
        // Until the slow answer is out, HTTPClient's later requests to the
        // same server time out as well; the backoff outlasts it.
        let patient = RetryPolicy(initialDelay: .milliseconds(50), maxDelay: .seconds(1), maxAttempts: 40, jitter: .equal)
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, retry: patient),
                               client: HTTPClient(timeout: 2, maxBodyBytes: 1 << 16))
        try await up.flush()
        #expect(try j.stats().events == 0)
        let s = server.state.withLockedValue { $0 }
        #expect(s.ids == ids)                       // every event, once
        #expect(s.received > ids.count)             // some were sent again, and kept once
    }

    @Test func whenRetriesRunOutTheEventsStayQueued() async throws {
        let server = LoopbackEvents()
        try await server.start()
        defer { Task { await server.stop() } }
        let (j, ids) = try journal(events: 10)
        server.state.withLockedValue { $0.modes = Array(repeating: .unavailable, count: 3) }
        let policy = RetryPolicy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(2), maxAttempts: 3, jitter: .none)
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, retry: policy))
        await #expect(throws: SDUIError.self) { try await up.flush() }
        #expect(try j.stats().events == ids.count)
        try await up.flush()
        #expect(server.state.withLockedValue { $0.ids } == ids)
    }

    @Test func aServerThatIsDownIsANetworkErrorAndNothingIsLost() async throws {
        let (j, ids) = try journal(events: 5)
        let up = EventUploader(journal: j, configuration: .init(
            endpoint: URL(string: "http://127.0.0.1:9/events")!,
            retry: RetryPolicy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(1), maxAttempts: 2, jitter: .none)))
        await #expect(throws: SDUIError.self) { try await up.flush() }
        #expect(try FlowFixtures.queued(j).map(\.id) == ids)
    }

    /// The bounded queue drops the oldest, and the sender reports the count.
    @Test func droppedEventsAreReported() async throws {
        let server = LoopbackEvents()
        try await server.start()
        defer { Task { await server.stop() } }
        let j = try FlowFixtures.journal(limits: .init(maxEvents: 20))
        let s = try FlowSession(definition: try FlowFixtures.flow(), journal: j, configuration: .init(userID: "u"))
        try s.start()
        for _ in 0..<20 { _ = try s.next(); _ = try s.back() }   // 2 + 40 events into a queue of 20
        #expect(try j.stats().dropped == 22)
        let kept = try FlowFixtures.queued(j)
        #expect(kept.count == 20)
        #expect(kept.first?.seq == 23)                              // the oldest went first
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, retry: Self.fast))
        let report = try await up.flush()
        // The report itself may push the oldest kept event out; that drop
        // is reported too, so every drop ends up counted at the server.
        #expect(try j.stats().dropped == 0)
        #expect(report.droppedReported == (try j.stats().droppedTotal))
        #expect(report.droppedReported >= 22)
        let got = server.state.withLockedValue { $0.ids }
        #expect(got.count == report.events)
        #expect(try j.stats().events == 0)
    }
}
