import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import SDUICore
import SDUIFlow
import SDUITestSupport
import Testing

/// A `POST /events` that refuses, as the registry does, the events whose
/// id is in `refusing`: a 400 listing them by batch index in `refused`,
/// nothing of the batch kept; or, with `naming` off, a plain 400.  It
/// keeps the batches it was sent.
final class RefusingEvents: Sendable {
    let refusing: Set<String>
    let naming: Bool
    let batches = NIOLockedValueBox<[[String]]>([])
    let stored = NIOLockedValueBox<[String]>([])
    private let task = NIOLockedValueBox<Task<Void, Error>?>(nil)
    private let port = NIOLockedValueBox(0)
    var url: URL { URL(string: "http://127.0.0.1:\(port.withLockedValue { $0 })/events")! }

    init(refusing: Set<String>, naming: Bool = true) {
        self.refusing = refusing
        self.naming = naming
    }

    func start() async throws {
        let router = Router()
        router.post("events") { [self] request, _ -> Response in
            let value = try JSONValue(json: Data(buffer: try await request.body.collect(upTo: 1 << 20)))
            let ids = (value["events"]?.arrayValue ?? []).map { $0["id"]?.stringValue ?? "" }
            batches.withLockedValue { $0.append(ids) }
            let refused = ids.enumerated().filter { refusing.contains($0.element) }
            guard refused.isEmpty else {
                let list = refused.map { #"{"index":\#($0.offset),"id":"\#($0.element)","field":"name","message":"no"}"# }
                let body = naming ? #"{"error":"bad-events","message":"no","refused":[\#(list.joined(separator: ","))]}"#
                                  : #"{"error":"bad-events","message":"no"}"#
                return Response(status: .badRequest, body: .init(byteBuffer: .init(string: body)))
            }
            stored.withLockedValue { $0 += ids }
            return Response(status: .ok, body: .init(byteBuffer: .init(string: #"{"accepted":\#(ids.count),"duplicates":0}"#)))
        }
        let ports = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  ports.continuation.yield(channel.localAddress?.port ?? 0)
                                  ports.continuation.finish()
                              })
        task.withLockedValue { $0 = Task { try await app.run() } }
        for await p in ports.stream { port.withLockedValue { $0 = p } }
    }

    func stop() async {
        let t = task.withLockedValue { $0 }
        t?.cancel()
        _ = try? await t?.value
    }
}

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
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, retry: Self.fast),
                               client: patientClient)
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
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, maxBytes: 4096, retry: Self.fast),
                               client: patientClient)
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
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, retry: policy),
                               client: patientClient)
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

    /// A refusal that names its events: exactly those leave the queue,
    /// counted for the flush and for the uploader's life, and the rest go
    /// again at once (one refused batch, then one accepted).
    @Test func eventsTheServerNamesAsRefusedAreDroppedAndCounted() async throws {
        let (j, ids) = try journal(events: 40)
        let refusing: Set<String> = [ids[3], ids[17], ids[39], "late-bad"]
        let server = RefusingEvents(refusing: refusing)
        try await server.start()
        defer { Task { await server.stop() } }
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, retry: Self.fast),
                               client: patientClient)
        let report = try await up.flush()
        #expect(report.rejected == 3 && up.rejectedTotal == 3)
        #expect(report.events == 37 && report.batches == 1)
        #expect(server.stored.withLockedValue { $0 } == ids.filter { !refusing.contains($0) })
        #expect(server.batches.withLockedValue { $0.count } == 2)
        #expect(try j.stats().events == 0)
        // The life count goes on across flushes.
        try j.commit(events: ["late-bad", "late-ok"].map {
            Data(#"{"flowId":"f","id":"\#($0)","name":"n","timestamp":1,"userId":"u"}"#.utf8)
        })
        let again = try await up.flush()
        #expect(again.rejected == 1 && again.events == 1 && up.rejectedTotal == 4)
    }

    /// A refusal that names nothing: the batch is halved until the refused
    /// event is alone, and only it is dropped.
    @Test func aRefusalThatNamesNothingIsNarrowedByHalving() async throws {
        let (j, ids) = try journal(events: 16)
        let server = RefusingEvents(refusing: [ids[5]], naming: false)
        try await server.start()
        defer { Task { await server.stop() } }
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, retry: Self.fast),
                               client: patientClient)
        let report = try await up.flush()
        #expect(report.rejected == 1 && up.rejectedTotal == 1)
        #expect(server.stored.withLockedValue { $0 } == ids.filter { $0 != ids[5] })
        #expect(server.batches.withLockedValue { $0.count } > 2)
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
        let up = EventUploader(journal: j, configuration: .init(endpoint: server.url, retry: Self.fast),
                               client: patientClient)
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
