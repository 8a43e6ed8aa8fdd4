// TokenCache.swift - the in-memory LRU of tokens.
internal import CSDUI
import SDUICore

/// A thread-safe least-recently-used cache of tokens keyed by id, bounded by
/// entry count (default 5,000) and by bytes of token JSON, whichever is
/// reached first.  It counts hits, misses and evictions.
///
/// `@unchecked Sendable`: every call into the C cache takes its mutex, so all
/// access is serialized there.
public final class TokenCache: @unchecked Sendable {
    let handle: OpaquePointer

    /// Counters and sizes at one instant.
    public struct Stats: Sendable, Equatable {
        /// Tokens cached.
        public var entries: Int
        /// Bytes of token JSON cached.
        public var bytes: Int
        /// The entry bound.
        public var maxEntries: Int
        /// The byte bound, in bytes of token JSON.
        public var maxBytes: Int
        /// Lookups that found their token, since the cache was made.
        public var hits: UInt64
        /// Lookups that did not, since the cache was made.
        public var misses: UInt64
        /// Tokens evicted to the bounds, since the cache was made.
        public var evictions: UInt64

        /// hits / (hits + misses), or 0 before the first lookup.
        public var hitRatio: Double {
            hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses)
        }
    }

    /// The default entry bound: 5,000 tokens.
    public static let defaultMaxEntries = 5_000
    /// The default byte bound: 32 MiB of token JSON.
    public static let defaultMaxBytes = 32 << 20

    /// An empty cache with the given bounds.  Throws an `SDUIError` (`.argument`)
    /// when either bound is not positive.
    public init(maxEntries: Int = TokenCache.defaultMaxEntries,
                maxBytes: Int = TokenCache.defaultMaxBytes) throws {
        guard maxEntries > 0, maxBytes > 0 else {
            throw SDUIError(.argument, "cache bounds must be positive (maxEntries \(maxEntries), maxBytes \(maxBytes))")
        }
        var err = sdui_error()
        var out: OpaquePointer?
        try SDUIError.check(sdui_cache_new(maxEntries, maxBytes, &out, &err), err, input: nil)
        handle = out!
    }

    deinit { sdui_cache_free(handle) }

    /// The token cached under `id`, marking it most recently used; counts a hit or a miss.
    public func get(_ id: String) -> DesignToken? {
        var id = id
        let p = id.withUTF8 { sdui_cache_get(handle, $0.baseAddress, $0.count) }
        return p.map { DesignToken(adopting: $0) }
    }

    /// Stores `token` as most recently used, replacing a token with the same
    /// id and evicting the least recently used to stay within both bounds.
    /// Throws a limit error when the token alone exceeds the byte bound.
    public func put(_ token: DesignToken) throws {
        var err = sdui_error()
        try SDUIError.check(sdui_cache_put(handle, token.handle, &err), err, input: token.id)
    }

    /// Removes `id`; returns whether it was cached.
    @discardableResult
    public func remove(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { sdui_cache_remove(handle, $0.baseAddress, $0.count) } != 0
    }

    /// Removes every entry; the counters are kept.
    public func removeAll() { sdui_cache_clear(handle) }

    /// Counters and sizes now.  Does not count as use.
    public var stats: Stats {
        var s = sdui_cache_stats()
        sdui_cache_get_stats(handle, &s)
        return Stats(entries: s.entries, bytes: s.bytes, maxEntries: s.max_entries,
                     maxBytes: s.max_bytes, hits: s.hits, misses: s.misses,
                     evictions: s.evictions)
    }

    /// Cached ids, most recently used first.  Does not count as use.
    public var idsByRecency: [String] {
        var cap = max(16, stats.entries)
        while true {
            var buf = [OpaquePointer?](repeating: nil, count: cap)
            let n = sdui_cache_snapshot(handle, &buf, cap)
            let tokens = buf.prefix(min(n, cap)).map { DesignToken(adopting: $0!) }
            if n <= cap { return tokens.map(\.id) }
            cap = n
        }
    }
}
