// DiskCache.swift - the on-disk token cache (SQLite, WAL).
import Foundation
internal import CSDUI
import SDUICore

/// Tokens persisted in one SQLite file in WAL mode, so every fetched token
/// survives restarts and crashes.
///
/// A batch is written in one transaction and many ids are read with one
/// query.  Rows carry their ETag and a TTL; stale rows are still returned
/// (for revalidation and stale-if-error) and ``refresh(_:fetchedAt:expiresAt:)``
/// renews a TTL after a 304 without rewriting the body.  The least recently
/// read rows are evicted to stay within the entry and byte bounds.  A damaged
/// file is moved aside and rebuilt (see ``recovered``); a file written by a
/// newer schema is refused and left alone.  See `include/sdui/disk.h`.
///
/// Times are passed in by the caller, so a test can drive the clock.
///
/// `@unchecked Sendable`: every call into the C cache takes its mutex, so
/// all access to the SQLite connection is serialized there.
public final class DiskCache: @unchecked Sendable {
    let handle: OpaquePointer
    /// The cache file.
    public let path: String

    /// One cached token.
    public struct Entry: Sendable, Equatable {
        /// The token's id, the row's key.
        public var id: String
        /// The token's version, as in its JSON.
        public var version: Int
        /// The version of the root primitive the token needs.
        public var primitiveVersion: Int
        /// The ETag as the server sent it (quotes included).
        public var etag: String
        /// The token's JSON text.
        public var json: Data
        /// When the token was fetched or last renewed (stored to the millisecond).
        public var fetchedAt: Date
        /// Fresh while the time is before this.
        public var expiresAt: Date
        /// When the row was last read, as stored before this read; ignored by
        /// ``DiskCache/put(_:now:)``, which sets it to `now`.
        public var lastAccess: Date

        /// An entry to write; `lastAccess` may be left out (a write sets it).
        public init(id: String, version: Int, primitiveVersion: Int, etag: String, json: Data,
                    fetchedAt: Date, expiresAt: Date, lastAccess: Date = .distantPast) {
            self.id = id
            self.version = version
            self.primitiveVersion = primitiveVersion
            self.etag = etag
            self.json = json
            self.fetchedAt = fetchedAt
            self.expiresAt = expiresAt
            self.lastAccess = lastAccess
        }

        /// Whether the entry is past its TTL at `now`.
        public func isStale(at now: Date) -> Bool { now >= expiresAt }
    }

    /// Sizes, bounds and evictions of the cached tokens (not of the screens).
    public struct Stats: Sendable, Equatable {
        /// Tokens cached.
        public var entries: Int
        /// Bytes of token JSON cached.
        public var bytes: Int
        /// The entry bound given at open.
        public var maxEntries: Int
        /// The byte bound given at open, in bytes of token JSON.
        public var maxBytes: Int
        /// Tokens evicted to the bounds since the cache was opened.
        public var evictions: UInt64
    }

    /// Opens or creates the cache file.  `durable` (the default) syncs each
    /// committed batch to disk; without it a batch survives a crash of the
    /// process but maybe not of the machine.
    public init(path: String, maxEntries: Int = TokenCache.defaultMaxEntries, maxBytes: Int = TokenCache.defaultMaxBytes,
                durable: Bool = true) throws {
        guard maxEntries > 0, maxBytes > 0 else {
            throw SDUIError(.argument, "cache bounds must be positive", input: path)
        }
        var opts = sdui_disk_options()
        sdui_disk_options_default(&opts)
        opts.max_entries = maxEntries
        opts.max_bytes = maxBytes
        opts.durable = durable ? 1 : 0
        var err = sdui_error()
        var out: OpaquePointer?
        try SDUIError.check(sdui_disk_open(path, &opts, &out, &err), err, input: path)
        handle = out!
        self.path = path
    }

    deinit { sdui_disk_free(handle) }

    /// Whether a damaged file was moved aside and a fresh cache started:
    /// found at open, or by a later call.  The call that meets damage fails
    /// once with `.sqlite` ("was damaged and was reset"); later calls work
    /// on the fresh, empty file.
    public var recovered: Bool { sdui_disk_recovered(handle) != 0 }

    /// The thread durable writes run on: a commit waits for fsync, which
    /// must not hold a thread of Swift's cooperative pool (two of them on a
    /// two-core phone).  Serial, like the C cache's own mutex.
    private static let writes = DispatchQueue(label: "sdui.disk-cache.writes", qos: .utility)

    /// One cached row read as a token (``tokens(_:now:limits:)``).
    public struct CachedToken: Sendable {
        /// The token; nil when the row is cached but unusable (its JSON does
        /// not make a token under the limits, or holds another id): fetch
        /// it again, and the write replaces the row.
        public var token: DesignToken?
        /// The ETag as the server sent it (quotes included).
        public var etag: String
        /// When the token was fetched or last renewed.
        public var fetchedAt: Date
        /// Fresh while the time is before this.
        public var expiresAt: Date

        /// Whether the row is past its TTL at `now`.
        public func isStale(at now: Date) -> Bool { now >= expiresAt }
    }

    /// The cached rows among `ids` as tokens, read with one query and made
    /// tokens inside the C core: each row's JSON goes from SQLite straight
    /// into the token's own storage, parsed once under `limits`, with no
    /// copy through Swift.  Each row is marked as read at `now`.
    public func tokens(_ ids: [String], now: Date, limits: PackLimits = .default) throws -> [String: CachedToken] {
        guard !ids.isEmpty else { return [:] }
        var err = sdui_error()
        var rows: OpaquePointer?
        var cl = limits.c
        let status = withCBytes(ids.map { Data($0.utf8) }) { ps, lens in
            sdui_disk_get_tokens(handle, ps, lens, ids.count, Self.ms(now), &cl, &rows, &err)
        }
        try SDUIError.check(status, err, input: path)
        defer { sdui_disk_tokens_free(rows) }
        var out: [String: CachedToken] = [:]
        for i in 0..<sdui_disk_tokens_count(rows) {
            let r = sdui_disk_tokens_at(rows, i)!.pointee
            let token = sdui_disk_tokens_take(rows, i).map { DesignToken(adopting: $0) }
            out[String(cBytes: r.id, count: r.id_len)] = CachedToken(
                token: token, etag: String(cBytes: r.etag, count: r.etag_len),
                fetchedAt: Self.date(r.fetched_at), expiresAt: Self.date(r.expires_at))
        }
        return out
    }

    /// Writes tokens with their ETags in one transaction, all or none; each
    /// row's id, versions and JSON are read by SQLite from the token's own
    /// bytes (no copy on the way).  Blocks until durable; from async code
    /// prefer ``write(tokens:fetchedAt:expiresAt:now:)``.
    public func put(tokens: [(token: DesignToken, etag: String)], fetchedAt: Date, expiresAt: Date, now: Date) throws {
        guard !tokens.isEmpty else { return }
        var err = sdui_error()
        // The DesignTokens keep their C tokens alive for the whole call.
        let status = withExtendedLifetime(tokens) {
            let handles: [OpaquePointer?] = tokens.map { $0.token.handle }
            return withCBytes(tokens.map { Data($0.etag.utf8) }) { etags, lens in
                handles.withUnsafeBufferPointer { hs in
                    sdui_disk_put_tokens(handle, hs.baseAddress, etags, lens, tokens.count,
                                         Self.ms(fetchedAt), Self.ms(expiresAt), Self.ms(now), &err)
                }
            }
        }
        try SDUIError.check(status, err, input: path)
    }

    /// ``put(tokens:fetchedAt:expiresAt:now:)`` on the write thread.
    public func write(tokens: [(token: DesignToken, etag: String)], fetchedAt: Date, expiresAt: Date,
                      now: Date) async throws {
        guard !tokens.isEmpty else { return }
        try await offPool { try self.put(tokens: tokens, fetchedAt: fetchedAt, expiresAt: expiresAt, now: now) }
    }

    /// The last good payload of a screen, kept for offline starts.
    public struct Screen: Sendable, Equatable {
        /// The id the payload is kept under, the row's key.  ``ScreenLoader`` also
        /// keeps a 409's fallback payload under the id first asked for, so it may
        /// differ from the payload's own id.
        public var id: String
        /// The `ETag` it came with (quotes included; empty when none was sent).
        public var etag: String
        /// The payload exactly as the registry sent it.
        public var payload: Data
        /// When the payload was fetched.
        public var fetchedAt: Date

        /// A screen to keep with ``putScreen(_:now:)``.
        public init(id: String, etag: String, payload: Data, fetchedAt: Date) {
            self.id = id
            self.etag = etag
            self.payload = payload
            self.fetchedAt = fetchedAt
        }
    }

    /// The cached payload of screen `id`, marked as read at `now`; nil
    /// when the screen is not cached.
    public func screen(_ id: String, now: Date) throws -> Screen? {
        var err = sdui_error()
        var out: UnsafeMutablePointer<sdui_disk_screen>?
        var key = id
        let status = key.withUTF8 { sdui_disk_get_screen(handle, $0.baseAddress, $0.count, Self.ms(now), &out, &err) }
        try SDUIError.check(status, err, input: path)
        guard let s = out?.pointee else { return nil }
        defer { sdui_disk_screen_free(out) }
        return Screen(id: id, etag: String(cBytes: s.etag, count: s.etag_len),
                      payload: Data(bytes: s.payload, count: s.payload_len), fetchedAt: Self.date(s.fetched_at))
    }

    /// Keeps `screen` as the last good payload of its id, replacing the one
    /// before, durably; the least recently read screens are evicted to the
    /// screen bounds.  A payload over the screen byte bound is a `.limit`
    /// error.  Blocks until durable: from async code prefer ``writeScreen(_:now:)``.
    public func putScreen(_ screen: Screen, now: Date) throws {
        var err = sdui_error()
        let status = withCBytes([Data(screen.id.utf8), Data(screen.etag.utf8), screen.payload]) { ps, lens in
            sdui_disk_put_screen(handle, ps[0], lens[0], ps[1], lens[1], ps[2], lens[2],
                                 Self.ms(screen.fetchedAt), Self.ms(now), &err)
        }
        try SDUIError.check(status, err, input: path)
    }

    /// ``putScreen(_:now:)`` on the write thread.
    public func writeScreen(_ screen: Screen, now: Date) async throws {
        try await offPool { try self.putScreen(screen, now: now) }
    }

    /// ``put(_:now:)`` on the write thread; the caller awaits it without
    /// holding a cooperative thread.
    public func write(_ entries: [Entry], now: Date) async throws {
        guard !entries.isEmpty else { return }
        try await offPool { try self.put(entries, now: now) }
    }

    /// ``refresh(_:fetchedAt:expiresAt:)`` on the write thread.
    @discardableResult
    public func renew(_ ids: [String], fetchedAt: Date, expiresAt: Date) async throws -> Int {
        try await offPool { try self.refresh(ids, fetchedAt: fetchedAt, expiresAt: expiresAt) }
    }

    /// Runs blocking `work` on the write thread and resumes with its result.
    private func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Self.writes.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Writes `entries` in one transaction: all of them or none.  Blocks
    /// until the commit is durable; from async code prefer ``write(_:now:)``.
    public func put(_ entries: [Entry], now: Date) throws {
        guard !entries.isEmpty else { return }
        var err = sdui_error()
        // Fields laid out as all ids, then all etags, then all bodies.
        let n = entries.count
        let parts = entries.map { Data($0.id.utf8) } + entries.map { Data($0.etag.utf8) } + entries.map(\.json)
        let status = withCBytes(parts) { ps, lens in
            let recs = entries.indices.map { i in
                sdui_disk_record(
                    id: ps[i], id_len: lens[i],
                    version: Int64(entries[i].version), primitive_version: Int64(entries[i].primitiveVersion),
                    etag: ps[n + i], etag_len: lens[n + i],
                    json: ps[2 * n + i], json_len: lens[2 * n + i],
                    fetched_at: Self.ms(entries[i].fetchedAt), expires_at: Self.ms(entries[i].expiresAt),
                    last_access: 0)
            }
            return sdui_disk_put(handle, recs, n, Self.ms(now), &err)
        }
        try SDUIError.check(status, err, input: path)
    }

    /// The cached entries among `ids` (stale ones included), read with one
    /// query; each is marked as read at `now`.
    public func get(_ ids: [String], now: Date) throws -> [String: Entry] {
        guard !ids.isEmpty else { return [:] }
        var err = sdui_error()
        var rows: OpaquePointer?
        let status = withCBytes(ids.map { Data($0.utf8) }) { ps, lens in
            sdui_disk_get(handle, ps, lens, ids.count, Self.ms(now), &rows, &err)
        }
        try SDUIError.check(status, err, input: path)
        defer { sdui_disk_rows_free(rows) }
        var out: [String: Entry] = [:]
        for i in 0..<sdui_disk_rows_count(rows) {
            let r = sdui_disk_rows_at(rows, i)!.pointee
            let e = Entry(
                id: String(cBytes: r.id, count: r.id_len), version: Int(r.version),
                primitiveVersion: Int(r.primitive_version), etag: String(cBytes: r.etag, count: r.etag_len),
                json: Data(bytes: r.json, count: r.json_len),
                fetchedAt: Self.date(r.fetched_at), expiresAt: Self.date(r.expires_at),
                lastAccess: Self.date(r.last_access))
            out[e.id] = e
        }
        return out
    }

    /// After a 304: renews the TTL of `ids` without touching their bodies.
    /// Returns how many were cached.
    @discardableResult
    public func refresh(_ ids: [String], fetchedAt: Date, expiresAt: Date) throws -> Int {
        try perID(ids) { ps, lens, n, out, err in
            sdui_disk_refresh(handle, ps, lens, n, Self.ms(fetchedAt), Self.ms(expiresAt), out, err)
        }
    }

    /// Removes `ids`; returns how many were cached.
    @discardableResult
    public func remove(_ ids: [String]) throws -> Int {
        try perID(ids) { ps, lens, n, out, err in sdui_disk_remove(handle, ps, lens, n, out, err) }
    }

    /// Sizes, bounds and evictions of the cached tokens, read with one query.
    /// Throws an `SDUIError` (`.sqlite`) when the file cannot be read.
    public func stats() throws -> Stats {
        var s = sdui_disk_stats()
        var err = sdui_error()
        try SDUIError.check(sdui_disk_get_stats(handle, &s, &err), err, input: path)
        return Stats(entries: s.entries, bytes: s.bytes, maxEntries: s.max_entries,
                     maxBytes: s.max_bytes, evictions: s.evictions)
    }

    // MARK: plumbing

    private typealias PerID = ([UnsafePointer<CChar>?], [Int], Int,
                               UnsafeMutablePointer<Int>, UnsafeMutablePointer<sdui_error>) -> sdui_status

    private func perID(_ ids: [String], _ call: PerID) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        var err = sdui_error()
        var count = 0
        let status = withCBytes(ids.map { Data($0.utf8) }) { ps, lens in
            call(ps, lens, ids.count, &count, &err)
        }
        try SDUIError.check(status, err, input: path)
        return count
    }

    static func ms(_ d: Date) -> Int64 {
        let v = (d.timeIntervalSince1970 * 1000).rounded()
        return v >= 9.2e18 ? .max : v <= -9.2e18 ? .min : Int64(v)
    }

    static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }
}
