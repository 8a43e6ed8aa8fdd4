// TokenSource.swift - where a token was found, and the one definition of a cache hit.

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
    /// when there were none): the ratio `sdui_token_cache_hit_ratio` reports.
    public static func hitRatio(_ counts: [TokenSource: Int], misses: Int = 0) -> Double {
        let all = counts.values.reduce(0, +) + misses
        guard all > 0 else { return 0 }
        return Double(counts.filter { $0.key.isCacheHit }.values.reduce(0, +)) / Double(all)
    }
}
