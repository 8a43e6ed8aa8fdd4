// ExperimentBenchmark.swift - assignments per second: the C core's
// sdui_experiment_run, the Swift API over it, and a Swift closure doing
// the same hashing and range walk.
#if Server
import CSDUI
import Foundation
import SDUI

/// Three ways to assign `users` users (ids `user-0`, `user-1`, …, built
/// before timing) to a three-variation experiment (weights 0.2, 0.3, 0.5,
/// hash version 2):
///
/// 1. **c**: `sdui_experiment_run` called in a loop, the user's id handed
///    over as a pointer into one buffer of all ids;
/// 2. **swift_api**: `ExperimentAssigner.assign(hashValue:)`, what an app
///    calls (it copies the texts into one buffer per call);
/// 3. **swift_closure**: the peer, a Swift closure that computes the same
///    FNV-1a over the id's UTF-16 units, the version-2 second round and the
///    range walk, over `String`s.
///
/// Every method runs in every round, round-robin; each counts the users per
/// variation, and the counts must agree (a check, not a timing).  Figures
/// are medians over rounds, nanoseconds per assignment.
public struct ExperimentBenchmark {
    public enum Method: String, CaseIterable, Sendable {
        case c = "c_core_run"
        case swiftAPI = "swift_api"
        case swiftClosure = "swift_closure"
    }

    public struct Result: Sendable {
        public var medians: [Method: Double]
        public var users: Int
        public var counts: [Int]
    }

    public init() {}

    /// The experiment measured.
    static let experiment = Experiment(key: "checkout-cta", variations: [.init(id: "a"), .init(id: "b"), .init(id: "c")],
                                       weights: [0.2, 0.3, 0.5], hashVersion: 2)

    /// FNV-1a 32 over UTF-16 units: the closure's own.
    static func fnv<S: Sequence>(_ units: S, _ h: UInt32 = 0x811c9dc5) -> UInt32 where S.Element == UInt16 {
        var h = h
        for u in units { h = (h ^ UInt32(u)) &* 0x01000193 }
        return h
    }

    /// Measures `rounds` rounds of `users` assignments per method.
    public func measure(rounds: Int, users: Int) throws -> Result {
        let ids = (0..<users).map { "user-\($0)" }
        var buffer: [UInt8] = []
        var spans: [(Int, Int)] = []
        for id in ids {
            spans.append((buffer.count, id.utf8.count))
            buffer += id.utf8
        }
        let assigner = try ExperimentAssigner(Self.experiment)
        let key = Self.experiment.key
        let weights = Self.experiment.weights ?? []
        // The peer: the same hash and walk in Swift.
        let closure: (String) -> Int = { id in
            let first = Self.fnv(id.utf16, Self.fnv(key.utf16))
            let n = Double(Self.fnv(String(first).utf16) % 10_000) / 10_000
            var sum = 0.0
            for (i, w) in weights.enumerated() {
                if n >= sum && n < sum + w { return i }
                sum += w
            }
            return -1
        }
        var samples: [Method: [Double]] = [:]
        var counts: [Method: [Int]] = [:]
        for round in 0..<(rounds + 1) {   // the first round warms up
            for method in Method.allCases {
                var tally = [0, 0, 0]
                let clock = ContinuousClock()
                let elapsed: Duration
                switch method {
                case .c:
                    elapsed = buffer.withUnsafeBufferPointer { raw -> Duration in
                        let base = UnsafeRawPointer(raw.baseAddress!).assumingMemoryBound(to: CChar.self)
                        return key.withCString { k -> Duration in
                            weights.withUnsafeBufferPointer { w -> Duration in
                                "id".withCString { name -> Duration in
                                    var x = sdui_experiment()
                                    x.key = k
                                    x.key_len = key.utf8.count
                                    x.variation_count = 3
                                    x.weights = w.baseAddress
                                    x.weight_count = 3
                                    x.hash_version = 2
                                    var attr = sdui_experiment_attr(name: name, name_len: 2, value: nil, value_len: 0)
                                    var r = sdui_experiment_result()
                                    return clock.measure {
                                        for (at, len) in spans {
                                            attr.value = base + at
                                            attr.value_len = len
                                            _ = sdui_experiment_run(&x, &attr, 1, 1, &r, nil)
                                            if r.in_experiment != 0 { tally[Int(r.variation)] += 1 }
                                        }
                                    }
                                }
                            }
                        }
                    }
                case .swiftAPI:
                    elapsed = clock.measure {
                        for id in ids {
                            let a = assigner.assign(hashValue: id)
                            if a.inExperiment { tally[a.variationIndex] += 1 }
                        }
                    }
                case .swiftClosure:
                    elapsed = clock.measure {
                        for id in ids {
                            let v = closure(id)
                            if v >= 0 { tally[v] += 1 }
                        }
                    }
                }
                counts[method] = tally
                if round > 0 { samples[method, default: []].append(elapsed.milliseconds * 1e6 / Double(users)) }
            }
        }
        let reference = counts[.c] ?? []
        for method in Method.allCases where counts[method] != reference {
            throw SDUIError(.unknown, "\(method.rawValue) assigned \(counts[method] ?? []) where the C core assigned \(reference)")
        }
        return Result(medians: samples.mapValues { FirstPaintBenchmark.median($0) }, users: users, counts: reference)
    }
}
#endif
