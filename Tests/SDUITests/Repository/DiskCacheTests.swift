// DiskCacheTests.swift - the SQLite token cache from Swift, on real files.
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct DiskCacheTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func entry(_ id: String, version: Int = 1, ttl: TimeInterval = 60, at: Date) -> DiskCache.Entry {
        let json = Data(Fixtures.token(id, version: version).utf8)
        return DiskCache.Entry(id: id, version: version, primitiveVersion: 1,
                               etag: "\"\(Fixtures.crc32(json))\"", json: json,
                               fetchedAt: at, expiresAt: at.addingTimeInterval(ttl))
    }

    @Test func batchesRoundTripAndSurviveReopening() throws {
        let path = Fixtures.temporaryDirectory().appendingPathComponent("tokens.db").path
        let batch = (0..<50).map { entry("t\($0)", version: $0 + 1, at: t0) }
        do {
            let disk = try DiskCache(path: path)
            #expect(!disk.recovered)
            try disk.put(batch, now: t0)
        }
        let disk = try DiskCache(path: path)
        let got = try disk.get(batch.map(\.id) + ["missing", "t0"], now: t0)
        #expect(got.count == 50)
        for e in batch {
            let g = try #require(got[e.id])
            #expect(g.json == e.json && g.etag == e.etag && g.version == e.version)
            #expect(g.fetchedAt == e.fetchedAt && g.expiresAt == e.expiresAt)
        }
        #expect(try disk.stats().entries == 50)
    }

    @Test func ttlWithAnInjectedClockAndRefreshAfter304() throws {
        let disk = try DiskCache(path: Fixtures.temporaryDirectory().appendingPathComponent("ttl.db").path)
        try disk.put([entry("a", ttl: 60, at: t0)], now: t0)
        let later = t0.addingTimeInterval(61)
        let stale = try #require(try disk.get(["a"], now: later)["a"])
        #expect(stale.isStale(at: later))
        #expect(!stale.isStale(at: t0.addingTimeInterval(59)))
        #expect(try disk.refresh(["a", "b"], fetchedAt: later, expiresAt: later.addingTimeInterval(86_400)) == 1)
        let fresh = try #require(try disk.get(["a"], now: later)["a"])
        #expect(!fresh.isStale(at: later))
        #expect(fresh.json == stale.json)  // a 304 keeps the body
    }

    @Test func evictsLeastRecentlyRead() throws {
        let disk = try DiskCache(path: Fixtures.temporaryDirectory().appendingPathComponent("e.db").path,
                                 maxEntries: 5, durable: false)
        for i in 0..<5 { try disk.put([entry("e\(i)", at: t0)], now: t0.addingTimeInterval(Double(i))) }
        _ = try disk.get(["e0"], now: t0.addingTimeInterval(10))
        try disk.put([entry("f", at: t0)], now: t0.addingTimeInterval(11))
        let left = try disk.get((0..<5).map { "e\($0)" } + ["f"], now: t0.addingTimeInterval(12))
        #expect(Set(left.keys) == ["e0", "e2", "e3", "e4", "f"])
        #expect(try disk.stats().evictions == 1)
        #expect(try disk.remove(["e0", "zz"]) == 1)
    }

    /// A cache file of ours whose pages were overwritten is moved aside and
    /// a fresh one made.
    @Test func aDamagedFileIsMovedAsideAndRebuilt() throws {
        let dir = Fixtures.temporaryDirectory()
        let path = dir.appendingPathComponent("bad.db").path
        do {
            let disk = try DiskCache(path: path)
            for round in 0..<10 {
                try disk.put((0..<20).map { entry("t\(round)-\($0)", at: t0) }, now: t0)
            }
        }  // released: the WAL is checkpointed into the file
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        #expect(try file.seekToEnd() > 8192)
        try file.seek(toOffset: 4096)
        try file.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try file.close()
        let disk = try DiskCache(path: path)
        #expect(disk.recovered)
        try disk.put([entry("ok", at: t0)], now: t0)
        #expect(try disk.get(["ok"], now: t0).count == 1)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names.contains { $0.hasPrefix("bad.db.corrupt-") })
    }

    /// A file that is not a cache of ours (here not SQLite at all) is
    /// refused with an error naming it, and left byte for byte.
    @Test func aFileNotOursIsRefusedAndLeftAsItIs() throws {
        let dir = Fixtures.temporaryDirectory()
        let path = dir.appendingPathComponent("other.db").path
        let bytes = Data(repeating: 0x5A, count: 8192)
        try bytes.write(to: URL(fileURLWithPath: path))
        let e = expectError(.sqlite) { _ = try DiskCache(path: path) }
        #expect(e?.input == path)
        #expect(e?.message.contains("not a SQLite database") == true, "\(String(describing: e))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["other.db"])
    }

    @Test func badPathsAreClearErrors() {
        let dir = Fixtures.temporaryDirectory().path
        let e = expectError(.sqlite) { _ = try DiskCache(path: dir) }
        #expect(e?.input == dir)
        expectError(.argument) { _ = try DiskCache(path: dir + "/x.db", maxEntries: 0) }
    }

    /// The async write and renew run the blocking commit on the write
    /// thread, not the caller's: a commit from many tasks at once completes,
    /// and what was written reads back.
    @Test func asyncWritesAndRenewalsLand() async throws {
        let path = Fixtures.temporaryDirectory().appendingPathComponent("async.db").path
        let disk = try DiskCache(path: path)
        let t0 = Date(timeIntervalSince1970: 1_000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<20 {
                group.addTask { try await disk.write([entry("a\(i)", at: t0)], now: t0) }
            }
            try await group.waitForAll()
        }
        #expect(try disk.get((0..<20).map { "a\($0)" }, now: t0).count == 20)
        let later = t0.addingTimeInterval(3_600)
        #expect(try await disk.renew(["a0", "a1", "missing"], fetchedAt: later, expiresAt: later.addingTimeInterval(60)) == 2)
        #expect(try disk.get(["a0"], now: later)["a0"]?.isStale(at: later) == false)
    }

    @Test func rowsComeBackAsTokensMadeInTheCore() async throws {
        let path = Fixtures.temporaryDirectory().appendingPathComponent("tokens.db").path
        let disk = try DiskCache(path: path)
        let tokens = try (0..<3).map { try DesignToken(json: Fixtures.token("t\($0)", version: $0 + 1)) }
        try await disk.write(tokens: tokens.map { ($0, ETag.of(token: $0)) }, fetchedAt: t0,
                             expiresAt: t0.addingTimeInterval(60), now: t0)
        // A row whose JSON holds another id, and one that is not a token.
        try disk.put([DiskCache.Entry(id: "liar", version: 1, primitiveVersion: 1, etag: "\"x\"",
                                      json: Data(Fixtures.token("someone_else").utf8), fetchedAt: t0, expiresAt: t0),
                      DiskCache.Entry(id: "junk", version: 1, primitiveVersion: 1, etag: "\"y\"",
                                      json: Data("[1,2".utf8), fetchedAt: t0, expiresAt: t0)], now: t0)
        let later = t0.addingTimeInterval(120)
        let rows = try disk.tokens(["t0", "t1", "t2", "liar", "junk", "absent"], now: later)
        #expect(Set(rows.keys) == ["t0", "t1", "t2", "liar", "junk"])
        for (i, t) in tokens.enumerated() {
            let row = try #require(rows["t\(i)"])
            #expect(row.token?.json == t.json && row.token?.version == i + 1)
            #expect(row.etag == ETag.of(json: t.json) && row.isStale(at: later) && !row.isStale(at: t0))
        }
        #expect(rows["liar"]?.token == nil && rows["junk"]?.token == nil)
        // The same rows read as entries hold the same bytes.
        #expect(try disk.get(["t1"], now: later)["t1"]?.json == tokens[1].json)
        // A token over the limits is a bad row, not an error.
        var small = PackLimits.default
        small.maxTokenBytes = 10
        #expect(try disk.tokens(["t0"], now: later, limits: small)["t0"]?.token == nil)
    }
}
