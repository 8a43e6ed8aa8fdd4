// HTTPClient.swift - bounded HTTP requests over URLSession: a body-size limit
// enforced as bytes arrive, and a total deadline per request.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends GET and POST requests with two bounds a hostile or broken server
/// cannot get around:
///
/// - **Body size.** A `Content-Length` over `maxBodyBytes` is refused when
///   the header arrives, before any body byte is read; bytes are counted as
///   they arrive (a chunked or lying body included) and the transfer is
///   cancelled as soon as the count passes the limit.  Memory therefore never
///   holds more than the limit plus one network read.
/// - **Time.** `timeout` is a deadline for the whole request, from sending
///   it to the last byte, not an idle timer: a server that drips one byte at
///   a time is cut off when the deadline passes.
///
/// A refused size is `.limit`; an unreachable server, a deadline or a broken
/// transfer is `.network`; every error names the URL.  The client owns its
/// URLSession and invalidates it when released.  Thread-safe: a request's
/// state lives in its own box, reached under a lock.
public final class HTTPClient: Sendable {
    /// The deadline for a whole request, in seconds: the value given to
    /// ``init(timeout:maxBodyBytes:)``, kept within 1 ms and one day.
    public let timeout: TimeInterval
    /// The largest response body accepted, in bytes (never negative); a
    /// longer body, announced or received, fails the request with `.limit`.
    public let maxBodyBytes: Int
    private let session: URLSession
    private let tasks: TaskTable

    /// - Parameters:
    ///   - timeout: seconds allowed for a whole request; kept within 1 ms
    ///     and one day (a non-finite or non-positive value is 1 ms).
    ///   - maxBodyBytes: the largest body accepted, in bytes (a negative
    ///     value is 0: only empty bodies).
    public init(timeout: TimeInterval, maxBodyBytes: Int) {
        self.timeout = timeout.isFinite && timeout > 0.001 ? min(timeout, 86_400) : 0.001
        self.maxBodyBytes = max(maxBodyBytes, 0)
        let table = TaskTable()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = self.timeout
        configuration.timeoutIntervalForResource = self.timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.session = URLSession(configuration: configuration, delegate: table, delegateQueue: queue)
        self.tasks = table
    }

    deinit { session.invalidateAndCancel() }

    /// `GET url` with the given header fields.
    ///
    /// Any status is an answer (a 404 or a 500 is returned, not thrown).
    ///
    /// - Throws: ``SDUIError`` `.limit` for a body over ``maxBodyBytes``,
    ///   `.network` for an unreachable server, a broken transfer or a missed
    ///   deadline, `.http` when the answer is not HTTP; `CancellationError`
    ///   when the calling task is cancelled.
    public func get(_ url: URL, headers: [String: String] = [:]) async throws -> HTTPClientResponse {
        try await send(url, method: "GET", headers: headers, body: nil)
    }

    /// `POST url` with a body and the given header fields.
    ///
    /// Any status is an answer; errors as for ``get(_:headers:)``.
    public func post(_ url: URL, body: Data, headers: [String: String] = [:]) async throws -> HTTPClientResponse {
        try await send(url, method: "POST", headers: headers, body: body)
    }

    /// Runs one request to its end: an answer, a refusal, the deadline or
    /// the caller's cancellation, whichever comes first.
    private func send(_ url: URL, method: String, headers: [String: String],
                      body: Data?) async throws -> HTTPClientResponse {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let task = session.dataTask(with: request)
        let state = RequestState(url: url, limit: maxBodyBytes, timeout: timeout)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPClientResponse, Error>) in
                state.start(continuation)
                tasks.register(task.taskIdentifier, state)
                // The deadline covers the whole exchange, however slowly bytes come.
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak task] in
                    if state.fail(.deadline), let task { state.abandon(task) }
                }
                task.resume()
            }
        } onCancel: {
            if state.fail(.cancelled) { task.cancel() }
        }
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
    let limit: Int
    let timeout: TimeInterval
    private let lock = NSLock()
    private var continuation: CheckedContinuation<HTTPClientResponse, Error>?
    private var stop: Stop?
    private var finished = false
    private var cancelled = false
    private var data = Data()
    private var response: HTTPURLResponse?

    init(url: URL, limit: Int, timeout: TimeInterval) {
        self.url = url
        self.limit = limit
        self.timeout = timeout
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
}

/// The session's delegate: routes each task's events to its state.
private final class TaskTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Guarded by `lock`: registrations come from callers, events from the
    // session's serial delegate queue.
    private let lock = NSLock()
    private var states: [Int: RequestState] = [:]

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
    }
}
