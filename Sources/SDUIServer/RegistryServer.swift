// RegistryServer.swift - the registry's HTTP API on Hummingbird 2 (schemas/openapi.json): state and running.
#if Server
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import Prometheus
import SDUI
import ServiceLifecycle


/// The registry server: `GET /screens/{id}`, `GET /design-tokens?ids=…`,
/// `GET /metrics` and `GET /health`.
///
/// - `X-Primitives` is required on both API routes (400 when missing or
///   malformed).  For every token the server picks the highest version
///   whose whole tree the client supports.  A screen with a token
///   that has no such version is a 409 naming `Incompatible-Primitives` and
///   the screen's fallback id.  Answers carry `Vary: X-Primitives`.
/// - `/design-tokens` takes 1 to 50 distinct ids of the registry's id
///   grammar (``RegistryID``); otherwise 400.  Ids with no compatible
///   version, or unknown, are left out of the array and listed in
///   `X-SDUI-Missing`; when none is left the answer is 404.
/// - `ETag` is the quoted SHA-256 of the token JSON; a batch gets
///   `ETag.batch(_:)` over its members in request order; a screen the
///   SHA-256 of its payload.  `If-None-Match` (strong, weak, lists, `*`)
///   answers 304 with the same ETag, Cache-Control and Vary; the `v` hint
///   is accepted but never makes a 304 (only conditional requests may).
///   Successes carry `Cache-Control: max-age=86400` (`, private` when
///   signed), errors `no-store` and a JSON body `{"error", "message"}`.
/// - Publishes reach every server within ``RegistryServerConfiguration/refreshInterval``:
///   each keeps a snapshot and a background task applies the store's newer
///   rows; requests never wait on the store.  `/health` is 503 when the
///   store has not answered for ten intervals (at least 30 s).
public final class RegistryServer: Service, Sendable {
    let store: any RegistryStore
    let configuration: RegistryServerConfiguration
    /// The Prometheus registry `GET /metrics` exports: where the metrics go
    /// unless another swift-metrics factory was given.
    public let metrics: PrometheusCollectorRegistry
    /// Where the server's metrics are recorded (requests, latency, the
    /// applied sequence number, `sdui_build_info`): through swift-metrics,
    /// so a service may use any backend.
    let metricsFactory: any MetricsFactory
    let logger: Logger
    let state: NIOLockedValueBox<State>
    /// Parsed X-Primitives values, so a header is parsed once.
    let headerCache = NIOLockedValueBox<[String: PrimitiveMap]>([:])
    /// Finished `/design-tokens` answers by generation, header and query,
    /// with their total body bytes.  Emptied when it passes 4,096 answers
    /// or ``answerCacheBytes``, so distinct queries cannot grow it without bound.
    let answerCache = NIOLockedValueBox<(answers: [String: TokenAnswer], bytes: Int)>(([:], 0))
    static let answerCacheBytes = 64 << 20
    /// The (experiment, variation) pairs `sdui_experiment_exposures_total`
    /// has series for; at most ``maxExposureSeries``, so clients cannot grow
    /// /metrics without bound.
    let exposureSeries = NIOLockedValueBox<Set<String>>([])
    static let maxExposureSeries = 1_000
    /// The `experiment\0variation` pairs whose weight gauges are exported
    /// (``exportExperiments(_:)``), so the ones no longer running are removed.
    let exportedWeights = NIOLockedValueBox<Set<String>>([])
    /// The running service group, for ``shutdown()``.
    let group = NIOLockedValueBox<ServiceGroup?>(nil)

    struct State {
        var snapshot = RegistrySnapshot()
        /// When the store last answered a refresh.
        var refreshed = ContinuousClock.now
        /// The refresh failures since the store last answered: when they
        /// began and how many; nil while refreshes work.
        var outage: (since: ContinuousClock.Instant, failures: Int)?
    }

    /// A computed `/design-tokens` answer.
    struct TokenAnswer: Sendable {
        var etag: String?
        var body: ByteBuffer
        var missing: [String]
    }

    /// A server over `store`; nothing is read or bound until ``run()``,
    /// ``start()`` or ``refresh()``.
    ///
    /// - Parameters:
    ///   - store: where the tokens and screens are published.
    ///   - configuration: how to listen and answer (default: `127.0.0.1:8080`,
    ///     unsigned, no auth).
    ///   - metrics: the Prometheus registry `/metrics` exports; pass the
    ///     service's own to export them together.
    ///   - metricsFactory: where the metrics are recorded; nil (the default)
    ///     records them in `metrics`, each family with its help text
    ///     (``RegistryMetrics/help``; latency buckets from 50 µs to 5 s).  Pass the service's factory
    ///     to use another backend; `/metrics` then exports only what
    ///     `metrics` holds.
    ///   - logger: the server's log (label `sdui.server` by default).
    public init(store: any RegistryStore, configuration: RegistryServerConfiguration = .init(),
                metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
                metricsFactory: (any MetricsFactory)? = nil,
                logger: Logger = Logger(label: "sdui.server")) {
        self.store = store
        self.configuration = configuration
        self.metrics = metrics
        self.metricsFactory = metricsFactory ?? RegistryMetricsFactory(registry: metrics)
        self.logger = logger
        self.state = NIOLockedValueBox(State())
        // `sdui_build_info{version} 1`: which build answers, for a fleet.
        Gauge(label: "sdui_build_info", dimensions: [("version", SDUIKitVersion.string)], factory: self.metricsFactory)
            .record(1)
        // The outage metrics exist from the start, at 0.
        _ = Counter(label: "sdui_registry_refresh_failures_total", factory: self.metricsFactory)
        // The fleet's reports exist from the start, at 0, so the hit-ratio
        // rules (dashboards/alerts.yml) see the series.
        for label in ["sdui_client_token_lookups_total", "sdui_client_token_hits_total", "sdui_client_unknown_primitive_total",
                      "sdui_experiment_exposures_unlabeled_total"] {
            _ = Counter(label: label, factory: self.metricsFactory)
        }
        recordRefreshAge()
    }


    /// Migrates the store (or, with ``RegistryServerConfiguration/migrate``
    /// false, checks its schema), loads the snapshot and serves until
    /// cancelled, or until the service group this runs in shuts down
    /// gracefully: the ServiceLifecycle `Service` requirement.  Beside the
    /// application it runs a ``RegistryRefresher`` and, when a retention
    /// bound is set, an ``EventPruner``.
    public func run() async throws {
        try await run(onRunning: { _ in })
    }

    /// Migrates (or checks) the store, loads the snapshot and serves until
    /// cancelled; `onRunning` is told the port once it is bound.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try configuration.eventRetention.check()
        if configuration.migrate {
            try await store.migrate()
        } else {
            try await store.verifySchema()
        }
        try await refresh()
        guard configuration.requestTimeout > .zero, configuration.requestRateGrace >= .zero else {
            throw RegistryError(.invalid, "requestTimeout must be positive and requestRateGrace not negative")
        }
        let maxBody = configuration.maxBodyBytes
        let limits = RequestHeadGate.ReadLimits(configuration)
        let http1 = HTTP1Channel.Configuration(idleTimeout: TimeAmount(configuration.idleTimeout))
        let maxConnections = try connectionCap()
        let logger = logger
        let app = Application(
            router: makeRouter(),
            server: HTTPServerBuilder { responder in
                RegistryChildChannel(http1: HTTP1Channel(responder: responder, configuration: http1), maxBodyBytes: maxBody,
                                     limits: limits)
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
        // The application, the snapshot refresher and the event pruner, as one structured group.
        var members: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: app), .init(service: RegistryRefresher(self), successTerminationBehavior: .ignore)]
        if configuration.eventRetention.isOn {
            members.append(.init(service: EventPruner(self), successTerminationBehavior: .ignore))
        }
        let services = ServiceGroup(configuration: .init(services: members,
                                                         gracefulShutdownSignals: configuration.gracefulShutdownSignals,
                                                         logger: logger))
        group.withLockedValue { $0 = services }
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
#endif
