// HTTPClient.swift - bounded HTTP requests over URLSession: a body-size limit
// enforced as bytes arrive, a total deadline per request, and a bounded
// number of connections per host that the client itself hands out.
//
// Connections per host.  URLSession keeps its own queue of tasks past its
// per-host connection limit, and a task waiting there cannot be told apart
// from one on the wire: its deadline runs while it waits unsent, and if the
// caller gives up meanwhile the task is still sent when a connection frees
// (the cancel reaches the session's queue late).  So the client never gives
// the session more tasks for a host than it has connections: each request
// first takes one of `maxConnectionsPerHost` slots of its host (scheme, host
// and port), waiting in line when all are taken, and only then is its task
// made and resumed.  A slot is given back when the session reports the task
// complete, not when the caller was answered: a cancelled transfer holds its
// connection until the cancel has landed, so the next request in line never
// piles up inside the session.  A request whose deadline passes (or whose
// caller is cancelled) while it waits leaves the line and fails at once; it
// never had a task, so it is never sent.  The deadline runs from the call,
// covering the wait and the exchange, and the error says how the time went.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends GET and POST requests with three bounds a hostile or broken server
/// cannot get around:
///
/// - **Body size.** A `Content-Length` over `maxBodyBytes` is refused when
///   the header arrives, before any body byte is read; bytes are counted as
///   they arrive (a chunked or lying body included) and the transfer is
///   cancelled as soon as the count passes the limit.  Memory therefore never
///   holds more than the limit plus one network read.
/// - **Time.** `timeout` is a deadline for the whole request, from the call
///   to the last byte, not an idle timer: a server that drips one byte at a
///   time is cut off when the deadline passes, and time spent waiting for a
///   free connection counts too.
/// - **Connections.** At most `maxConnectionsPerHost` requests to one host
///   (scheme, host, port) are on the wire at once; the others wait in line,
///   in call order.  One that is still waiting at its deadline (or when its
///   task is cancelled) fails without ever being sent.
///
/// A refused size is `.limit`; an unreachable server, a deadline (on the
/// wire or still waiting for a connection, which the message says) or a
/// broken transfer is `.network`; every error names the URL.  The client
/// owns its URLSession and invalidates it when released.  Thread-safe: a
/// request's state lives in its own box, and the connection slots in one
/// table, each reached under its lock.
public final class HTTPClient: Sendable {
    /// The deadline for a whole request, in seconds: the value given to
    /// ``init(timeout:maxBodyBytes:maxConnectionsPerHost:)``, kept within
    /// 1 ms and one day.
    public let timeout: TimeInterval
    /// The largest response body accepted, in bytes (never negative); a
    /// longer body, announced or received, fails the request with `.limit`.
    public let maxBodyBytes: Int
    /// The most requests to one host (scheme, host and port) on the wire at
    /// once, from 1 to 64; further requests wait for one to end.
    public let maxConnectionsPerHost: Int
    private let session: URLSession
    private let tasks: TaskTable
    private let slots: HostSlots

    /// - Parameters:
    ///   - timeout: seconds allowed for a whole request, waiting for a
    ///     connection included; kept within 1 ms and one day (a non-finite
    ///     or non-positive value is 1 ms).
    ///   - maxBodyBytes: the largest body accepted, in bytes (a negative
    ///     value is 0: only empty bodies).
    ///   - maxConnectionsPerHost: the most requests to one host on the wire
    ///     at once (6 by default, as browsers and URLSession use); kept
    ///     within 1 and 64.
    public init(timeout: TimeInterval, maxBodyBytes: Int, maxConnectionsPerHost: Int = 6) {
        self.timeout = Self.clamp(timeout)
        self.maxBodyBytes = max(maxBodyBytes, 0)
        self.maxConnectionsPerHost = min(max(maxConnectionsPerHost, 1), 64)
        let slots = HostSlots(limit: self.maxConnectionsPerHost)
        let table = TaskTable(slots: slots)
        let configuration = URLSessionConfiguration.ephemeral
        // The client's own timer is the deadline (a request may bring its
        // own); the session's timers only back it up.
        configuration.timeoutIntervalForRequest = self.timeout
        configuration.timeoutIntervalForResource = 86_400
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // The slots keep the session at or below this, so it never queues a task itself.
        configuration.httpMaximumConnectionsPerHost = self.maxConnectionsPerHost
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.session = URLSession(configuration: configuration, delegate: table, delegateQueue: queue)
        self.tasks = table
        self.slots = slots
    }

    deinit { session.invalidateAndCancel() }

    /// A timeout kept within 1 ms and one day (a non-finite or non-positive value is 1 ms).
    private static func clamp(_ t: TimeInterval) -> TimeInterval {
        t.isFinite && t > 0.001 ? min(t, 86_400) : 0.001
    }

    /// `GET url` with the given header fields.
    ///
    /// Any status is an answer (a 404 or a 500 is returned, not thrown).
    ///
    /// - Throws: ``SDUIError`` `.limit` for a body over ``maxBodyBytes``,
    ///   `.network` for an unreachable server, a broken transfer or a missed
    ///   deadline (also while waiting for a connection: then nothing was
    ///   sent), `.http` when the answer is not HTTP; `CancellationError`
    ///   when the calling task is cancelled.
    ///
    /// - Parameter timeout: this request's deadline in seconds, instead of
    ///   the client's ``timeout`` (kept within the same bounds).
    public func get(_ url: URL, headers: [String: String] = [:],
                    timeout: TimeInterval? = nil) async throws -> HTTPClientResponse {
        try await send(url, method: "GET", headers: headers, body: nil, timeout: timeout)
    }

    /// `POST url` with a body and the given header fields.
    ///
    /// Any status is an answer; errors as for ``get(_:headers:)``.
    public func post(_ url: URL, body: Data, headers: [String: String] = [:],
                     timeout: TimeInterval? = nil) async throws -> HTTPClientResponse {
        try await send(url, method: "POST", headers: headers, body: body, timeout: timeout)
    }

    /// `method url` with an optional body and the given header fields:
    /// what a screen's `request` action sends.  `method` is sent as given
    /// (the caller checks it).
    ///
    /// Any status is an answer; errors as for ``get(_:headers:timeout:)``.
    public func send(_ url: URL, method: String, body: Data?, headers: [String: String] = [:],
                     timeout: TimeInterval? = nil) async throws -> HTTPClientResponse {
        try await send(url, method: method, headers: headers, body: body, timeout: timeout)
    }

    /// How many requests to `url`'s host wait in line for a connection now
    /// (for tests, which must know a request is in line before acting on it).
    func requestsWaiting(for url: URL) -> Int {
        slots.waiting(HostSlots.key(url))
    }

    /// Runs one request to its end: an answer, a refusal, the deadline or
    /// the caller's cancellation, whichever comes first.
    private func send(_ url: URL, method: String, headers: [String: String],
                      body: Data?, timeout: TimeInterval?) async throws -> HTTPClientResponse {
        let timeout = timeout.map(Self.clamp) ?? self.timeout
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let session = self.session, tasks = self.tasks, slots = self.slots
        let host = HostSlots.key(url)
        let state = RequestState(url: url, host: host, limit: maxBodyBytes, timeout: timeout,
                                 connections: maxConnectionsPerHost) { state in
            // Called once the request holds a slot: only now does a task exist.
            let task = session.dataTask(with: request)
            tasks.register(task.taskIdentifier, state)
            return task
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPClientResponse, Error>) in
                state.start(continuation)
                // The deadline covers the whole call: the wait for a slot and the exchange.
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    if state.fail(.deadline) { state.stopNow(slots: slots) }
                }
                slots.enter(host, state)
            }
        } onCancel: {
            if state.fail(.cancelled) { state.stopNow(slots: slots) }
        }
    }
}

/// The connection slots of one client, per host, and the line of requests
/// waiting for one (see the file's essay).
private final class HostSlots: @unchecked Sendable {
    let limit: Int
    // Guarded by `lock`: requests enter from their callers, slots come back
    // from the session's delegate queue, waiters leave from timers.
    private let lock = NSLock()
    private var busy: [String: Int] = [:]
    private var line: [String: [RequestState]] = [:]

    init(limit: Int) { self.limit = limit }

    /// The key of a URL's host: scheme, host and port (default ports filled in).
    static func key(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// How many requests wait in line for a slot of `host`.
    func waiting(_ host: String) -> Int {
        lock.withLock { line[host]?.count ?? 0 }
    }

    /// Takes a slot for `state` and launches it, or puts it in line.
    func enter(_ host: String, _ state: RequestState) {
        // Stopped before it could enter (cancelled at once): nothing to wait for.
        if state.isStopped { return }
        let now: Bool = lock.withLock {
            let n = busy[host, default: 0]
            assert(n <= limit, "more requests on the wire than slots")
            if n < limit {
                busy[host] = n + 1
                return true
            }
            state.queuedBehind(line[host, default: []].count, busy: n)
            line[host, default: []].append(state)
            return false
        }
        if now { launch(host, state) }
    }

    /// Starts a request that holds a slot; a request stopped meanwhile gives it straight back.
    private func launch(_ host: String, _ state: RequestState) {
        if !state.launch() { state.returnSlot(to: self) }
    }

    /// Takes `state` out of the line; false when it was not waiting (it
    /// holds a slot, or already left).
    func withdraw(_ host: String, _ state: RequestState) -> Bool {
        lock.withLock {
            guard var waiting = line[host], let i = waiting.firstIndex(where: { $0 === state }) else { return false }
            waiting.remove(at: i)
            line[host] = waiting.isEmpty ? nil : waiting
            return true
        }
    }

    /// Gives back a slot of `host`: the first request in line takes it.
    func leave(_ host: String) {
        let next: RequestState? = lock.withLock {
            if var waiting = line[host], !waiting.isEmpty {
                let first = waiting.removeFirst()
                line[host] = waiting.isEmpty ? nil : waiting
                return first   // the slot passes on: busy stays
            }
            let n = busy[host, default: 0]
            assert(n > 0, "a slot given back twice")
            busy[host] = n > 1 ? n - 1 : nil
            return nil
        }
        if let next { launch(host, next) }
    }
}

/// Why a request was stopped before its natural end.
private enum Stop {
    case deadline, cancelled
    case tooLarge(announced: Int64?)
}

/// The life of one request: the bytes received so far and the one
/// continuation, resumed exactly once.  Reached from the session's delegate
/// queue, the deadline timer and cancellation, so every access holds `lock`.
private final class RequestState: @unchecked Sendable {
    let url: URL
    /// The key of the host's slots (``HostSlots/key(_:)``).
    let host: String
    let limit: Int
    let timeout: TimeInterval
    let connections: Int
    /// Makes and registers the request's task; called once it holds a slot.
    private let makeTask: (RequestState) -> URLSessionTask
    private let lock = NSLock()
    /// The task, once the request was launched; nil while it waits in line.
    private var task: URLSessionTask?
    /// Where the request stood in line when it entered it (nil: it never
    /// waited), and when it left it.
    private var waited: (ahead: Int, busy: Int)?
    private var launchedAt: DispatchTime?
    private let created = DispatchTime.now()
    /// Whether the slot this request held was given back (once only).
    private var slotReturned = false
    private var continuation: CheckedContinuation<HTTPClientResponse, Error>?
    private var stop: Stop?
    private var finished = false
    private var cancelled = false
    private var data = Data()
    private var response: HTTPURLResponse?

    init(url: URL, host: String, limit: Int, timeout: TimeInterval, connections: Int,
         makeTask: @escaping (RequestState) -> URLSessionTask) {
        self.url = url
        self.host = host
        self.limit = limit
        self.timeout = timeout
        self.connections = connections
        self.makeTask = makeTask
    }

    /// Whether the deadline or the caller has stopped the request.
    var isStopped: Bool { lock.withLock { stop != nil } }

    /// Notes that the request waits in line behind `ahead` others, with `busy` slots taken.
    func queuedBehind(_ ahead: Int, busy: Int) {
        lock.withLock { waited = (ahead, busy) }
    }

    /// Makes and resumes the task of a request that now holds a slot;
    /// false (and no task) when it was stopped before its turn came.
    func launch() -> Bool {
        let go: Bool = lock.withLock {
            guard stop == nil, !finished else { return false }
            launchedAt = .now()
            return true
        }
        guard go else { return false }
        let t = makeTask(self)
        let stoppedMeanwhile: Bool = lock.withLock {
            task = t
            return stop != nil
        }
        // A deadline or cancellation between the check and now found no task
        // to cancel: the task is cancelled here instead and never resumed,
        // so nothing is sent, and the slot goes back now.
        if stoppedMeanwhile {
            t.cancel()
            return false
        }
        t.resume()
        return true
    }

    /// Gives back the slot this request held, the first time only (the
    /// session's completion and a launch that did not happen may both try).
    func returnSlot(to slots: HostSlots) {
        let first: Bool = lock.withLock {
            defer { slotReturned = true }
            return !slotReturned
        }
        if first { slots.leave(host) }
    }

    /// Ends a request the deadline or the caller stopped: a request still
    /// in line leaves it and is answered (it was never sent); one on the
    /// wire is answered and its transfer cancelled (its slot comes back
    /// when the session reports the task complete).
    func stopNow(slots: HostSlots) {
        if slots.withdraw(host, self) {
            finish(error: nil)
            return
        }
        let t: URLSessionTask? = lock.withLock { task }
        if let t { abandon(t) } else { finish(error: nil) }
    }

    func start(_ c: CheckedContinuation<HTTPClientResponse, Error>) {
        lock.withLock { continuation = c }
        // A cancellation that came before the continuation existed.
        if lock.withLock({ stop != nil }) { finish(error: nil) }
    }

    /// Records why the request stops; false when it has already ended or
    /// stopped (then there is nothing to cancel).
    func fail(_ why: Stop) -> Bool {
        lock.withLock {
            guard !finished, stop == nil else { return false }
            stop = why
            return true
        }
    }

    /// Takes the response head; false when its announced length is over the limit.
    func receive(_ r: URLResponse) -> Bool {
        let http = r as? HTTPURLResponse
        lock.withLock { response = http }
        if r.expectedContentLength > Int64(limit) {
            _ = fail(.tooLarge(announced: r.expectedContentLength))
            return false
        }
        return true
    }

    /// Appends body bytes; false once the count passes the limit.
    func receive(_ chunk: Data) -> Bool {
        lock.withLock {
            guard stop == nil else { return false }
            if data.count + chunk.count > limit {
                stop = .tooLarge(announced: nil)
                data = Data()
                return false
            }
            data.append(chunk)
            return true
        }
    }

    /// Ends a request that was stopped (limit, deadline): the caller gets
    /// the reason now, and the transfer is cancelled.  The caller does not
    /// wait for the cancellation to land: under a flood of bytes URLSession
    /// may deliver (and this state drop) a few more reads first.
    func abandon(_ task: URLSessionTask) {
        finish(error: nil)
        let first = lock.withLock { () -> Bool in
            defer { cancelled = true }
            return !cancelled
        }
        // Once: each cancel waits on the session's work queue, which a
        // flood of reads keeps busy.
        if first { DispatchQueue.global().async { task.cancel() } }
    }

    /// Resumes the caller once: with the answer, or with the reason it stopped.
    func finish(error: Error?) {
        let (c, outcome): (CheckedContinuation<HTTPClientResponse, Error>?, Result<HTTPClientResponse, Error>) = lock.withLock {
            guard !finished, let c = continuation else { return (nil, .failure(CancellationError())) }
            finished = true
            continuation = nil
            return (c, result(error))
        }
        c?.resume(with: outcome)
    }

    /// The outcome, from what was recorded; called under `lock`.
    private func result(_ error: Error?) -> Result<HTTPClientResponse, Error> {
        let input = url.absoluteString
        switch stop {
        case .tooLarge(let announced)?:
            if let announced {
                return .failure(SDUIError(.limit, "answer announces \(announced) bytes; the limit is \(limit)", input: input))
            }
            return .failure(SDUIError(.limit, "answer is over the limit of \(limit) bytes", input: input))
        case .deadline?:
            if launchedAt == nil {
                let ahead = waited.map { $0.ahead == 0 ? "" : ", \($0.ahead) ahead of it in line" } ?? ""
                return .failure(SDUIError(.network, "not sent: no connection to the host came free within "
                                          + "\(Self.seconds(timeout)) s (all \(connections) in use\(ahead))",
                                          input: input))
            }
            if let launchedAt, waited != nil {
                let wait = Double(launchedAt.uptimeNanoseconds &- created.uptimeNanoseconds) / 1e9
                return .failure(SDUIError(.network, "no complete answer within \(Self.seconds(timeout)) s "
                                          + "(of which \(Self.millis(wait)) waiting for a connection)",
                                          input: input))
            }
            return .failure(SDUIError(.network, "no complete answer within \(Self.seconds(timeout)) s", input: input))
        case .cancelled?:
            return .failure(CancellationError())
        case nil:
            break
        }
        if let error {
            return .failure(SDUIError(.network, "cannot reach the server: \(error.localizedDescription)", input: input))
        }
        guard let response else { return .failure(SDUIError(.http, "not an HTTP response", input: input)) }
        var headers: [String: String] = [:]
        for (k, v) in response.allHeaderFields { headers[String(describing: k)] = String(describing: v) }
        defer { data = Data() }  // the caller owns the body now; the deadline timer may outlive us
        return .success(HTTPClientResponse(status: response.statusCode, headers: headers, body: data))
    }

    /// A duration for a message: whole seconds without a decimal point.
    private static func seconds(_ t: TimeInterval) -> String {
        t == t.rounded() && abs(t) < 1e15 ? String(Int(t)) : String(t)
    }

    /// A wait for a message, in whole milliseconds.
    private static func millis(_ t: TimeInterval) -> String {
        "\(Int((t * 1000).rounded())) ms"
    }
}

/// The session's delegate: routes each task's events to its state.
private final class TaskTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Guarded by `lock`: registrations come from callers, events from the
    // session's serial delegate queue.
    private let lock = NSLock()
    private var states: [Int: RequestState] = [:]
    /// The client's slots, given back as tasks complete.
    private let slots: HostSlots

    init(slots: HostSlots) { self.slots = slots }

    func register(_ id: Int, _ state: RequestState) { lock.withLock { states[id] = state } }
    private func state(_ id: Int) -> RequestState? { lock.withLock { states[id] } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let s = state(dataTask.taskIdentifier), s.receive(response) else {
            completionHandler(.cancel)
            state(dataTask.taskIdentifier)?.abandon(dataTask)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let s = state(dataTask.taskIdentifier) else { return }
        if !s.receive(data) { s.abandon(dataTask) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let s = lock.withLock { states.removeValue(forKey: task.taskIdentifier) }
        s?.finish(error: error)
        // The connection is free only now: the next request in line may go.
        if let s { s.returnSlot(to: slots) }
    }
}
