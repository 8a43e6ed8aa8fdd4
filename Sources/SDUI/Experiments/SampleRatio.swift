// SampleRatio.swift - the sample-ratio mismatch test of an experiment's
// roll-out: do the users counted per variation fit the weights?
//
// Pearson's chi-square goodness of fit: with N users in all and weight w_i
// for variation i, the expected count is N * w_i, and
//     X^2 = sum over i of (observed_i - expected_i)^2 / expected_i
// follows a chi-square distribution with k - 1 degrees of freedom when the
// split is fair.  The p-value is the chance of an X^2 at least this large
// under a fair split: the upper tail, Q(k/2 - 1/2, X^2 / 2), the regularized
// upper incomplete gamma function.  Q is computed by its series when x is
// below a + 1 (where the series converges fast) and by its continued
// fraction (Lentz's method) above, each to a relative 1e-14 or 500 terms:
// the work is bounded whatever the counts.  A small p-value (below 0.001,
// the usual alert) means the assignment or the counting is broken: users
// are lost or double-counted in one variation, so the comparison is biased.
import Foundation

/// The sample-ratio mismatch test (see the file's essay).
public struct SampleRatio: Sendable, Hashable {
    /// Pearson's X^2.
    public var chiSquare: Double
    /// Degrees of freedom (variations - 1).
    public var degreesOfFreedom: Int
    /// The chance of a mismatch at least this large under a fair split.
    public var pValue: Double

    /// The p-value below which a split is flagged.
    public static let alertThreshold = 0.001

    /// Whether the split is flagged (p below ``alertThreshold``).
    public var isMismatch: Bool { pValue < Self.alertThreshold }

    /// The test of `counts` against `weights` (one each per variation, the
    /// weights summing to about 1); nil with fewer than two variations, no
    /// users, or a weight that is not positive.
    public init?(counts: [Int], weights: [Double]) {
        guard counts.count == weights.count, counts.count >= 2, counts.allSatisfy({ $0 >= 0 }),
              weights.allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
        let total = Double(counts.reduce(0, +))
        let weightSum = weights.reduce(0, +)
        guard total > 0 else { return nil }
        var x2 = 0.0
        for (o, w) in zip(counts, weights) {
            let e = total * w / weightSum
            x2 += (Double(o) - e) * (Double(o) - e) / e
        }
        chiSquare = x2
        degreesOfFreedom = counts.count - 1
        pValue = Self.upperGamma(Double(degreesOfFreedom) / 2, x2 / 2)
    }

    /// The X^2 at which a split with `degreesOfFreedom` is flagged: the
    /// value whose p-value is `pValue` (default ``alertThreshold``), found
    /// by bisection to 1e-9 relative in at most 200 steps.  What the
    /// registry exports (`sdui_experiment_srm_critical`) for the alert rule,
    /// which cannot compute a chi-square quantile itself.  nil for fewer
    /// than 1 degree of freedom or a p-value outside (0, 1).
    public static func criticalChiSquare(degreesOfFreedom k: Int, pValue: Double = alertThreshold) -> Double? {
        guard k >= 1, pValue > 0, pValue < 1 else { return nil }
        let a = Double(k) / 2
        var low = 0.0, high = max(1.0, Double(k))
        // Q falls as x grows: widen until the tail is below the p-value.
        for _ in 0..<200 where upperGamma(a, high / 2) > pValue { high *= 2 }
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if upperGamma(a, mid / 2) > pValue { low = mid } else { high = mid }
            if high - low <= high * 1e-9 { break }
        }
        return (low + high) / 2
    }

    /// Q(a, x), the regularized upper incomplete gamma function, a > 0, x >= 0.
    static func upperGamma(_ a: Double, _ x: Double) -> Double {
        guard x > 0 else { return 1 }
        let logPrefix = a * log(x) - x - lgamma(a)
        if x < a + 1 {
            // P(a, x) by its series: x^a e^-x / Gamma(a+1) * sum x^n / ((a+1)…(a+n)).
            var term = 1 / a, sum = term, n = a
            for _ in 0..<500 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * 1e-14 { break }
            }
            return max(0, min(1, 1 - sum * exp(logPrefix)))
        }
        // Q(a, x) by its continued fraction (Lentz).
        let tiny = 1e-300
        var b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d
        for i in 1...500 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-14 { break }
        }
        return max(0, min(1, exp(logPrefix) * h))
    }
}
