// TokenRepositoryTests.swift - the lookup order, observers, telemetry and the
// disk tier, against a real HTTP registry on 127.0.0.1 and a real SQLite file.
import Foundation
import Logging
import MetricsTestKit
import SDUI
import SDUITestSupport
import Testing
import SDUIRegistryKit

@Suite(.serialized) struct TokenRepositoryTests: TokenRepositoryFixtures {
    @Test func lookupOrderPackMemoryDiskNetwork() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["net"]))
        defer { Task { await registry.stop() } }
        let pack = try CorePack(data: Fixtures.pack(tokens: [Fixtures.token("packed")]))
        let path = Fixtures.temporaryDirectory().appendingPathComponent("order.db").path
        let (repo, _) = try Self.repository(registry, pack: pack, disk: path)

        #expect(source(await repo.get("packed")) == .pack)
        #expect(registry.requests.isEmpty)
        #expect(source(await repo.get("net")) == .network)
        #expect(registry.requests.count == 1)
        let r = try #require(registry.requests.first)
        #expect(r.ids == ["net"] && r.ifNoneMatch == nil)
        #expect(r.authorization == "Bearer secret-token" && r.primitives == "Column@3,Text@4")
        #expect(source(await repo.get("net")) == .memory)

        // A new repository on the same file: the fetched token was persisted.
        let (second, _) = try Self.repository(registry, disk: path)
        #expect(source(await second.get("net")) == .disk)
        #expect(registry.requests.count == 1)
        let counts = await second.hitCounts()
        #expect(counts.hits[.disk] == 1 && counts.misses == 0)
    }

    @Test func a200ReplacesBodyAndETagAndObserversSeeIt() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["hot"]))
        defer { Task { await registry.stop() } }
        registry.setMaxAge(10)
        let clock = ManualClock()
        let (repo, disk) = try Self.repository(registry, clock: clock)
        var updates = repo.observe("hot").makeAsyncIterator()
        #expect(await updates.next()?.version == 1)

        let v2 = Data(Fixtures.token("hot", version: 2).utf8)
        registry.publish(v2, id: "hot")
        clock.advance(11)
        let got = await repo.get("hot")
        #expect(source(got) == .network && got.token?.version == 2)
        #expect(await updates.next()?.version == 2)
        let row = try #require(try disk.get(["hot"], now: clock.now)["hot"])
        #expect(row.json == v2 && row.etag == ETag.of(json: v2))
        #expect(row.expiresAt == clock.now.addingTimeInterval(10))  // Cache-Control: max-age
    }

    /// Observers are registered before `observe` returns and gone when
    /// their consumer is cancelled or never iterates: no dead observer,
    /// even with 1,000 of them.
    @Test func observersComeAndGoWithTheirConsumers() async throws {
        let (repo, _) = try Self.repository(nil)
        var streams = (0..<1000).map { _ in repo.observe("x") }
        #expect(repo.observerCount("x") == 1000)
        streams.removeAll()   // dropped without being iterated
        for _ in 0..<200 where repo.observerCount("x") > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(repo.observerCount("x") == 0)
        // A consumer cancelled before it ever iterates.
        let early = Task { for await _ in repo.observe("y") {} }
        early.cancel()
        await early.value
        for _ in 0..<200 where repo.observerCount("y") > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(repo.observerCount("y") == 0)
        _ = streams
    }

    @Test func telemetryCountsHitsBySourceAndTheHitRatio() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["n1", "n2"]))
        defer { Task { await registry.stop() } }
        let metrics = TestMetrics()
        let pack = try CorePack(data: Fixtures.pack(tokens: [Fixtures.token("p1")]))
        let (repo, _) = try Self.repository(registry, pack: pack, metrics: metrics)
        _ = await repo.get("p1")             // pack
        _ = await repo.get(["n1", "n2"])     // network ×2
        _ = await repo.get("n1")             // memory
        _ = await repo.get("gone")           // unavailable
        func count(_ dims: [(String, String)]) throws -> Int64 {
            try metrics.expectCounter("sdui_token_lookups_total", dims).totalValue
        }
        #expect(try count([("source", "pack")]) == 1)
        #expect(try count([("source", "network")]) == 2)
        #expect(try count([("source", "memory")]) == 1)
        #expect(try count([("outcome", "unavailable")]) == 1)
        // Cache hits (pack, memory, disk) over all lookups: 2 of 5.
        #expect(try metrics.expectGauge("sdui_token_cache_hit_ratio").lastValue == 0.4)
        #expect(try metrics.expectTimer("sdui_token_fetch_seconds").values.count == 2)
    }

    @Test func aDiskRowHoldingAnotherIdsTokenIsRefetched() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["x"]))
        defer { Task { await registry.stop() } }
        let clock = ManualClock()
        let (repo, disk) = try Self.repository(registry, clock: clock)
        let wrong = Data(Fixtures.token("y").utf8)
        try disk.put([DiskCache.Entry(id: "x", version: 1, primitiveVersion: 1, etag: ETag.of(json: wrong),
                                      json: wrong, fetchedAt: clock.now,
                                      expiresAt: clock.now.addingTimeInterval(60))], now: clock.now)
        let got = await repo.get("x")
        #expect(source(got) == .network && got.token?.id == "x")
        #expect(try disk.get(["x"], now: clock.now)["x"]?.json == Data(Fixtures.token("x").utf8))
    }

    /// The disk cache is only a cache: a path that cannot hold one (a
    /// directory, a FIFO, a dangling link) leaves the repository working on
    /// memory and network, with the real cause logged once.
    @Test func anUnusableDiskPathFallsBackToMemoryAndNetwork() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["net"]))
        defer { Task { await registry.stop() } }
        let dir = Fixtures.temporaryDirectory()
        let fifo = dir.appendingPathComponent("fifo.db").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let dangling = dir.appendingPathComponent("dangling.db").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: dir.path + "/gone/x.db")
        for (path, cause) in [(dir.path, "directory"), (fifo, "FIFO"), (dangling, "dangling symbolic link")] {
            let log = LogCapture()
            let repo = TokenRepository(memory: try TokenCache(), diskPath: path,
                                       transport: HTTPRegistryTransport(baseURL: registry.baseURL, timeout: 30),
                                       logger: Logger(label: "test") { _ in log })
            #expect(!repo.hasDiskCache, "\(path)")
            #expect(source(await repo.get("net")) == .network)
            #expect(source(await repo.get("net")) == .memory)
            let lines = log.lines
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains("disk cache unavailable") == true)
            #expect(lines.first?.contains(cause) == true, "\(lines)")
        }
    }
}

/// A log handler that keeps every line, for tests that read what was logged.
final class LogCapture: LogHandler, @unchecked Sendable {
    // Guarded by `lock`: log calls may come from any thread.
    private let lock = NSLock()
    private var kept: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    var lines: [String] { lock.withLock { kept } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        let meta = (metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lock.withLock { kept.append("\(level): \(message) \(meta)") }
    }
}
