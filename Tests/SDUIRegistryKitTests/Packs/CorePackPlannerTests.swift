// CorePackPlannerTests.swift - ranking, the budget, the delta gate and validation.
import Foundation
import SDUI
@testable import SDUIRegistryKit
import SDUITestSupport
import Testing

@Suite struct CorePackPlannerTests {
    static let candidates = PackFixtures.candidates

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

}
