// SampleRatioTests.swift - the sample-ratio mismatch test: its p-values
// against the chi-square table, a skewed 50/50 split flagged and a fair one
// passed.
import Foundation
import Testing
@testable import SDUI

@Suite struct SampleRatioTests {
    /// The upper tail at the table's 5 % and 0.1 % critical values.
    @Test(arguments: [(1, 3.841, 0.05), (2, 5.991, 0.05), (3, 7.815, 0.05), (9, 16.919, 0.05),
                      (1, 10.828, 0.001), (4, 18.467, 0.001), (20, 31.410, 0.05), (1, 0, 1.0)])
    func pValuesMatchTheChiSquareTable(_ df: Int, _ x2: Double, _ p: Double) {
        let q = SampleRatio.upperGamma(Double(df) / 2, x2 / 2)
        #expect(abs(q - p) < p * 0.002 + 1e-12, "df \(df), X² \(x2): \(q), table \(p)")
    }

    @Test func aSkewedSplitIsFlaggedAndAFairOnePasses() throws {
        let skewed = try #require(SampleRatio(counts: [10_000, 10_600], weights: [0.5, 0.5]))
        #expect(skewed.isMismatch && skewed.degreesOfFreedom == 1, "\(skewed)")
        let fair = try #require(SampleRatio(counts: [10_000, 10_060], weights: [0.5, 0.5]))
        #expect(!fair.isMismatch && fair.pValue > 0.5, "\(fair)")
        let weighted = try #require(SampleRatio(counts: [2_010, 2_990, 5_000], weights: [0.2, 0.3, 0.5]))
        #expect(!weighted.isMismatch)
        #expect(SampleRatio(counts: [0, 0], weights: [0.5, 0.5]) == nil)
        #expect(SampleRatio(counts: [1, 2], weights: [1, 0]) == nil)
        #expect(SampleRatio(counts: [1], weights: [1]) == nil)
    }

    /// A fair assignment of many users is not flagged: the C core's split of
    /// 200,000 users over 0.2/0.3/0.5.
    @Test func theCoresOwnSplitPasses() throws {
        let assigner = try ExperimentAssigner(Experiment(key: "srm", variations: [.init(id: "a"), .init(id: "b"), .init(id: "c")],
                                                         weights: [0.2, 0.3, 0.5]))
        var counts = [0, 0, 0]
        for i in 0..<200_000 { counts[assigner.assign(hashValue: "u\(i)").variationIndex] += 1 }
        let test = try #require(SampleRatio(counts: counts, weights: [0.2, 0.3, 0.5]))
        #expect(!test.isMismatch, "\(counts): \(test)")
    }
}
