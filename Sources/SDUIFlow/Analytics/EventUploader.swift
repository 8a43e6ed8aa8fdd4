// EventUploader.swift - sends the journal's queued events to POST /events
// in batches, deleting each batch once the server acknowledged it.
//
// A batch is the oldest queued events, at most `maxEvents` of them and at
// most `maxBytes` of body, sent as `{"events": [e1, e2, …]}` where each
// e is the event's JSON exactly as the journal holds it (the body is
// assembled from those bytes; nothing is decoded or encoded again).  A 2xx
// answer acknowledges the batch: its events leave the journal.  A network
// failure, a timeout, a 408, a 429 or a 5xx is retried by the RetryPolicy
// (exponential backoff, jitter, a cap); when the attempts run out the
// events stay queued for the next flush.  Because the journal deletes only
// acknowledged events and the server keeps an event id once, an event is
// delivered at least once and stored exactly once, whatever fails between.
//
// A batch the server refuses for good (a 4xx other than 408 and 429: the
// batch is too large, or an event in it is malformed) must not block the
// queue forever.  When the answer names the refused events (the registry's
// 400 `bad-events` lists them in `refused`, each with its `index` in the
// batch), exactly those are taken off the queue and the others are sent
// again at once.  Otherwise the batch is halved until the refused event is
// alone, and that one event is taken off the queue.  Either way each
// dropped event is logged and counted: in `Report.rejected` for the flush,
// and in `rejectedTotal` for the uploader's life, which a host can read
// (and export as a metric).
//
// Events the queue's bounds dropped are reported: before a batch, a
// positive dropped count becomes an `events_dropped` event committed in
// the same transaction that takes the count off the journal's counter.
import Foundation
import Logging
import SDUICore

/// Sends a ``FlowJournal``'s events to a registry's `POST /events` (see the
/// file's essay).
///
/// Thread-safe; ``flush()`` calls are serialized by an actor-like lock so
/// two flushes never send the same batch at once.
public final class EventUploader: Sendable {
    /// Where and how to send.
    public struct Configuration: Sendable {
        /// `POST` target: the registry's `/events`.
        public var endpoint: URL
        /// Most events in one batch.
        public var maxEvents: Int
        /// Most bytes in one batch's body.
        public var maxBytes: Int
        /// Retries of one batch.
        public var retry: RetryPolicy
        /// Extra header fields (an `Authorization`, say).
        public var headers: [String: String]

        /// A configuration for `endpoint`; `maxEvents` is raised to at least 1 and
        /// `maxBytes` to at least 1 KiB.
        public init(endpoint: URL, maxEvents: Int = 100, maxBytes: Int = 64 << 10,
                    retry: RetryPolicy = RetryPolicy(initialDelay: .milliseconds(200), maxDelay: .seconds(30),
                                                     maxAttempts: 5, jitter: .full),
                    headers: [String: String] = [:]) {
            self.endpoint = endpoint
            self.maxEvents = max(1, maxEvents)
            self.maxBytes = max(1024, maxBytes)
            self.retry = retry
            self.headers = headers
        }
    }

    /// What a flush did.
    public struct Report: Sendable, Hashable {
        /// Batches the server acknowledged, and their events.
        public var batches = 0
        /// Events in those acknowledged batches.
        public var events = 0
        /// Dropped events reported by an `events_dropped` event.
        public var droppedReported = 0
        /// Events the server refused for good, taken off the queue.
        public var rejected = 0
    }

    /// The journal whose queued events are sent and, once acknowledged, deleted.
    public let journal: FlowJournal
    /// Where and how batches are sent.
    public let configuration: Configuration
    private let client: HTTPClient
    private let logger: Logger
    private let gate = FlushGate()
    private let now: @Sendable () -> Date
    private let rejected = Locked(0)

    /// Events the server refused for good since this uploader was made,
    /// taken off the queue (each also logged as an error).  Thread-safe.
    public var rejectedTotal: Int { rejected.withLock { $0 } }

    /// An uploader of `journal`'s events.
    public init(journal: FlowJournal, configuration: Configuration,
                client: HTTPClient = HTTPClient(timeout: 10, maxBodyBytes: 1 << 20),
                logger: Logger = Logger(label: "sdui.flow.events"),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.journal = journal
        self.configuration = configuration
        self.client = client
        self.logger = logger
        self.now = now
    }

    /// Sends batches until the queue is empty.
    ///
    /// - Throws: the last error of a batch whose retries ran out (its
    ///   events stay queued), or `CancellationError`.
    @discardableResult
    public func flush() async throws -> Report {
        await gate.enter()
        defer { Task { await gate.leave() } }
        var report = Report()
        var limit = configuration.maxEvents
        while true {
            try Task.checkCancellation()
            report.droppedReported += try reportDropped()
            let batch = try journal.peek(maxEvents: limit, maxBytes: configuration.maxBytes - 16)
            if batch.isEmpty { return report }
            var body = Data("{\"events\":[".utf8)
            for (i, e) in batch.enumerated() {
                if i > 0 { body.append(UInt8(ascii: ",")) }
                body.append(e.json)
            }
            body.append(contentsOf: Array("]}".utf8))
            do {
                try await configuration.retry.run(clock: ContinuousClock(), isRetryable: Self.retryable) {
                    try await send(body, count: batch.count)
                }
            } catch let e as Refused {
                guard !Self.retryable(e) else { throw e.error }
                let named = e.refusedIndices.filter { batch.indices.contains($0) }
                if !named.isEmpty {
                    // The server named the refused events: drop those, send the rest again.
                    for i in named {
                        logger.error("the server refused an event; it is taken off the queue",
                                     metadata: ["reason": "\(e.refusedMessages[i] ?? "")", "status": "\(e.status)",
                                                "event": "\(String(decoding: batch[i].json.prefix(300), as: UTF8.self))"])
                    }
                    try journal.acknowledge(named.map { batch[$0].seq })
                    report.rejected += named.count
                    rejected.withLock { $0 += named.count }
                    continue
                }
                if batch.count > 1 {
                    limit = max(1, batch.count / 2)
                    continue
                }
                logger.error("the server refused an event; it is taken off the queue",
                             metadata: ["error": "\(e.error)",
                                        "event": "\(String(decoding: batch[0].json.prefix(300), as: UTF8.self))"])
                try journal.acknowledge([batch[0].seq])
                report.rejected += 1
                rejected.withLock { $0 += 1 }
                continue
            }
            limit = configuration.maxEvents
            try journal.acknowledge(batch.map(\.seq))
            report.batches += 1
            report.events += batch.count
        }
    }

    /// Flushes now and then every `interval` until the task is cancelled;
    /// a flush that fails is logged and tried again at the next tick.
    public func run(every interval: Duration) async {
        while !Task.isCancelled {
            do {
                try await flush()
            } catch is CancellationError {
                return
            } catch {
                logger.warning("event upload failed; events stay queued", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// One POST of a batch body.
    private func send(_ body: Data, count: Int) async throws {
        var headers = configuration.headers
        headers["Content-Type"] = "application/json"
        let response = try await client.post(configuration.endpoint, body: body, headers: headers)
        guard (200..<300).contains(response.status) else {
            let text = String(decoding: response.body.prefix(200), as: UTF8.self)
            var refused = Refused(status: response.status,
                                  error: SDUIError(.http, "POST /events: HTTP \(response.status) for \(count) events: \(text)",
                                                   input: configuration.endpoint.absoluteString))
            if response.status == 400 { refused.name(from: response.body) }
            throw refused
        }
    }

    /// Network failures and 408, 429, 5xx are worth another attempt.
    static func retryable(_ error: any Error) -> Bool {
        if let r = error as? Refused { return r.status == 408 || r.status == 429 || r.status >= 500 }
        return (error as? SDUIError)?.category == .network
    }

    /// A status other than 2xx, kept apart so retries can tell it.
    struct Refused: Error {
        var status: Int
        var error: SDUIError
        /// The batch indices the answer names as refused (`refused[].index`), in order.
        var refusedIndices: [Int] = []
        /// The answer's message for each of them.
        var refusedMessages: [Int: String] = [:]

        /// Reads `{"refused": [{"index": i, "message": …}, …]}` from a 400's
        /// body; anything else names nothing.
        mutating func name(from body: Data) {
            guard let value = try? JSONValue(json: body), let list = value["refused"]?.arrayValue else { return }
            var seen = Set<Int>()
            for item in list {
                guard let i = item["index"]?.intValue.map(Int.init), seen.insert(i).inserted else { continue }
                refusedIndices.append(i)
                refusedMessages[i] = item["message"]?.stringValue
            }
        }
    }

    /// Commits an `events_dropped` event for the journal's unreported drops;
    /// returns how many it reported.
    private func reportDropped() throws -> Int {
        let dropped = try journal.stats().dropped
        guard dropped > 0 else { return 0 }
        let event = FlowEvent(name: EventKind.eventsDropped.name, flowId: "", flowVersion: "", screen: nil,
                              timestamp: Int64((now().timeIntervalSince1970 * 1000).rounded()), seq: 0,
                              userId: "", properties: ["count": .int(Int64(dropped))])
        try journal.commit(events: [event.json], droppedReported: dropped)
        logger.warning("the event queue dropped events", metadata: ["count": "\(dropped)"])
        return dropped
    }
}

/// Lets one flush run at a time.
private actor FlushGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if !busy { busy = true; return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func leave() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }
}
