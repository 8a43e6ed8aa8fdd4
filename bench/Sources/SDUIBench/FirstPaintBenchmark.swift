// FirstPaintBenchmark.swift - first-paint pack load against its peers.
#if Server
import CSDUIBenchPeers
import Foundation
import SDUI

/// Measures, from gzip bytes in memory, how long each method takes to get an
/// app to its first screen:
///
/// - `floor`: zlib inflate alone (the least any JSON pack can cost),
/// - `libdeflate`: libdeflate inflate alone (for reference),
/// - `sdui`: this engine, open + 20 tokens parsed,
/// - `sduiOneThread`: the same with the pack scanned on one thread,
/// - `jansson`: zlib inflate + jansson whole-document parse,
/// - `jsondecoder`: zlib inflate + Foundation JSONDecoder into Codable types,
/// - `jsonserialization`: zlib inflate + JSONSerialization.
///
/// Methods run round-robin, so drift on a shared machine hits all alike.
public struct FirstPaintBenchmark {
    public enum Method: String, CaseIterable, Sendable {
        case floor, libdeflate, sdui
        case sduiOneThread
        case jansson, jsondecoder, jsonserialization
    }

    public let packBytes: Data
    public let ids: [String]
    public let info: CorePack.Info

    /// Prepares a run: opens the pack once to pick 20 ids spread over it.
    public init(packBytes: Data) throws {
        self.packBytes = packBytes
        let pack = try CorePack(data: packBytes, name: "benchmark pack")
        let all = pack.ids
        let step = max(1, all.count / 20)
        ids = Array(stride(from: 0, to: all.count, by: step).prefix(20).map { all[$0] })
        info = pack.info
    }

    /// Runs one method once; throws if it fails to load the pack.
    public func runOnce(_ method: Method) throws {
        try packBytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            switch method {
            case .floor, .libdeflate:
                var out: UnsafeMutablePointer<CChar>?
                let n = method == .floor ? sdui_bench_zlib_inflate(base, raw.count, &out)
                    : sdui_bench_libdeflate_inflate(base, raw.count, &out)
                free(out)
                if n < 0 { throw SDUIError(.gzip, "\(method) could not inflate the pack") }
            case .sdui, .sduiOneThread:
                let limits = method == .sdui ? PackLimits.default : PackLimits(parallelScanBytes: .max)
                let pack = try CorePack(data: packBytes, name: "benchmark pack", limits: limits)
                for id in ids {
                    guard try pack.token(id) != nil else {
                        throw SDUIError(.notFound, "token \(id) missing")
                    }
                }
            case .jansson:
                if sdui_bench_jansson_parse(base, raw.count) < 0 {
                    throw SDUIError(.json, "jansson could not parse the pack")
                }
            case .jsondecoder:
                let doc = try JSONDecoder().decode(PackDocument.self, from: try inflate(base, raw.count))
                if doc.tokens.isEmpty { throw SDUIError(.schema, "no tokens decoded") }
            case .jsonserialization:
                let obj = try JSONSerialization.jsonObject(with: try inflate(base, raw.count))
                guard let d = obj as? [String: Any], d["tokens"] is [Any] else {
                    throw SDUIError(.schema, "no tokens array")
                }
            }
        }
    }

    /// zlib-inflated bytes as Data without a copy.
    private func inflate(_ base: UnsafeRawPointer, _ count: Int) throws -> Data {
        var out: UnsafeMutablePointer<CChar>?
        let n = sdui_bench_zlib_inflate(base, count, &out)
        guard n >= 0, let out else { throw SDUIError(.gzip, "could not inflate the pack") }
        return Data(bytesNoCopy: out, count: Int(n), deallocator: .free)
    }

    /// Median milliseconds of each method over `iterations` rounds (each
    /// method at most `maxSeconds` in all, at least 3 runs), after one warm-up.
    public func measure(iterations: Int, maxSeconds: Double = 20) throws -> [Method: Double] {
        var samples: [Method: [Double]] = [:]
        var spent: [Method: Double] = [:]
        let clock = ContinuousClock()
        for m in Method.allCases { try runOnce(m) }
        for round in 0..<iterations {
            for m in Method.allCases {
                if round >= 3 && spent[m, default: 0] > maxSeconds * 1000 { continue }
                let d = try clock.measure { try runOnce(m) }
                let ms = d.milliseconds
                samples[m, default: []].append(ms)
                spent[m, default: 0] += ms
            }
        }
        return samples.mapValues { Self.median($0) }
    }

    /// Resident-memory growth while running `method` once in this process,
    /// in bytes; nil where /proc is not available.  Meaningful only in a
    /// fresh process that has run nothing else (see `sdui bench`).
    public func peakGrowth(_ method: Method) throws -> Int? {
        let before = sdui_bench_rss_bytes()
        try runOnce(method)
        let peak = sdui_bench_peak_rss_bytes()
        guard before >= 0, peak >= 0 else { return nil }
        return Int(max(0, peak - before))
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// The Codable peer's model of a pack.
struct PackDocument: Decodable {
    var formatVersion: Int
    var tokens: [TokenDocument]
}

struct TokenDocument: Decodable {
    var id: String
    var version: Int
    var primitive: String
    var primitiveVersion: Int
    var props: [String: JSONValue]
}

indirect enum JSONValue: Decodable {
    case null, bool(Bool), number(Double), string(String)
    case array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }
}
#endif
