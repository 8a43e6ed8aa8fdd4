// TokenRepository+BatchingTests.swift - the batcher: misses coalesced and joined,
// revalidation, answers verified and checked before caching, failures per id.
import Foundation
import SDUI
import SDUITestSupport
import Testing
import SDUIRegistryKit

@Suite(.serialized) struct TokenRepositoryBatchingTests: TokenRepositoryFixtures {
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
}
