// TokenCacheTests.swift - the LRU against a reference model, bounds, concurrency.
import Foundation
import SDUI
import SDUITestSupport
import Testing

/// The obvious LRU: an array, most recent first.
struct ReferenceLRU {
    var order: [(id: String, bytes: Int)] = []
    let maxEntries: Int, maxBytes: Int
    var hits: UInt64 = 0, misses: UInt64 = 0, evictions: UInt64 = 0
    var bytes: Int { order.reduce(0) { $0 + $1.bytes } }

    mutating func get(_ id: String) -> Bool {
        guard let i = order.firstIndex(where: { $0.id == id }) else { misses += 1; return false }
        order.insert(order.remove(at: i), at: 0)
        hits += 1
        return true
    }

    mutating func put(_ id: String, _ bytes: Int) {
        order.removeAll { $0.id == id }
        order.insert((id, bytes), at: 0)
        while order.count > maxEntries || self.bytes > maxBytes {
            order.removeLast()
            evictions += 1
        }
    }

    mutating func remove(_ id: String) -> Bool {
        let n = order.count
        order.removeAll { $0.id == id }
        return order.count != n
    }
}

@Suite struct TokenCacheTests {
    /// Tokens of varied sizes, ids k0…k(n-1), several sizes per id.
    static func tokens(ids: Int) throws -> [String: [DesignToken]] {
        var out: [String: [DesignToken]] = [:]
        for i in 0..<ids {
            out["k\(i)"] = try (0..<3).map { v in
                try DesignToken(json: Fixtures.token("k\(i)", version: v + 1,
                    props: #"{"text":"\#(String(repeating: "x", count: (i * 37 + v * 101) % 400))"}"#))
            }
        }
        return out
    }

    @Test func matchesAReferenceModelOverRandomOperations() throws {
        let pool = try Self.tokens(ids: 60)
        let cache = try TokenCache(maxEntries: 25, maxBytes: 6_000)
        var model = ReferenceLRU(maxEntries: 25, maxBytes: 6_000)
        var rng = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0...UInt64.max, using: &rng)
        func next(_ n: Int) -> Int {  // reproducible from the printed seed
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        let start = seed
        for step in 0..<20_000 {
            let id = "k\(next(60))"
            switch next(10) {
            case 0..<5:
                let got = cache.get(id)
                let want = model.get(id)
                #expect((got != nil) == want, "step \(step) seed \(start)")
                if let got { #expect(got.id == id) }
            case 5..<9:
                let t = pool[id]![next(3)]
                try cache.put(t)
                model.put(id, t.byteCount)
            default:
                #expect(cache.remove(id) == model.remove(id), "step \(step) seed \(start)")
            }
            if step % 97 == 0 || step == 19_999 {
                let s = cache.stats
                #expect(cache.idsByRecency == model.order.map(\.id), "step \(step) seed \(start)")
                #expect(s.entries == model.order.count && s.bytes == model.bytes)
                #expect(s.hits == model.hits && s.misses == model.misses && s.evictions == model.evictions)
                #expect(s.entries <= 25 && s.bytes <= 6_000)
            }
        }
    }

    @Test func countBoundEvictsLeastRecentlyUsed() throws {
        let cache = try TokenCache(maxEntries: 3, maxBytes: 1 << 20)
        for i in 0..<3 { try cache.put(DesignToken(json: Fixtures.token("c\(i)"))) }
        _ = cache.get("c0")                       // c0 is now most recent
        try cache.put(DesignToken(json: Fixtures.token("c3")))
        #expect(cache.idsByRecency == ["c3", "c0", "c2"])
        #expect(cache.stats.evictions == 1)
        #expect(cache.get("c1") == nil)
    }

    @Test func byteBoundEvictsUntilItFits() throws {
        let small = try DesignToken(json: Fixtures.token("s"))
        let cache = try TokenCache(maxEntries: 100, maxBytes: small.byteCount * 3)
        for i in 0..<3 { try cache.put(DesignToken(json: Fixtures.token("s\(i)").replacingOccurrences(of: "s\(i)", with: "s\(i % 10)"))) }
        let big = try DesignToken(json: Fixtures.token("b", props: #"{"text":"\#(String(repeating: "y", count: small.byteCount))"}"#))
        try cache.put(big)
        let s = cache.stats
        #expect(s.bytes <= s.maxBytes)
        #expect(cache.idsByRecency.first == "b")
        #expect(s.evictions >= 1)
    }

    @Test func aTokenLargerThanTheByteBoundIsRefused() throws {
        let cache = try TokenCache(maxEntries: 10, maxBytes: 100)
        try cache.put(DesignToken(json: #"{"id":"a","version":1,"primitive":"T","primitiveVersion":1,"props":{}}"#))
        let before = cache.idsByRecency
        expectError(.limit) { try cache.put(try DesignToken(json: Fixtures.token("huge", props: #"{"t":"\#(String(repeating: "z", count: 120))"}"#))) }
        #expect(cache.idsByRecency == before)
    }

    @Test func replacingAnIdKeepsOneEntry() throws {
        let cache = try TokenCache()
        try cache.put(DesignToken(json: Fixtures.token("r", version: 1)))
        try cache.put(DesignToken(json: Fixtures.token("r", version: 2)))
        #expect(cache.stats.entries == 1)
        #expect(cache.get("r")?.version == 2)
        #expect(cache.stats.maxEntries == 5_000)
    }

    @Test func hitRatio() throws {
        let cache = try TokenCache()
        #expect(cache.stats.hitRatio == 0)
        try cache.put(DesignToken(json: Fixtures.token("h")))
        _ = cache.get("h"); _ = cache.get("h"); _ = cache.get("h"); _ = cache.get("m")
        #expect(cache.stats.hitRatio == 0.75)
    }

    @Test func invalidBoundsAreAnArgumentError() {
        expectError(.argument) { _ = try TokenCache(maxEntries: 0) }
    }

    @Test func concurrentUseFromManyTasks() async throws {
        let pool = try Self.tokens(ids: 200)
        let cache = try TokenCache(maxEntries: 64, maxBytes: 16_000)
        let gets = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<32 {
                group.addTask {
                    var gets = 0
                    for i in 0..<3_000 {
                        let id = "k\((task * 7919 + i * 31) % 200)"
                        if i % 3 == 0 {
                            try cache.put(pool[id]![i % 3])
                        } else {
                            if let t = cache.get(id) { #expect(t.id == id) }
                            gets += 1
                        }
                        if i % 500 == 0 { cache.remove(id) }
                    }
                    return gets
                }
            }
            return try await group.reduce(0, +)
        }
        let s = cache.stats
        #expect(s.hits + s.misses == UInt64(gets))
        #expect(s.entries <= 64 && s.bytes <= 16_000)
        #expect(cache.idsByRecency.count == s.entries)
    }
}
