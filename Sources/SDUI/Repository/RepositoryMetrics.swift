// RepositoryMetrics.swift - the repository's hit and miss counts and the metrics made from them.
import Metrics

/// What a ``TokenRepository`` counts, kept in one place: lookups answered
/// by each ``TokenSource``, misses, and the swift-metrics handles that
/// report them:
///
/// - `sdui_token_lookups_total` (counter) with dimension `source` for a hit or a
///   network answer, `outcome` (`offline` or `unavailable`) for a miss;
/// - `sdui_token_cache_hit_ratio` (gauge): ``TokenSource/hitRatio(_:misses:)``
///   over everything counted so far, recorded after each lookup;
/// - `sdui_token_fetch_seconds` (timer): one registry request.
///
/// Handles are made once each (the dimension values are a few constants),
/// through the injected factory or else the process-wide `MetricsSystem`.
/// A value type owned by the repository actor, so it needs no lock.
struct RepositoryMetrics {
    private(set) var hits: [TokenSource: Int] = [:]
    private(set) var misses = 0
    private let factory: (any MetricsFactory)?
    private var counters: [String: [String: Counter]] = [:]
    private var ratio: Gauge?
    private var fetchTimer: Metrics.Timer?

    init(factory: (any MetricsFactory)?) {
        self.factory = factory
    }

    /// A lookup answered from `source`.
    mutating func found(_ source: TokenSource) {
        hits[source, default: 0] += 1
        counter("source", source.rawValue).increment()
        publishRatio()
    }

    /// A lookup that found nothing: `offline` when the registry could not
    /// be reached, else `unavailable`.
    mutating func missed(offline: Bool) {
        misses += 1
        counter("outcome", offline ? "offline" : "unavailable").increment()
        publishRatio()
    }

    /// One registry request took `duration`.
    mutating func fetched(in duration: Duration) {
        if fetchTimer == nil {
            fetchTimer = factory.map { Metrics.Timer(label: "sdui_token_fetch_seconds", factory: $0) }
                ?? Metrics.Timer(label: "sdui_token_fetch_seconds")
        }
        fetchTimer!.record(duration: duration)
    }

    /// Records the hit ratio (cache hits over all lookups).
    private mutating func publishRatio() {
        if ratio == nil {
            ratio = factory.map { Gauge(label: "sdui_token_cache_hit_ratio", factory: $0) } ?? Gauge(label: "sdui_token_cache_hit_ratio")
        }
        ratio!.record(TokenSource.hitRatio(hits, misses: misses))
    }

    /// The `sdui_token_lookups_total` counter for one dimension value, made once.
    private mutating func counter(_ dimension: String, _ value: String) -> Counter {
        if let c = counters[dimension]?[value] { return c }
        let dims = [(dimension, value)]
        let c = factory.map { Counter(label: "sdui_token_lookups_total", dimensions: dims, factory: $0) }
            ?? Counter(label: "sdui_token_lookups_total", dimensions: dims)
        counters[dimension, default: [:]][value] = c
        return c
    }
}
