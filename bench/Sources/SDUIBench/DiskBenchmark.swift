// DiskBenchmark.swift - the disk cache: batched vs one row at a time.
#if Server
import Foundation
import SDUI

/// Measures the disk cache on a real file: writing 50 tokens as one batch
/// (one transaction) against 50 single-row writes (50 transactions), and
/// reading 50 ids with one query against 50 single-id reads.  Durable mode
/// (an fsync per commit) as the repository uses it.
public struct DiskBenchmark {
    public enum Method: String, CaseIterable, Sendable {
        case batchWrite
        case rowWrites
        case batchRead
        case rowReads
        /// `TokenRepository.get(id)` answered from memory (50 calls).
        case warmGet
        /// `TokenRepository.get(ids)` for 50 ids answered from memory.
        case warmGetBatch
        /// `TokenRepository.get(ids)` for 50 ids with an empty memory cache:
        /// every token read from disk and made a token.
        case diskGetBatch
    }

    let directory: URL
    let durable: Bool

    public init(directory: URL, durable: Bool = true) {
        self.directory = directory
        self.durable = durable
    }

    /// 50 realistic entries; `round` makes ids distinct per round.
    func entries(round: Int) -> [DiskCache.Entry] {
        var rng = PackGenerator.RNG(state: UInt64(round) &+ 77)
        let gen = PackGenerator()
        let now = Date()
        return (0..<50).map { i in
            let id = "r\(round)-\(i)"
            let json = Data(gen.token(round * 50 + i, id: id, rng: &rng).utf8)
            return DiskCache.Entry(id: id, version: 1, primitiveVersion: 1,
                                   etag: "\"\(json.count)-\(i)\"", json: json, fetchedAt: now,
                                   expiresAt: now.addingTimeInterval(86_400))
        }
    }

    /// Median milliseconds of each method over `rounds` rounds.
    public func measure(rounds: Int) async throws -> [Method: Double] {
        let path = directory.appendingPathComponent("bench-\(getpid()).db").path
        defer {
            for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) }
        }
        let disk = try DiskCache(path: path, maxEntries: 1_000_000, maxBytes: 1 << 40, durable: durable)
        let clock = ContinuousClock()
        var samples: [Method: [Double]] = [:]
        func time(_ m: Method, _ body: () throws -> Void) rethrows {
            let d = try clock.measure(body)
            samples[m, default: []].append(d.milliseconds)
        }
        for round in 0..<rounds {
            let a = entries(round: round * 2), b = entries(round: round * 2 + 1)
            try time(.batchWrite) { try disk.put(a, now: Date()) }
            try time(.rowWrites) { for e in b { try disk.put([e], now: Date()) } }
            let ids = a.map(\.id)
            try time(.batchRead) {
                if try disk.get(ids, now: Date()).count != 50 { throw SDUIError(.sqlite, "short read") }
            }
            try time(.rowReads) {
                for id in ids where try disk.get([id], now: Date()).count != 1 {
                    throw SDUIError(.sqlite, "short read")
                }
            }
        }
        // The repository in front of the same cache, warm: every id in memory.
        let warm = entries(round: 1_000_000)
        try disk.put(warm, now: Date())
        let repo = TokenRepository(memory: try TokenCache(), disk: disk)
        let ids = warm.map(\.id)
        guard await repo.get(ids).values.allSatisfy({ $0.token != nil }) else {
            throw SDUIError(.sqlite, "warm-up did not find every token")
        }
        for _ in 0..<rounds {
            let d1 = await clock.measure { for id in ids { _ = await repo.get(id) } }
            samples[.warmGet, default: []].append(d1.milliseconds)
            let d2 = await clock.measure { _ = await repo.get(ids) }
            samples[.warmGetBatch, default: []].append(d2.milliseconds)
            // A new repository over the same file: memory empty, disk warm.
            let cold = TokenRepository(memory: try TokenCache(), disk: disk)
            var all = false
            let d3 = await clock.measure { all = await cold.get(ids).values.allSatisfy { $0.token != nil } }
            guard all else { throw SDUIError(.sqlite, "a disk read missed a token") }
            samples[.diskGetBatch, default: []].append(d3.milliseconds)
        }
        return samples.mapValues { FirstPaintBenchmark.median($0) }
    }
}
#endif
