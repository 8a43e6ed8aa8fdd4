// CorePackPlannerTests.swift - ranking, the budget, the delta gate, validation and the Fallback Pack.
import Foundation
import SDUI
@testable import SDUIRegistryKit
import SDUITestSupport
import Testing

@Suite struct CorePackPlannerTests {
    /// 60 tokens of varied text, so gzip sizes grow with the count.
    static let candidates: [PackCandidate] = (0..<60).map { i in
        let text = (0..<20).map { "w\((i * 7919 + $0 * 104_729) % 100_003)" }.joined(separator: " ")
        return PackCandidate(id: "t\(i)", version: 1, json: Data(Fixtures.token("t\(i)", props: #"{"text":"\#(text)"}"#).utf8))
    }

    @Test func largestTopSliceWithinTheBudgetInUsageOrder() throws {
        let usage = UsageTelemetry(counts: Dictionary(uniqueKeysWithValues: (0..<60).map { ("t\($0)", $0 * 10) }))
        var planner = CorePackPlanner()
        let all = try planner.build(Self.candidates, usage: usage)
        planner.budgetBytes = all.pack.count / 2
        let half = try planner.build(Self.candidates, usage: usage)
        let n = half.manifest.tokens.count
        #expect(n > 0 && n < 60)
        #expect(half.pack.count <= planner.budgetBytes)
        // The most used come first, and one more token would not fit.
        #expect(half.manifest.tokens.map(\.id) == (0..<n).map { "t\(59 - $0)" })
        var one = CorePackBuilder()
        for id in (0...n).map({ "t\(59 - $0)" }) { _ = try one.add(json: Self.candidates.first { $0.id == id }!.json, source: id) }
        #expect(try one.build().count > planner.budgetBytes)
        // The pack opens, holds exactly the manifest's tokens, and the manifest adds up.
        let pack = try CorePack(data: half.pack)
        #expect(Set(pack.ids) == Set(half.manifest.tokens.map(\.id)))
        #expect(half.manifest.packBytes == half.pack.count && half.manifest.budgetBytes == planner.budgetBytes)
        #expect(half.manifest.tokens[0].usage == 590 && half.manifest.tokens[0].etag == ETag.of(json: Self.candidates[59].json))
        #expect(half.manifest.candidates == 60)
    }

    @Test func tokensWithoutTelemetryComeLastByID() throws {
        let usage = UsageTelemetry(counts: ["t5": 3, "t9": 7])
        let b = try CorePackPlanner().build(Array(Self.candidates.prefix(12)), usage: usage)
        #expect(b.manifest.tokens.map(\.id).prefix(4) == ["t9", "t5", "t0", "t1"])
    }

    @Test func deltaGateAndInvalidTokensFailTheBuild() throws {
        var planner = CorePackPlanner()
        let small = try planner.build(Array(Self.candidates.prefix(2)), usage: nil)
        let big = try planner.build(Self.candidates, usage: nil)
        planner.maxDeltaBytes = 500
        do {
            _ = try planner.build(Self.candidates, usage: nil, previous: small.pack)
            Issue.record("the delta gate let a jump through")
        } catch let e as RegistryError {
            #expect(e.code == .gate && e.message.contains("over the 500-byte gate"), "\(e.message)")
        }
        let same = try planner.build(Self.candidates, usage: nil, previous: big.pack)
        #expect(same.manifest.deltaBytes == 0 && same.manifest.previousPackBytes == big.pack.count)

        planner.imagePolicy = try ImageURLPolicy(allowedHosts: ["cdn.sdui.example.com"])
        let bad = [PackCandidate(id: "x", version: 1, json: Data(#"{"id":"x"}"#.utf8)),
                   PackCandidate(id: "img", version: 1, json: Data(Fixtures.token("img", primitive: "AsyncImage",
                                                                                 props: #"{"url":"http://a.b/c.png"}"#).utf8))]
        do {
            _ = try planner.build(bad + Array(Self.candidates.prefix(3)), usage: nil)
            Issue.record("invalid tokens were packed")
        } catch let e as RegistryError {
            #expect(e.message.hasPrefix("2 invalid token(s)"))
            #expect(e.message.contains("x@1: schema: ") && e.message.contains("img@1: schema: "))
        }
    }

    @Test func aBudgetBelowAnEmptyPackIsAGateFailure() {
        var planner = CorePackPlanner()
        planner.budgetBytes = 10
        #expect(throws: RegistryError.self) { try planner.build(Self.candidates, usage: nil) }
    }

    @Test func usageFilesJSONAndCSV() throws {
        let json = try UsageTelemetry(data: Data(#"{"format":"sdui-usage/1","period":"W1","counts":{"a":3,"b":0}}"#.utf8), source: "u")
        #expect(json == UsageTelemetry(counts: ["a": 3, "b": 0], period: "W1"))
        let csv = try UsageTelemetry(data: Data("# id,count\na, 3\n\nb,0\n".utf8), source: "u.csv")
        #expect(csv.counts == ["a": 3, "b": 0])
        let crlf = try UsageTelemetry(data: Data("promo_banner,18234\r\nteam_list,7\r\n".utf8), source: "u.csv")
        #expect(crlf.counts == ["promo_banner": 18234, "team_list": 7])
        for bad in [#"{"counts":{"a":-1}}"#, #"{"counts":[]}"#, "a,1\na,2", "a;1", "a,x"] {
            #expect(throws: RegistryError.self, "\(bad)") { try UsageTelemetry(data: Data(bad.utf8), source: "u") }
        }
        let example = try UsageTelemetry(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Examples/usage.json"))
        #expect(example.counts.count == 47 && example.period == "2026-W46")
    }

    @Test func fallbackPackHoldsScreensAndTheirTokens() throws {
        let screens = ["checkout": screen("checkout", ["t1", "t2"], fallback: "checkout_offline"),
                       "checkout_offline": screen("checkout_offline", ["t3"]),
                       "login": screen("login", ["t4", "t5"])]
        let byID = Dictionary(uniqueKeysWithValues: Self.candidates.map { ($0.id, $0) })
        let data = try CorePackPlanner().fallbackPack(critical: ["checkout", "login"], screens: screens, tokens: { byID[$0] })
        let fallback = try FallbackPack(pack: CorePack(data: data))
        #expect(fallback.screen(for: "checkout")?.id == "checkout_offline")
        #expect(fallback.screen(for: "login")?.id == "login")
        #expect(Set(fallback.pack.ids) == ["t3", "t4", "t5"])
        #expect(throws: RegistryError.self) {
            try CorePackPlanner().fallbackPack(critical: ["nope"], screens: screens, tokens: { byID[$0] })
        }
        #expect(throws: RegistryError.self) {
            try CorePackPlanner().fallbackPack(critical: ["login"], screens: screens, tokens: { _ in nil })
        }
    }
}
