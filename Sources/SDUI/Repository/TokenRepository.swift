// TokenRepository.swift - finds tokens: pack → memory → disk → network (seed 000 C-3).
import Foundation
import Logging
import Metrics
import SDUICore

/// Where a token was found.
public enum TokenSource: String, Sendable, CaseIterable {
    /// The core pack shipped with the app.
    case pack
    /// The in-memory LRU.
    case memory
    /// The disk cache, fresh.
    case disk
    /// The registry, with a new body (HTTP 200).
    case network
    /// A stale copy the registry confirmed unchanged (HTTP 304).
    case revalidated
    /// A stale copy served because the registry could not be asked (stale-if-error).
    case stale

    /// Whether a lookup answered from here counts as a cache hit (pack,
    /// memory, fresh disk): the one definition behind the hit ratio.
    public var isCacheHit: Bool { self == .pack || self == .memory || self == .disk }

    /// Cache hits over all lookups, from counts by source plus misses (0
    /// when there were none): the ratio `token_cache_hit_ratio` reports.
    public static func hitRatio(_ counts: [TokenSource: Int], misses: Int = 0) -> Double {
        let all = counts.values.reduce(0, +) + misses
        guard all > 0 else { return 0 }
        return Double(counts.filter { $0.key.isCacheHit }.values.reduce(0, +)) / Double(all)
    }
}

/// The outcome of looking a token up.
public enum TokenLookup: Sendable {
    /// The token, and where it came from.
    case found(DesignToken, TokenSource)
    /// Not cached and the registry cannot be reached: render a skeleton
    /// (seed 000 C-5, §11).
    case offline
    /// Any other failure (unknown id, bad answer, bad signature…): render a
    /// placeholder.
    case unavailable(SDUIError)

    /// The token, when found.
    public var token: DesignToken? {
        if case .found(let t, _) = self { return t }
        return nil
    }
}

/// Finds design tokens in the order of seed 000's flowchart:
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
/// Telemetry: `token_cache_hit_ratio` (gauge), `token_lookups` (counter by
/// `source`, plus `outcome` for misses) and `token_fetch_seconds` (timer)
/// through swift-metrics; events through swift-log.
public actor TokenRepository {
    public struct Configuration: Sendable {
        /// Most ids in one request (seed §5.2: 50).
        public var batchSize = 50
        /// How long a batch waits for more misses before it is sent
        /// (a full batch goes at once).
        public var coalescingWindow: Duration = .milliseconds(2)
        /// TTL when the registry sends no `max-age` (seed S-4: one day).
        public var defaultTTL: TimeInterval = 86_400
        public var limits: PackLimits = .default
        /// When set, every fetched token must be a JWS it accepts.
        public var verifier: TokenVerifier?
        /// When set, fetched tokens with image URLs off the CDN are refused.
        public var imagePolicy: ImageURLPolicy?
        /// The clock (injected by tests).
        public var now: @Sendable () -> Date = { Date() }
        /// Where metrics go; nil for the process-wide `MetricsSystem`.
        public var metricsFactory: (any MetricsFactory)?

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
    private var meta: [String: (expires: Date, etag: String)] = [:]
    /// The open batches (one for misses, one for revalidations) and every
    /// id in flight, mapped to the batch that fetches it.
    private var openMiss: Batch?
    private var openRevalidation: Batch?
    private var inFlight: [String: Batch] = [:]
    /// Hot updates by id (``observe(_:)``).
    private nonisolated let updates = Broadcast<String, DesignToken>()
    private var hits: [TokenSource: Int] = [:]
    private var misses = 0
    /// Requests sent so far (for tests and the demo).
    public private(set) var requestCount = 0

    /// A batch being gathered or fetched.
    ///
    /// `@unchecked Sendable`: created, read and changed only on the
    /// repository actor; tasks hold it only to hand it back to the actor.
    final class Batch: @unchecked Sendable {
        var ids: [String] = []
        var known: [String: (DesignToken, String)] = [:]
        var task: Task<[String: TokenLookup], Never>?
        /// Set once the batch may go: its window ended or it is full.
        var fired = false
        var waiting: CheckedContinuation<Void, Never>?
        let revalidation: Bool
        init(revalidation: Bool) { self.revalidation = revalidation }
    }

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
    private func diskFailed(_ what: String, _ error: Error) {
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
    public func hitCounts() -> (hits: [TokenSource: Int], misses: Int) { (hits, misses) }

    // MARK: batching

    /// Adds id to an open batch (or joins the batch already fetching it).
    private func enqueue(_ id: String, known: (DesignToken, String)?) -> Batch {
        if let b = inFlight[id] { return b }
        let revalidation = known != nil
        var batch = revalidation ? openRevalidation : openMiss
        if batch == nil {
            let b = Batch(revalidation: revalidation)
            b.task = Task { await self.run(b) }
            let window = config.coalescingWindow
            Task {
                try? await Task.sleep(for: window)
                self.fire(b)
            }
            batch = b
            if revalidation { openRevalidation = b } else { openMiss = b }
        }
        let b = batch!
        b.ids.append(id)
        if let known { b.known[id] = known }
        inFlight[id] = b
        if b.ids.count >= config.batchSize { fire(b) }  // full: send at once
        return b
    }

    /// Closes the batch to new ids and lets its fetch start.
    private func fire(_ b: Batch) {
        if openMiss === b { openMiss = nil }
        if openRevalidation === b { openRevalidation = nil }
        guard !b.fired else { return }
        b.fired = true
        b.waiting?.resume()
        b.waiting = nil
    }

    /// Waits until the batch fires, then fetches it.  (Not woken by
    /// cancellation, which would also cancel the request.)
    private func run(_ b: Batch) async -> [String: TokenLookup] {
        if !b.fired {
            await withCheckedContinuation { c in b.waiting = c }
        }
        let result = await fetch(b)
        for id in b.ids where inFlight[id] === b { inFlight[id] = nil }
        return result
    }

    /// One request for the batch, and what each id comes to.
    private func fetch(_ b: Batch) async -> [String: TokenLookup] {
        let ids = b.ids
        guard let transport else { return fallback(b, error: SDUIError(.network, "no registry configured")) }
        let request = TokenFetchRequest(
            ids: ids, ifNoneMatch: b.revalidation ? ETag.batch(ids.map { b.known[$0]!.1 }) : nil)
        requestCount += 1
        let started = ContinuousClock.now
        let response: TokenFetchResponse
        do {
            response = try await transport.fetch(request)
        } catch {
            let e = error as? SDUIError ?? SDUIError(.network, "\(error)")
            logger.warning("token fetch failed", metadata: ["ids": "\(ids.count)", "error": "\(e)"])
            return fallback(b, error: e)
        }
        timer("token_fetch_seconds").record(duration: ContinuousClock.now - started)
        let now = config.now()
        switch response {
        case .notModified(let maxAge):
            let until = now.addingTimeInterval(maxAge ?? config.defaultTTL)
            do { try await disk?.renew(ids, fetchedAt: now, expiresAt: until) } catch {
                diskFailed("refresh", error)
            }
            var out: [String: TokenLookup] = [:]
            for id in ids {
                guard let (t, _) = b.known[id] else {
                    out[id] = .unavailable(SDUIError(.http, "304 for a token the client does not hold"))
                    continue
                }
                meta[id]?.expires = until
                try? memory.put(t)
                out[id] = found(t, .revalidated)
            }
            return out
        case .tokens(let elements, let maxAge, let refused):
            for e in refused { logger.warning("refused a fetched token", metadata: ["error": "\(e)"]) }
            return await store(elements, refused: refused, for: b, now: now, ttl: maxAge ?? config.defaultTTL)
        }
    }

    /// Verifies, checks and persists a 200 answer, then hands tokens out.
    private func store(_ elements: [Data], refused: [SDUIError], for b: Batch, now: Date,
                       ttl: TimeInterval) async -> [String: TokenLookup] {
        let wanted = Set(b.ids)
        var tokens: [String: DesignToken] = [:]
        var failures: [SDUIError] = refused
        let policy = TokenPolicy(limits: config.limits, imagePolicy: config.imagePolicy)
        for element in elements {
            do {
                let json: Data
                if let verifier = config.verifier {
                    guard element.first != UInt8(ascii: "{") else {
                        throw SDUIError(.signature, "unsigned token in the answer, but a signature is required")
                    }
                    json = try verifier.verify(compact: element, source: "registry")
                } else {
                    guard element.first == UInt8(ascii: "{") else {
                        throw SDUIError(.signature, "signed token in the answer, but no verifier is configured")
                    }
                    json = element
                }
                let t = try policy.admit(json, source: "registry").mapError(\.error).get()
                if wanted.contains(t.id) { tokens[t.id] = t }
            } catch let e as SDUIError {
                failures.append(e)
                logger.warning("refused a fetched token", metadata: ["error": "\(e)"])
            } catch {
                failures.append(SDUIError(.unknown, "\(error)"))
            }
        }
        let until = now.addingTimeInterval(ttl)
        // Each token was parsed and checked once, into its own storage (the
        // one copy from the answer); its ETag is hashed there, and SQLite
        // reads it there (the second copy, into the file).
        let rows = tokens.values.map { (token: $0, etag: ETag.of(token: $0)) }
        // Durable before it is handed out; the commit's fsync runs off the
        // cooperative pool while this actor waits.
        do { try await disk?.write(tokens: rows, fetchedAt: now, expiresAt: until, now: now) } catch {
            // Shown anyway: refusing a verified token helps nobody.
            diskFailed("write", error)
        }
        var out: [String: TokenLookup] = [:]
        for (t, etag) in rows {
            let changed = meta[t.id].map { $0.etag != etag } ?? false
            try? memory.put(t)
            meta[t.id] = (until, etag)
            if changed { notify(t.id, t) }
            out[t.id] = found(t, .network)
        }
        for id in b.ids where out[id] == nil {
            if let (t, _) = b.known[id] { out[id] = found(t, .stale); continue }
            let reason = failures.first ?? SDUIError(.notFound, "the registry has no token \"\(id)\"")
            out[id] = lookupFailure(reason)
        }
        return out
    }

    /// Every id of a failed batch: its stale copy, else offline or unavailable.
    private func fallback(_ b: Batch, error: SDUIError) -> [String: TokenLookup] {
        var out: [String: TokenLookup] = [:]
        for id in b.ids {
            if let (t, _) = b.known[id] { out[id] = found(t, .stale) } else { out[id] = lookupFailure(error) }
        }
        return out
    }

    private func lookupFailure(_ e: SDUIError) -> TokenLookup {
        misses += 1
        let outcome = e.category == .network ? "offline" : "unavailable"
        lookupCounter("outcome", outcome).increment()
        publishRatio()
        return e.category == .network ? .offline : .unavailable(e)
    }

    private func found(_ t: DesignToken, _ source: TokenSource) -> TokenLookup {
        hits[source, default: 0] += 1
        lookupCounter("source", source.rawValue).increment()
        publishRatio()
        return .found(t, source)
    }

    /// Cache hits (pack, memory, disk) over all lookups.
    private func publishRatio() {
        guard misses > 0 || !hits.isEmpty else { return }
        if ratioGauge == nil {
            ratioGauge = config.metricsFactory.map { Gauge(label: "token_cache_hit_ratio", factory: $0) }
                ?? Gauge(label: "token_cache_hit_ratio")
        }
        ratioGauge!.record(TokenSource.hitRatio(hits, misses: misses))
    }

    /// Metric handles, made once each and reused: `token_lookups` by
    /// dimension (`source` or `outcome`) and value.  The values are a few
    /// constants, so a lookup builds no key.
    private var lookupCounters: [String: [String: Counter]] = [:]
    private var ratioGauge: Gauge?

    private func lookupCounter(_ dimension: String, _ value: String) -> Counter {
        if let c = lookupCounters[dimension]?[value] { return c }
        let dims = [(dimension, value)]
        let c = config.metricsFactory.map { Counter(label: "token_lookups", dimensions: dims, factory: $0) }
            ?? Counter(label: "token_lookups", dimensions: dims)
        lookupCounters[dimension, default: [:]][value] = c
        return c
    }

    private func timer(_ label: String) -> Metrics.Timer {
        if let f = config.metricsFactory { return Metrics.Timer(label: label, factory: f) }
        return Metrics.Timer(label: label)
    }

    /// Hands a new version of `id` to its observers.
    private func notify(_ id: String, _ t: DesignToken) {
        updates.publish(t, to: id)
    }
}
