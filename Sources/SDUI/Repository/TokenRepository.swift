// TokenRepository.swift - finds tokens: pack → memory → disk → network.
import Foundation
import Logging
import Metrics
import SDUICore

/// Finds design tokens in this order:
///
/// 1. the core pack (immutable, never revalidated);
/// 2. the memory LRU (bounded by count, default 5,000, and bytes);
/// 3. the disk cache, fresh or stale by TTL;
/// 4. the registry: misses from all callers are coalesced into requests of
///    at most 50 ids; an id already in flight is joined, never asked twice.
///    Stale tokens are revalidated with `If-None-Match` in batches of their
///    own: a 304 keeps the body and renews the TTL, a 200 replaces body and
///    ETag in one disk transaction.  `Cache-Control: max-age` sets the TTL.
///
/// Every fetched token is verified (JWS, when a verifier is configured),
/// size-checked, schema-checked, checked against the image-URL policy, and
/// persisted to disk before it is handed out.  When the registry cannot be
/// reached, a stale token is served (stale-if-error); a miss is
/// ``TokenLookup/offline``; any other failure is ``TokenLookup/unavailable(_:)``.
///
/// Telemetry: `sdui_token_cache_hit_ratio` (gauge), `sdui_token_lookups_total` (counter by
/// `source`, plus `outcome` for misses) and `sdui_token_fetch_seconds` (timer)
/// through swift-metrics; events through swift-log.
public actor TokenRepository {
    /// Batching, TTL, checks, clock and metrics of a repository; every
    /// property has a default.
    public struct Configuration: Sendable {
        /// Most ids in one request: 50, the registry's limit (schemas/openapi.json).
        public var batchSize = 50
        /// How long a batch waits for more misses before it is sent
        /// (a full batch goes at once).
        public var coalescingWindow: Duration = .milliseconds(2)
        /// TTL when the registry sends no `max-age`: one day, the registry's default.
        public var defaultTTL: TimeInterval = 86_400
        /// Size and depth limits for fetched and disk-cached tokens (the defaults of packs).
        public var limits: PackLimits = .default
        /// When set, every fetched token must be a JWS it accepts.
        public var verifier: TokenVerifier?
        /// When set, fetched tokens with image URLs off the CDN are refused.
        public var imagePolicy: ImageURLPolicy?
        /// The clock (injected by tests).
        public var now: @Sendable () -> Date = { Date() }
        /// Where metrics go; nil for the process-wide `MetricsSystem`.
        public var metricsFactory: (any MetricsFactory)?

        /// The defaults: batches of 50, a 2 ms window, a one-day TTL, no verifier
        /// and no image policy.
        public init() {}
    }

    let pack: CorePack?
    let memory: TokenCache
    let disk: DiskCache?
    let transport: (any RegistryTransport)?
    let config: Configuration
    let logger: Logger
    /// Disk failures already logged at error level, by operation: a broken
    /// cache is reported once, then quietly (it is only a cache).
    private var diskFailuresLogged: Set<String> = []

    /// TTL and ETag of tokens held in memory that came from disk or network.
    var meta: [String: (expires: Date, etag: String)] = [:]
    /// The open batches (one for misses, one for revalidations) and every
    /// id in flight, mapped to the batch that fetches it.
    var openMiss: Batch?
    var openRevalidation: Batch?
    var inFlight: [String: Batch] = [:]
    /// Hot updates by id (``observe(_:)``).
    private nonisolated let updates = Broadcast<String, DesignToken>()
    /// Hit and miss counts and their metrics: the one place they are kept.
    var metrics: RepositoryMetrics
    /// Requests sent so far (for tests and the demo).
    public internal(set) var requestCount = 0

    /// A repository over the given tiers; each is optional but the memory
    /// cache.  `logger` receives lookups' failures (default label
    /// `sdui.repository`).
    public init(pack: CorePack? = nil, memory: TokenCache, disk: DiskCache? = nil,
                transport: (any RegistryTransport)? = nil, configuration: Configuration = .init(),
                logger: Logger = Logger(label: "sdui.repository")) {
        self.pack = pack
        self.memory = memory
        self.disk = disk
        self.transport = transport
        self.config = configuration
        self.logger = logger
        self.metrics = RepositoryMetrics(factory: configuration.metricsFactory)
    }

    /// A repository that opens its disk cache at `diskPath` itself.  The
    /// disk cache is only a cache: when it cannot be opened (the path is a
    /// directory or a FIFO, a dangling link, a read-only file system, a full
    /// disk, a file of a newer schema), the repository goes on with memory
    /// and network, and logs the reason once.
    public init(pack: CorePack? = nil, memory: TokenCache, diskPath: String,
                durableDisk: Bool = true,
                transport: (any RegistryTransport)? = nil, configuration: Configuration = .init(),
                logger: Logger = Logger(label: "sdui.repository")) {
        var disk: DiskCache?
        do {
            disk = try DiskCache(path: diskPath, durable: durableDisk)
        } catch {
            logger.warning("disk cache unavailable; going on with memory and network",
                           metadata: ["path": "\(diskPath)", "reason": "\(error)"])
        }
        self.init(pack: pack, memory: memory, disk: disk, transport: transport, configuration: configuration,
                  logger: logger)
    }

    /// Whether a disk cache is in use (false when none was given or it could
    /// not be opened).
    public nonisolated var hasDiskCache: Bool { disk != nil }

    /// Logs a failed disk operation: the first failure of each kind at error
    /// level, later ones at debug level, so a broken cache does not flood
    /// the log while memory and network carry on.
    func diskFailed(_ what: String, _ error: Error) {
        if diskFailuresLogged.insert(what).inserted {
            logger.error("disk cache \(what) failed; going on without it where needed",
                         metadata: ["error": "\(error)"])
        } else {
            logger.debug("disk cache \(what) failed", metadata: ["error": "\(error)"])
        }
    }

    // MARK: lookups

    /// One token.
    public func get(_ id: String) async -> TokenLookup {
        await get([id])[id] ?? .unavailable(SDUIError(.notFound, "no answer for \(id)"))
    }

    /// Many tokens; the answer has one entry per distinct id.
    public func get(_ ids: [String]) async -> [String: TokenLookup] {
        var out: [String: TokenLookup] = [:]
        var toDisk: [String] = []
        var stale: [String: (DesignToken, String)] = [:]
        let now = config.now()
        for id in Set(ids) {
            if let pack {
                do {
                    // One index lookup: token(_:) is nil for an id the pack lacks.
                    if let t = try pack.token(id) { out[id] = found(t, .pack); continue }
                } catch {
                    out[id] = .unavailable(error as? SDUIError ?? SDUIError(.unknown, "\(error)"))
                    continue
                }
            }
            if let t = memory.get(id) {
                if let m = meta[id], now >= m.expires {
                    stale[id] = (t, m.etag)
                } else {
                    out[id] = found(t, .memory)
                }
                continue
            }
            // Evicted from memory (or never there): its side entries go too,
            // so they stay bounded by the LRU; disk or network sets them again.
            meta[id] = nil
            toDisk.append(id)
        }
        var needed: [String] = []
        if let disk, !toDisk.isEmpty {
            // Rows become tokens inside the C core: one parse, no copy
            // through Swift.  A row that does not make a token of its own id
            // is not served: it is fetched again and the row replaced.
            let rows: [String: DiskCache.CachedToken]
            do {
                rows = try disk.tokens(toDisk, now: now, limits: config.limits)
            } catch {
                diskFailed("read", error)
                rows = [:]
            }
            for id in toDisk {
                guard let row = rows[id], let t = row.token else {
                    if rows[id] != nil { logger.warning("ignoring a bad disk cache row", metadata: ["id": "\(id)"]) }
                    needed.append(id)
                    continue
                }
                try? memory.put(t)
                meta[id] = (row.expiresAt, row.etag)
                if row.isStale(at: now) { stale[id] = (t, row.etag) } else { out[id] = found(t, .disk) }
            }
        } else {
            needed = toDisk
        }
        if needed.isEmpty && stale.isEmpty { return out }

        var batches: [String: Batch] = [:]
        for id in needed { batches[id] = enqueue(id, known: nil) }
        for (id, k) in stale { batches[id] = enqueue(id, known: k) }
        var answers: [ObjectIdentifier: [String: TokenLookup]] = [:]
        for (id, b) in batches {
            let key = ObjectIdentifier(b)
            if answers[key] == nil { answers[key] = await b.task!.value }
            out[id] = answers[key]![id] ?? .unavailable(SDUIError(.notFound, "no answer for \(id)"))
        }
        return out
    }

    /// The token now (when it can be found) and again each time a
    /// revalidation brings a new version (hot updates).
    /// The observer is registered before this returns, so no update after
    /// it is lost; the stream ends, and the registration goes, when the
    /// consumer's task is cancelled or the stream is dropped.
    public nonisolated func observe(_ id: String) -> AsyncStream<DesignToken> {
        let subscription = updates.subscribe(id)
        return AsyncStream { continuation in
            let forward = Task {
                if case .found(let t, _) = await self.get(id) { continuation.yield(t) }
                for await t in subscription { continuation.yield(t) }
                continuation.finish()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }

    /// Observers registered for `id` (for tests and diagnostics).
    package nonisolated func observerCount(_ id: String) -> Int { updates.subscriberCount(for: id) }

    /// Lookups answered from each source, and misses.
    public func hitCounts() -> (hits: [TokenSource: Int], misses: Int) { (metrics.hits, metrics.misses) }

    func lookupFailure(_ e: SDUIError) -> TokenLookup {
        metrics.missed(offline: e.category == .network)
        return e.category == .network ? .offline : .unavailable(e)
    }

    func found(_ t: DesignToken, _ source: TokenSource) -> TokenLookup {
        metrics.found(source)
        return .found(t, source)
    }

    /// Hands a new version of `id` to its observers.
    func notify(_ id: String, _ t: DesignToken) {
        updates.publish(t, to: id)
    }
}
