// RegistryServer.swift - the registry's HTTP API on Hummingbird 2 (seed 000 §4.2, §5).
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Prometheus
import SDUI
import ServiceLifecycle

/// How a registry server runs.
public struct RegistryServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port (see ``RunningRegistry/port``).
    public var port = 8080
    /// Signs every served token (HS256 JWS per §10, or EdDSA); nil serves plain JSON.
    public var signer: TokenSigner?
    /// Bearer-token auth on `/screens` and `/design-tokens`; nil turns it off.
    public var access: AccessTokenVerifier?
    /// `Cache-Control: max-age` of 200 and 304 answers (S-4).
    public var maxAge = 86_400
    /// How often the server asks the store whether anything was published.
    public var refreshInterval: Duration = .seconds(1)
    /// Idle connections are closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// Most connections open at once.  Beyond it new connections wait in
    /// the listen backlog, neither accepted nor refused, until one closes.
    /// nil: what the descriptor limit (`RLIMIT_NOFILE`) leaves after the
    /// descriptors open at start and a reserve (``DescriptorBudget``).  A
    /// cap that does not fit under the limit is logged as a warning at start.
    public var maxConnections: Int?
    /// Requests whose header fields add up to more are refused with 431.
    public var maxHeaderBytes = 16 * 1024
    /// The API takes no request bodies; anything above this is refused with 413.
    public var maxBodyBytes = 0
    /// Most ids in one `/design-tokens` request (S-3).
    public var maxIDs = 50
    /// `/health` answers 503 when the store has not answered for this long
    /// (nil: ten refresh intervals, and at least 30 s).
    public var healthStaleAfter: Duration?
    /// Level of the one structured log line per request (method, path,
    /// X-Primitives; Authorization is never logged).
    public var requestLogLevel: Logger.Level = .debug

    public init() {}
}

/// The registry server: `GET /screens/{id}`, `GET /design-tokens?ids=…`,
/// `GET /metrics` and `GET /health`.
///
/// - `X-Primitives` is required on both API routes (400 when missing or
///   malformed).  For every token the server picks the highest version
///   whose whole tree the client supports (S-2).  A screen with a token
///   that has no such version is a 409 naming `Incompatible-Primitives` and
///   the screen's fallback id.  Answers carry `Vary: X-Primitives`.
/// - `/design-tokens` takes 1 to 50 distinct ids of the registry's id
///   grammar (``RegistryID``); otherwise 400.  Ids with no compatible
///   version, or unknown, are left out of the array and listed in
///   `X-SDUI-Missing`; when none is left the answer is 404.
/// - `ETag` is the quoted SHA-256 of the token JSON; a batch gets
///   ``ETag/batch(_:)`` over its members in request order; a screen the
///   SHA-256 of its payload.  `If-None-Match` (strong, weak, lists, `*`)
///   answers 304 with the same ETag, Cache-Control and Vary; the `v` hint
///   is accepted but never makes a 304 (only conditional requests may).
///   Successes carry `Cache-Control: max-age=86400` (`, private` when
///   signed), errors `no-store` and a JSON body `{"error", "message"}`.
/// - Publishes reach every server within ``RegistryServerConfiguration/refreshInterval``:
///   each keeps a snapshot and a background task applies the store's newer
///   rows; requests never wait on the store.  `/health` is 503 when the
///   store has not answered for ten intervals (at least 30 s).
public final class RegistryServer: Sendable {
    let store: any RegistryStore
    let configuration: RegistryServerConfiguration
    public let metrics: PrometheusCollectorRegistry
    let logger: Logger
    let state: NIOLockedValueBox<State>
    /// Parsed X-Primitives values, so a header is parsed once.
    let headerCache = NIOLockedValueBox<[String: PrimitiveMap]>([:])
    /// Finished `/design-tokens` answers by generation, header and query,
    /// with their total body bytes.  Emptied when it passes 4,096 answers
    /// or ``answerCacheBytes``, so distinct queries cannot grow it without bound.
    let answerCache = NIOLockedValueBox<(answers: [String: TokenAnswer], bytes: Int)>(([:], 0))
    static let answerCacheBytes = 64 << 20
    /// The running service group, for ``shutdown()``.
    let group = NIOLockedValueBox<ServiceGroup?>(nil)

    struct State {
        var snapshot = RegistrySnapshot()
        /// When the store last answered a refresh.
        var refreshed = ContinuousClock.now
    }

    /// A computed `/design-tokens` answer.
    struct TokenAnswer: Sendable {
        var etag: String?
        var body: ByteBuffer
        var missing: [String]
    }

    public init(store: any RegistryStore, configuration: RegistryServerConfiguration = .init(),
                metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
                logger: Logger = Logger(label: "sdui.server")) {
        self.store = store
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.state = NIOLockedValueBox(State())
    }

    // MARK: snapshot

    /// Brings the snapshot up to the store's latest state now.  A store
    /// whose sequence went backwards (restored, or re-created) is read again
    /// from the start.
    public func refresh() async throws {
        let current = state.withLockedValue { $0.snapshot }
        let generation = try await store.generation()
        guard generation != current.generation else {
            state.withLockedValue { $0.refreshed = .now }
            return
        }
        let base = generation < current.generation ? RegistrySnapshot() : current
        if generation < current.generation {
            logger.warning("the registry sequence went backwards; reloading everything",
                           metadata: ["had": "\(current.generation)", "now": "\(generation)"])
        }
        let changes = try await store.changes(after: base.generation)
        let newest = max(generation, (changes.tokens.map(\.seq) + changes.screens.map(\.seq)).max() ?? 0)
        let next = base.applying(changes, generation: newest, signer: configuration.signer, logger: logger)
        state.withLockedValue {
            if base.generation == 0 || $0.snapshot.generation < next.generation { $0.snapshot = next }
            $0.refreshed = .now
        }
        metrics.makeGauge(descriptor: MetricNameDescriptor(namespace: "sdui", subsystem: "registry", metricName: "generation",
                                                           unitName: "", helpText: "The registry sequence number this server has applied"))
            .set(Double(next.generation))
        metrics.makeGauge(descriptor: MetricNameDescriptor(namespace: "sdui", subsystem: "registry", metricName: "token",
                                                           unitName: "ids", helpText: "Token ids this server serves"))
            .set(Double(next.tokens.count))
    }

    /// The snapshot requests answer from (never waits for the store).
    func snapshot() -> RegistrySnapshot { state.withLockedValue { $0.snapshot } }

    /// Refreshes every ``RegistryServerConfiguration/refreshInterval`` until
    /// cancelled; a failure is logged and the last snapshot kept.
    func refreshLoop() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: configuration.refreshInterval)
                try await refresh()
            } catch is CancellationError {
                return
            } catch {
                logger.error("registry refresh failed; serving the last snapshot", metadata: ["error": "\(error)"])
            }
        }
    }

    /// How long since the store last answered, and whether that is too long
    /// (ten refresh intervals, and at least 30 s).
    func staleness() -> (seconds: Double, stale: Bool) {
        let age = ContinuousClock.now - state.withLockedValue { $0.refreshed }
        let limit = configuration.healthStaleAfter ?? max(configuration.refreshInterval * 10, .seconds(30))
        return (Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18, age > limit)
    }

    // MARK: routes

    /// The router: limits and metrics on everything, auth on the API.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RequestLogMiddleware(configuration.requestLogLevel,
                                                    headers: [Self.primitivesField, .ifNoneMatch]))
        router.add(middleware: RequestMetricsMiddleware(registry: metrics))
        router.add(middleware: HeaderLimitMiddleware(maxHeaderBytes: configuration.maxHeaderBytes))
        router.get("health") { [self] _, _ in
            // 503 when the store has not answered for a while: the server
            // still serves its last snapshot, but a balancer should know.
            let (age, stale) = staleness()
            let body = #"{"status":"\#(stale ? "stale" : "ok")","generation":\#(snapshot().generation),"#
                + #""secondsSinceRefresh":\#(String(format: "%.1f", age))}"#
            return Response(status: stale ? .serviceUnavailable : .ok,
                            headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("metrics") { [metrics] _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
        }
        let api = router.group()
        if let access = configuration.access { api.add(middleware: BearerAuthMiddleware(verifier: access)) }
        api.get("screens/:id") { [self] request, context in
            await screen(request, id: context.parameters.get("id") ?? "")
        }
        api.get("design-tokens") { [self] request, _ in await designTokens(request) }
        // HEAD: the GET answer's status and headers, without its body.
        api.head("screens/:id") { [self] request, context in
            Self.head(await screen(request, id: context.parameters.get("id") ?? ""))
        }
        api.head("design-tokens") { [self] request, _ in Self.head(await designTokens(request)) }
        return router
    }

    /// `response` for a HEAD request: the same headers, the GET body's
    /// length, no body.
    static func head(_ response: Response) -> Response {
        var r = response
        // A body that announces the GET body's length and writes nothing.
        r.body = ResponseBody(contentLength: response.body.contentLength) { writer in try await writer.finish(nil) }
        return r
    }

    static let primitivesField = HTTPField.Name("X-Primitives")!
    static let primitivesRequired = "the X-Primitives header is required (e.g. Column@3,Text@4)"
    static let missingField = HTTPField.Name("X-SDUI-Missing")!

    /// Longest error message: its echoes of the request are cut to
    /// ``EchoedInput/maxBytes`` each, and the whole to this.
    static let maxMessageBytes = 1024

    /// The JSON of an error answer: `{"error": code, "message": …}` plus `extra`.
    static func errorBody(_ code: String, _ message: String, extra: [String: JSONValue] = [:]) -> Data {
        var body: [String: JSONValue] = ["error": .string(code),
                                          "message": .string(EchoedInput.clipped(message, maxBytes: maxMessageBytes))]
        body.merge(extra) { _, new in new }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(body)) ?? Data("{}".utf8)
    }

    /// A JSON error answer: `{"error": code, "message": …}`, never cached.
    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String,
                      extra: [String: JSONValue] = [:], vary: Bool = false) -> Response {
        let data = errorBody(code, message, extra: extra)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if vary { headers[.vary] = "X-Primitives" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The client's primitives, or the 400 to send.
    func primitives(_ request: Request) -> Result<PrimitiveMap, RegistryError> {
        primitives(header: request.headers[Self.primitivesField])
    }

    /// `X-Primitives` parsed (once per distinct value), or the 400 to send.
    func primitives(header: String?) -> Result<PrimitiveMap, RegistryError> {
        guard let header else {
            return .failure(RegistryError(.invalid, Self.primitivesRequired))
        }
        if let hit = headerCache.withLockedValue({ $0[header] }) { return .success(hit) }
        do {
            let map = try PrimitiveMap(parsing: header)
            headerCache.withLockedValue { cache in
                if cache.count >= 256 { cache.removeAll(keepingCapacity: true) }
                cache[header] = map
            }
            return .success(map)
        } catch let e as SDUIError {
            return .failure(RegistryError(.invalid, EchoedInput.clipped(e.description, maxBytes: Self.maxMessageBytes)))
        } catch {
            return .failure(RegistryError(.invalid, EchoedInput.clipped("\(error)", maxBytes: Self.maxMessageBytes)))
        }
    }

    /// Headers of a 200 or 304: ETag, Cache-Control, Vary.  Signed answers
    /// are `private`: their ETag names the token JSON, not the signed bytes,
    /// so a shared cache must not revalidate one across a key rotation.
    func cacheHeaders(etag: String?) -> HTTPFields {
        let control = "max-age=\(configuration.maxAge)" + (configuration.signer == nil ? "" : ", private")
        var h: HTTPFields = [.cacheControl: control, .vary: "X-Primitives"]
        if let etag { h[.eTag] = etag }
        return h
    }

    /// Whether the request's `If-None-Match` names `etag`.  Only a
    /// conditional request may get a 304 (RFC 9110 §15.4.5), so the `v`
    /// hint of seed 000 §5.2 never does.
    func notModified(_ request: Request, etag: String) -> Bool {
        guard let inm = request.headers[.ifNoneMatch] else { return false }
        return EntityTagMatch.matches(inm, current: etag)
    }

    /// `GET /screens/{id}`.
    func screen(_ request: Request, id: String) async -> Response {
        guard RegistryID.isValid(id) else {
            return Self.error(.badRequest, "bad-id",
                              "\(EchoedInput.quoted(id)) is not a screen id (1–128 of A–Z a–z 0–9 _ - . :)")
        }
        let map: PrimitiveMap
        switch primitives(request) {
        case .success(let m): map = m
        case .failure(let e): return Self.error(.badRequest, "bad-primitives", e.message)
        }
        let snap = snapshot()
        guard let screen = snap.screens[id] else {
            return Self.error(.notFound, "not-found", "no screen \(EchoedInput.quoted(id))")
        }
        let incompatible = screen.tokenIDs.filter { tid in
            guard let versions = snap.tokens[tid], !versions.isEmpty else { return false }
            return !versions.contains { $0.isSupported(by: map) }
        }
        if !incompatible.isEmpty {
            var extra: [String: JSONValue] = ["tokens": .array(incompatible.map { .string($0) })]
            extra["fallbackScreenId"] = screen.stored.fallbackScreenID.map { .string($0) } ?? .null
            return Self.error(.conflict, "Incompatible-Primitives",
                              "no version of \(EchoedInput.clipped(incompatible.joined(separator: ", "))) fits "
                                  + EchoedInput.clipped(map.headerValue),
                              extra: extra, vary: true)
        }
        var headers = cacheHeaders(etag: screen.etag)
        if notModified(request, etag: screen.etag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: screen.stored.payload)))
    }

    /// The ids of a `/design-tokens` request, or the 400 message.
    func ids(_ request: Request) -> Result<[String], RegistryError> {
        let given = request.uri.queryParameters.getAll("ids")
        guard given.count <= 1 else {
            return .failure(RegistryError(.invalid, "ids is given \(given.count) times; give one comma-separated list: "
                                          + "/design-tokens?ids=a,b"))
        }
        guard let raw = given.first, !raw.isEmpty else {
            return .failure(RegistryError(.invalid, "ids is required: /design-tokens?ids=a,b"))
        }
        let ids = raw.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard ids.count <= configuration.maxIDs else {
            return .failure(RegistryError(.invalid, "\(ids.count) ids; at most \(configuration.maxIDs) per request"))
        }
        var seen = Set<String>()
        for id in ids {
            guard RegistryID.isValid(id) else {
                return .failure(RegistryError(.invalid,
                                              "\(EchoedInput.quoted(id)) is not a token id (1–128 of A–Z a–z 0–9 _ - . :)",
                                              subject: id))
            }
            guard seen.insert(id).inserted else {
                return .failure(RegistryError(.invalid, "\(EchoedInput.quoted(id)) is asked for twice", subject: id))
            }
        }
        return .success(ids)
    }

    /// `GET /design-tokens?ids=…&v=…`.
    ///
    /// Answers are cached by registry generation, X-Primitives value and raw
    /// query, so a repeated request skips parsing, validation and building;
    /// a query is only cached after it passed validation.
    func designTokens(_ request: Request) async -> Response {
        guard let header = request.headers[Self.primitivesField] else {
            return Self.error(.badRequest, "bad-primitives", Self.primitivesRequired)
        }
        let snap = snapshot()
        let query = request.uri.query ?? ""
        let key = "\(snap.generation)\u{0}\(header)\u{0}\(query)"
        let answer: TokenAnswer
        if let hit = answerCache.withLockedValue({ $0.answers[key] }) {
            answer = hit
        } else {
            let asked: [String]
            switch ids(request) {
            case .success(let a): asked = a
            case .failure(let e): return Self.error(.badRequest, "bad-ids", e.message)
            }
            let map: PrimitiveMap
            switch primitives(header: header) {
            case .success(let m): map = m
            case .failure(let e): return Self.error(.badRequest, "bad-primitives", e.message)
            }
            answer = Self.answer(asked, snap, map)
            answerCache.withLockedValue { cache in
                let size = answer.body.readableBytes + key.utf8.count
                if cache.answers.count >= 4096 || cache.bytes + size > Self.answerCacheBytes {
                    cache = ([:], 0)
                }
                cache.answers[key] = answer
                cache.bytes += size
            }
        }
        guard let etag = answer.etag else {
            return Self.error(.notFound, "not-found",
                              "no version of \(EchoedInput.clipped(answer.missing.joined(separator: ", "))) fits "
                                  + EchoedInput.clipped(header),
                              extra: ["ids": .array(answer.missing.map { .string($0) })], vary: true)
        }
        var headers = cacheHeaders(etag: etag)
        if !answer.missing.isEmpty { headers[Self.missingField] = answer.missing.joined(separator: ",") }
        if notModified(request, etag: etag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: answer.body))
    }

    /// Builds the array of the best versions, its batch ETag and the misses.
    static func answer(_ ids: [String], _ snap: RegistrySnapshot, _ map: PrimitiveMap) -> TokenAnswer {
        var served: [ServedToken] = []
        var missing: [String] = []
        for id in ids {
            if let best = snap.best(id, for: map) { served.append(best) } else { missing.append(id) }
        }
        var body = ByteBuffer()
        body.reserveCapacity(served.reduce(2) { $0 + $1.element.count + 1 })
        body.writeInteger(UInt8(ascii: "["))
        for (i, t) in served.enumerated() {
            if i > 0 { body.writeInteger(UInt8(ascii: ",")) }
            body.writeBytes(t.element)
        }
        body.writeInteger(UInt8(ascii: "]"))
        return TokenAnswer(etag: served.isEmpty ? nil : ETag.batch(served.map(\.etag)), body: body, missing: missing)
    }

    // MARK: running

    /// Migrates the store, loads the snapshot and serves until cancelled.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await store.migrate()
        try await refresh()
        let maxBody = configuration.maxBodyBytes
        let http1 = HTTP1Channel.Configuration(idleTimeout: TimeAmount(configuration.idleTimeout))
        let maxConnections = try connectionCap()
        let logger = logger
        let app = Application(
            router: makeRouter(),
            server: HTTPServerBuilder { responder in
                RegistryChildChannel(http1: HTTP1Channel(responder: responder, configuration: http1), maxBodyBytes: maxBody)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: "sdui-registry"),
            onServerRunning: { channel in
                // First in the listening channel's pipeline, so it sees accept
                // errors before NIO's handlers and holds reads at the cap.
                // Hummingbird offers no earlier hook for the listening
                // channel; a connection accepted in the moment before this
                // runs is not counted against the cap.
                do {
                    try await channel.eventLoop.submit {
                        try channel.pipeline.syncOperations.addHandler(
                            AcceptGate(maxConnections: maxConnections ?? .max, logger: logger), position: .first)
                    }.get()
                } catch {
                    logger.error("could not install the connection cap", metadata: ["error": "\(error)"])
                }
                await onRunning(channel.localAddress?.port ?? 0)
            },
            logger: logger)
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint],
                                                         logger: logger))
        group.withLockedValue { $0 = services }
        let refresher = Task { await refreshLoop() }
        defer { refresher.cancel() }
        try await services.run()
    }

    /// The connection cap: the configured one or the one the descriptor
    /// limit allows; logged, with a warning when it does not fit under the
    /// limit or the limit leaves little room.
    func connectionCap(budget: DescriptorBudget = .current()) throws -> Int? {
        var metadata: Logger.Metadata = ["RLIMIT_NOFILE": "\(budget.limit.map(String.init) ?? "unlimited")",
                                         "openDescriptors": "\(budget.open.map(String.init) ?? "unknown")"]
        guard let cap = configuration.maxConnections else {
            guard let cap = budget.defaultMaxConnections else {
                logger.info("no connection cap: the descriptor limit is unlimited", metadata: metadata)
                return nil
            }
            metadata["maxConnections"] = "\(cap)"
            if cap < 100 {
                logger.warning("the descriptor limit (RLIMIT_NOFILE) is low: at most \(cap) connections at once; raise it with ulimit -n",
                               metadata: metadata)
            } else {
                logger.info("accepting at most \(cap) connections at once", metadata: metadata)
            }
            return cap
        }
        guard cap >= 1 else { throw RegistryError(.invalid, "maxConnections is \(cap); it must be at least 1") }
        metadata["maxConnections"] = "\(cap)"
        if budget.fits(cap) {
            logger.info("accepting at most \(cap) connections at once", metadata: metadata)
        } else {
            let needed = cap + (budget.open ?? 0) + budget.reserve
            logger.warning("""
                the descriptor limit (RLIMIT_NOFILE) is low for the connection cap: descriptors can run out before \
                the cap is reached, and accepting then pauses; raise ulimit -n to at least \(needed) or lower the cap
                """, metadata: metadata)
        }
        return cap
    }

    /// Stops accepting connections, finishes requests in flight and makes
    /// ``run(onRunning:)`` return.
    public func shutdown() async {
        await group.withLockedValue { $0 }?.triggerGracefulShutdown()
    }

    /// Starts serving in a task; returns once the port is bound.
    public func start() async throws -> RunningRegistry {
        let ports = AsyncStream<Int>.makeStream()
        let task = Task {
            defer { ports.continuation.finish() }   // also when run returns before binding
            try await run { port in
                ports.continuation.yield(port)
                ports.continuation.finish()
            }
        }
        var port: Int?
        for await p in ports.stream { port = p }
        guard let port else {
            let error = await task.result
            if case .failure(let e) = error { throw e }
            throw RegistryError(.store, "the server stopped before it was listening")
        }
        return RunningRegistry(server: self, task: task, host: configuration.host, port: port)
    }
}

/// A registry server running in a task.
public final class RunningRegistry: Sendable {
    public let server: RegistryServer
    let task: Task<Void, Error>
    public let port: Int
    /// `http://host:port/`.
    public let baseURL: URL

    init(server: RegistryServer, task: Task<Void, Error>, host: String, port: Int) {
        self.server = server
        self.task = task
        self.port = port
        let literal = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host   // IPv6
        baseURL = URL(string: "http://\(literal):\(port)/")!
    }

    /// Stops serving (gracefully) and waits for the server to finish.
    public func stop() async {
        await server.shutdown()
        _ = await task.result
    }
}
