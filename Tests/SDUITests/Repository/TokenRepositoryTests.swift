// TokenRepositoryTests.swift - every branch of the lookup flowchart, against
// a real HTTP registry on 127.0.0.1 and a real SQLite file.
import Foundation
import Logging
import MetricsTestKit
import SDUI
import SDUITestSupport
import Testing
import SDUIRegistryKit

@Suite(.serialized) struct TokenRepositoryTests {
    /// A repository wired to a fresh disk file and the given registry.
    static func repository(_ registry: LoopbackRegistry?, pack: CorePack? = nil, disk path: String? = nil,
                           clock: ManualClock = ManualClock(), window: Duration = .milliseconds(5),
                           verifier: TokenVerifier? = nil, policy: ImageURLPolicy? = nil,
                           transport: (any RegistryTransport)? = nil,
                           metrics: TestMetrics? = nil) throws -> (TokenRepository, DiskCache) {
        let disk = try DiskCache(path: path ?? Fixtures.temporaryDirectory().appendingPathComponent("t.db").path,
                                 durable: false)
        var c = TokenRepository.Configuration()
        c.coalescingWindow = window
        c.now = { clock.now }
        c.verifier = verifier
        c.imagePolicy = policy
        c.metricsFactory = metrics
        let t = transport ?? registry.map { HTTPRegistryTransport(baseURL: $0.baseURL, primitives: "Column@3,Text@4",
                                                               bearerToken: "secret-token", timeout: 5) }
        return (TokenRepository(pack: pack, memory: try TokenCache(), disk: disk, transport: t, configuration: c), disk)
    }

    static func tokens(_ ids: [String], version: Int = 1) -> [String: Data] {
        Dictionary(uniqueKeysWithValues: ids.map { ($0, Data(Fixtures.token($0, version: version).utf8)) })
    }

    func source(_ l: TokenLookup?) -> TokenSource? {
        if case .found(_, let s)? = l { return s }
        return nil
    }

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

    @Test func concurrentMissesAreCoalescedIntoBatchesOfFifty() async throws {
        let ids = (0..<120).map { "c\($0)" }
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(ids))
        defer { Task { await registry.stop() } }
        let (repo, _) = try Self.repository(registry, window: .milliseconds(300))
        let results = await withTaskGroup(of: [String: TokenLookup].self) { group in
            for i in 0..<100 {
                let mine = [ids[i], ids[(i + 20) % 120], ids[(i * 7 + 3) % 120]]
                group.addTask { await repo.get(mine) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.values.allSatisfy { $0.token != nil } })
        let requests = registry.requests
        #expect(requests.count == 3, "\(requests.map(\.ids.count))")
        #expect(requests.map(\.ids.count).sorted() == [20, 50, 50])
        let asked = requests.flatMap(\.ids)
        #expect(asked.count == 120 && Set(asked) == Set(ids))  // no id twice
    }

    @Test func revalidation304KeepsTheBodyAndRenewsTheTTL() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["r"]))
        defer { Task { await registry.stop() } }
        registry.setMaxAge(60)
        let clock = ManualClock()
        let (repo, disk) = try Self.repository(registry, clock: clock)
        let first = try #require(await repo.get("r").token)
        clock.advance(61)
        let again = await repo.get("r")
        #expect(source(again) == .revalidated)
        #expect(again.token?.json == first.json)
        let last = try #require(registry.requests.last)
        #expect(last.ifNoneMatch == ETag.batch([ETag.of(json: first.json)]))
        let row = try #require(try disk.get(["r"], now: clock.now)["r"])
        #expect(row.expiresAt == clock.now.addingTimeInterval(60))
        #expect(source(await repo.get("r")) == .memory)
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

    @Test func offlineMissIsOfflineAndStaleIsServed() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["s"]))
        let clock = ManualClock()
        let (repo, _) = try Self.repository(registry, clock: clock)
        #expect(await repo.get("s").token != nil)
        await registry.stop()
        clock.advance(3600)
        #expect(source(await repo.get("s")) == .stale)     // stale-if-error
        guard case .offline = await repo.get("never-seen") else {
            Issue.record("a miss without network must be offline")
            return
        }
    }

    @Test func otherFailuresAreUnavailable() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["u"]))
        defer { Task { await registry.stop() } }
        let (repo, disk) = try Self.repository(registry)
        guard case .unavailable(let missing) = await repo.get("no-such-token") else {
            Issue.record("unknown id must be unavailable"); return
        }
        #expect(missing.category == .notFound)
        registry.setMode(.status(503))
        guard case .unavailable(let e) = await repo.get("u") else {
            Issue.record("HTTP 503 must be unavailable"); return
        }
        #expect(e.category == .http)
        #expect(try disk.stats().entries == 0)
    }

    @Test func badSignaturesAreRefusedBeforeCaching() async throws {
        let signer = try TokenSigner(hs256Secret: Data(repeating: 7, count: 32))
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["a", "b"]), signer: signer)
        defer { Task { await registry.stop() } }
        let good = try TokenVerifier(key: signer.verificationKey)
        let (repo, disk) = try Self.repository(registry, verifier: good)
        #expect(source(await repo.get("a")) == .network)

        registry.setMode(.tampered)
        guard case .unavailable(let e) = await repo.get("b") else {
            Issue.record("a tampered signature must be refused"); return
        }
        #expect(e.category == .signature)
        #expect(try disk.get(["b"], now: Date()).isEmpty)

        let other = try TokenVerifier(key: .hs256(secret: Data(repeating: 8, count: 32)))
        registry.setMode(.normal)
        let (strict, disk2) = try Self.repository(registry, verifier: other)
        guard case .unavailable(let e2) = await strict.get("b") else {
            Issue.record("a wrong key must be refused"); return
        }
        #expect(e2.category == .signature)
        #expect(try disk2.stats().entries == 0)
    }

    @Test func oversizedTokensAndBadImageURLsAreRefused() async throws {
        let big = Data(Fixtures.token("big", props: #"{"t":"\#(String(repeating: "x", count: 33_000))"}"#).utf8)
        let bad = Data(Fixtures.token("img", primitive: "AsyncImage",
                                      props: #"{"url":"http://cdn.sdui.example.com/a.png"}"#).utf8)
        let registry = try await LoopbackRegistry.start(tokens: ["big": big, "img": bad])
        defer { Task { await registry.stop() } }
        let (repo, disk) = try Self.repository(registry, policy: try ImageURLPolicy(allowedHosts: ["cdn.sdui.example.com"]))
        guard case .unavailable(let e1) = await repo.get("big") else { Issue.record("over 32 KB"); return }
        #expect(e1.category == .limit)
        guard case .unavailable(let e2) = await repo.get("img") else { Issue.record("http image"); return }
        #expect(e2.category == .schema)
        #expect(try disk.stats().entries == 0)
    }

    @Test func anIdInFlightIsJoined() async throws {
        let registry = try await LoopbackRegistry.start(tokens: Self.tokens(["j"]))
        defer { Task { await registry.stop() } }
        let (repo, _) = try Self.repository(registry, window: .milliseconds(100))
        async let a = repo.get("j")
        async let b = repo.get(["j"])
        let (x, y) = await (a, b)
        #expect(x.token != nil && y["j"]?.token != nil)
        #expect(registry.requests.count == 1)
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
            try metrics.expectCounter("token_lookups", dims).totalValue
        }
        #expect(try count([("source", "pack")]) == 1)
        #expect(try count([("source", "network")]) == 2)
        #expect(try count([("source", "memory")]) == 1)
        #expect(try count([("outcome", "unavailable")]) == 1)
        // Cache hits (pack, memory, disk) over all lookups: 2 of 5.
        #expect(try metrics.expectGauge("token_cache_hit_ratio").lastValue == 0.4)
        #expect(try metrics.expectTimer("token_fetch_seconds").values.count == 2)
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

    /// One element of a batch answer nested too deep fails only its own id:
    /// the other 49 tokens of the answer are served and cached.
    @Test func aTooDeepElementFailsOnlyItsId() async throws {
        var tokens = Self.tokens((0..<49).map { "t\($0)" })
        let nested = String(repeating: "[", count: 127) + String(repeating: "]", count: 127)   // 129 levels
        tokens["deep"] = Data(#"{"id":"deep","version":1,"primitive":"Text","primitiveVersion":1,"props":{"x":\#(nested)}}"#.utf8)
        let registry = try await LoopbackRegistry.start(tokens: tokens)
        defer { Task { await registry.stop() } }
        let (repo, _) = try Self.repository(registry)
        let ids = (0..<49).map { "t\($0)" } + ["deep"]
        let got = await repo.get(ids)
        #expect(registry.requests.count == 1)
        #expect(ids.dropLast().allSatisfy { source(got[$0]) == .network })
        guard case .unavailable(let e)? = got["deep"] else {
            Issue.record("expected the deep token to be unavailable, got \(String(describing: got["deep"]))"); return
        }
        #expect(e.category == .limit)
        #expect(e.message.contains("nested deeper than 128 levels"), "\(e.message)")
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
                                       transport: HTTPRegistryTransport(baseURL: registry.baseURL, timeout: 5),
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
