// FirstPaintBenchmark.swift - first-paint pack load against its floors and peers.
#if Server
import CSDUI
import CSDUIBenchPeers
import CSDUIBenchSimdjson
import Foundation
import SDUI
import SDUIRegistryKit

/// Measures, from gzip bytes in memory, how long each method takes to get an
/// app to its first screen, on the two encodings of one pack: plain (one
/// gzip member) and seekable (several members, each inflated on first use).
///
/// The first screen is the pack's first 20 ids in pack order (packs are
/// written in usage-rank order, so these are what the first screens show):
/// the same ids for every method and both encodings.
///
/// - `libdeflate`: libdeflate inflate alone (the floor: the engine inflates
///   with libdeflate),
/// - `zlib`: zlib inflate alone (the reference),
/// - `sdui`: this engine, open + the 20 tokens parsed,
/// - `sduiOneThread`: the same with a plain pack scanned on one thread,
/// - `resolve`: open + the first screen (the 20 tokens, their bindings, the
///   benchmark theme) resolved into a render tree,
/// - `jansson`: libdeflate inflate + jansson's `json_loadb` of the whole
///   document,
/// - `simdjson`: libdeflate inflate + simdjson's DOM parse of the whole
///   document,
/// - `simdjsonOndemand`: libdeflate inflate + simdjson On-Demand reading
///   every value of the 20 tokens (its stage 1 still indexes the whole
///   document),
/// - `jsondecoder`, `jsonserialization`: zlib inflate + Foundation (only on
///   request: seconds per run on large packs).
///
/// The floors are given the inflated size, so they allocate once, as the
/// engine does from the gzip trailer or a seekable pack's table.
public struct FirstPaintBenchmark {
    /// What is measured (see the list above).
    public enum Method: String, CaseIterable, Sendable, Codable {
        case libdeflate, zlib, sdui, sduiOneThread, resolve
        case jansson, simdjson, simdjsonOndemand
        case jsondecoder, jsonserialization

        /// What the method does, for tables.
        public var label: String {
            switch self {
            case .libdeflate: "libdeflate inflate (floor)"
            case .zlib: "zlib inflate (reference)"
            case .sdui: "sdui open + 20 tokens"
            case .sduiOneThread: "  same, scan on one thread"
            case .resolve: "sdui open + resolve first screen"
            case .jansson: "jansson: inflate + json_loadb (whole)"
            case .simdjson: "simdjson: inflate + DOM parse (whole)"
            case .simdjsonOndemand: "simdjson: inflate + On-Demand 20 tokens"
            case .jsondecoder: "JSONDecoder (Codable, whole)"
            case .jsonserialization: "JSONSerialization (whole)"
            }
        }
    }

    /// The encodings of a pack: plain as `sdui pack build` writes it
    /// (several gzip members once the JSON passes 2 MiB, scanned while
    /// they inflate), the same JSON as one gzip member (what other writers
    /// make: inflated whole, then scanned), and seekable.
    public enum Variant: String, CaseIterable, Sendable, Codable {
        case plain, single, seekable
    }

    /// One measured thing: a method on an encoding.
    public struct Case: Hashable, Sendable {
        public var variant: Variant
        public var method: Method
        /// `method` run on the `variant` encoding.
        public init(_ variant: Variant, _ method: Method) {
            self.variant = variant
            self.method = method
        }
    }

    /// The cases of a run, in the order they take turns: every method on
    /// the plain pack, the floors and the engine's open on the one-member
    /// pack, then the engine's own on the seekable one (the peers inflate
    /// it whole, as they would the plain pack).
    public static func cases(foundation: Bool) -> [Case] {
        var plain: [Method] = [.libdeflate, .zlib, .sdui, .sduiOneThread, .resolve, .jansson, .simdjson, .simdjsonOndemand]
        if foundation { plain += [.jsondecoder, .jsonserialization] }
        return plain.map { Case(.plain, $0) } + [Method.libdeflate, .zlib, .sdui].map { Case(.single, $0) }
            + [Method.libdeflate, .zlib, .sdui, .resolve].map { Case(.seekable, $0) }
    }

    /// The gzip bytes of each encoding measured.
    public let packs: [Variant: Data]
    /// Files of the encodings the engine opens by path, as an app opens the
    /// pack in its bundle: the seekable pack, whose open reads only the
    /// headers and the members it needs (a copy of the whole input in
    /// memory would cost it what it is made to avoid).  Without a file the
    /// engine opens the bytes in memory, as it does the plain pack and as
    /// every peer reads.
    public var files: [Variant: URL] = [:]
    /// The first screen: the first 20 ids in pack order, with bindings for
    /// their placeholders.
    public let screen: ScreenPayload
    /// The size of the pack's JSON, given to the floors.
    public let rawBytes: Int
    /// The limits the engine opens the pack with: the defaults, or for a
    /// generated pack larger than they allow, limits raised to fit it
    /// (``fitting(rawBytes:compressedBytes:tokens:)``).
    public var limits = PackLimits.default
    let resolver: ScreenResolver

    /// The ids of the first screen.
    public var ids: [String] { screen.tokens.map(\.id) }

    /// A benchmark over prepared inputs, opening nothing (a child process
    /// measuring its first run uses this).
    public init(packs: [Variant: Data], screen: ScreenPayload, rawBytes: Int) {
        self.packs = packs
        self.screen = screen
        self.rawBytes = rawBytes
        var context = RenderContext()
        context.themes = ThemeCatalog([PackGenerator.theme])
        context.flowThemeID = PackGenerator.theme.id
        resolver = ScreenResolver(context)
    }

    /// What preparing found out about the pack, for the report.
    public struct Facts: Sendable, Codable {
        /// Tokens in the pack.
        public var tokens: Int
        /// Bytes of its JSON document.
        public var rawBytes: Int
        /// Bytes of each encoding's file.
        public var plainBytes: Int
        public var singleBytes: Int
        public var seekableBytes: Int
        /// gzip members of each encoding.
        public var plainMembers: Int
        public var seekableMembers: Int
        /// Members of the seekable pack inflated to get the first screen's tokens.
        public var seekableMembersTouched: Int
        /// Render nodes of the resolved first screen, and its issues.
        public var screenNodes: Int
        public var screenIssues: Int
    }

    /// The default limits, each raised as far as a pack of `rawBytes` of
    /// JSON, `compressedBytes` gzipped, holding `tokens` tokens needs: what
    /// a generated pack is opened with, so a large one is measured rather
    /// than refused.
    public static func fitting(rawBytes: Int, compressedBytes: Int, tokens: Int) -> PackLimits {
        var l = PackLimits.default
        l.maxInflatedBytes = max(l.maxInflatedBytes, rawBytes)
        l.maxCompressedBytes = max(l.maxCompressedBytes, compressedBytes)
        l.maxTokens = max(l.maxTokens, tokens)
        return l
    }

    /// Opens both encodings (with `limits`), checks they hold the same
    /// tokens in the same order, and builds the first screen: its 20 ids
    /// and the bindings their `{{a.b}}` placeholders read.
    public static func prepare(plain: Data, seekable: Data, name: String,
                               limits: PackLimits = .default) throws -> (FirstPaintBenchmark, Facts) {
        let p = try CorePack(data: plain, name: name + " (plain)", limits: limits)
        let s = try CorePack(data: seekable, name: name + " (seekable)", limits: limits)
        // A seekable pack lists its ids member by member from its tables:
        // the same ids, and (below) the same JSON, so the same order.
        guard p.count == s.count, Set(p.ids) == Set(s.ids) else {
            throw SDUIError(.schema, "the seekable pack does not hold the plain pack's ids", input: name)
        }
        guard try inflated(plain, name: name) == inflated(seekable, name: name) else {
            throw SDUIError(.schema, "the seekable pack's JSON differs from the plain pack's", input: name)
        }
        let ids = Array(p.ids.prefix(20))
        guard ids.count == 20 else { throw SDUIError(.argument, "the pack holds \(ids.count) tokens; the first screen needs 20", input: name) }
        var items: [ScreenPayload.Item] = []
        for id in ids {
            guard let token = try p.token(id) else { throw SDUIError(.notFound, "no token \(id)", input: name) }
            let bind = Self.bindings(in: String(decoding: token.json, as: UTF8.self))
            items.append(ScreenPayload.Item(id: id, bind: bind.isEmpty ? nil : bind))
        }
        let screen = ScreenPayload(id: "first_screen", tokens: items)
        let single = try CorePackBuilder.gzip(try inflated(plain, name: name), memberBytes: .max)
        var bench = FirstPaintBenchmark(packs: [.plain: plain, .single: single, .seekable: seekable], screen: screen,
                                        rawBytes: p.info.rawBytes)
        bench.limits = limits
        let tree = bench.resolver.resolve(screen, pack: p)
        let facts = Facts(tokens: p.count, rawBytes: p.info.rawBytes, plainBytes: plain.count,
                          singleBytes: single.count, seekableBytes: seekable.count, plainMembers: p.info.members,
                          seekableMembers: s.info.members, seekableMembersTouched: try Self.membersTouched(seekable, ids: ids, limits: limits),
                          screenNodes: tree.root.allNodes.count, screenIssues: tree.issues.count)
        return (bench, facts)
    }

    /// Both encodings of a pack given in either: a seekable pack's JSON is
    /// gzipped as `sdui pack build` writes a plain pack (level 12) for the
    /// plain one, a plain pack's written by `writer` for the seekable one.
    public static func encodings(of pack: Data, name: String, writer: SeekablePackWriter) throws -> (plain: Data, seekable: Data) {
        var err = sdui_error()
        var handle: OpaquePointer?
        let status = pack.withUnsafeBytes { sdui_pack_open_memory($0.baseAddress, $0.count, nil, &handle, &err) }
        try SDUIError.check(status, err, input: name)
        defer { sdui_pack_free(handle) }
        var info = sdui_pack_info()
        sdui_pack_get_info(handle, &info)
        let json = try inflated(pack, name: name)
        return info.seekable != 0 ? (try CorePackBuilder.gzip(json), pack) : (pack, try writer.write(json, source: name))
    }

    /// Every member of `gz` inflated (by the libdeflate peer, not the engine).
    static func inflated(_ gz: Data, name: String) throws -> Data {
        var out: UnsafeMutablePointer<CChar>?
        let n = gz.withUnsafeBytes { sdui_bench_libdeflate_inflate($0.baseAddress, $0.count, 0, &out) }
        guard n >= 0, let out else { throw SDUIError(.gzip, "libdeflate could not inflate the pack", input: name) }
        return Data(bytesNoCopy: out, count: Int(n), deallocator: .free)
    }

    /// Members a fresh open of `pack` (with `limits`) inflates to get `ids`
    /// (C core's count).
    static func membersTouched(_ pack: Data, ids: [String], limits: PackLimits) throws -> Int {
        var err = sdui_error()
        var handle: OpaquePointer?
        var cl = limits.c
        let status = pack.withUnsafeBytes { sdui_pack_open_memory($0.baseAddress, $0.count, &cl, &handle, &err) }
        try SDUIError.check(status, err, input: "the seekable pack")
        defer { sdui_pack_free(handle) }
        for id in ids {
            var token: OpaquePointer?
            var id = id
            let st = id.withUTF8 { sdui_pack_get(handle, $0.baseAddress, $0.count, &token, &err) }
            try SDUIError.check(st, err, input: "the seekable pack")
            sdui_token_release(token)
        }
        var info = sdui_pack_info()
        sdui_pack_get_info(handle, &info)
        return Int(info.members_inflated)
    }

    /// `{"a": {"b": "…"}}` for every `{{a.b}}` (and `{"a": "…"}` for
    /// every `{{a}}`) in a token's JSON text.
    static func bindings(in json: String) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        var rest = Substring(json)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            let path = rest[open.upperBound..<close.lowerBound].split(separator: ".").map(String.init)
            rest = rest[close.upperBound...]
            guard path.count == 1 || path.count == 2, path.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isLetter) }) else { continue }
            if path.count == 1 {
                out[path[0]] = .string("\(path[0]) value")
            } else {
                var inner = out[path[0]]?.objectValue ?? [:]
                inner[path[1]] = .string("\(path[0]) \(path[1])")
                out[path[0]] = .object(inner)
            }
        }
        return out
    }

    /// Runs one case once; throws if it fails to load the pack.
    public func runOnce(_ c: Case) throws {
        guard let bytes = packs[c.variant] else { throw SDUIError(.argument, "no \(c.variant.rawValue) pack") }
        try Self.run(c.method, bytes: bytes, file: c.variant == .seekable ? files[.seekable] : nil,
                     screen: screen, rawBytes: rawBytes, resolver: resolver, limits: limits)
    }

    /// Opens the engine's pack: from its file when given, else from memory.
    static func open(_ bytes: Data, file: URL?, limits: PackLimits) throws -> CorePack {
        if let file { return try CorePack(contentsOf: file, limits: limits) }
        return try CorePack(data: bytes, name: "benchmark pack", limits: limits)
    }

    static func run(_ method: Method, bytes: Data, file: URL?, screen: ScreenPayload, rawBytes: Int,
                    resolver: ScreenResolver, limits: PackLimits) throws {
        try bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            switch method {
            case .libdeflate, .zlib:
                var out: UnsafeMutablePointer<CChar>?
                let n = method == .zlib ? sdui_bench_zlib_inflate(base, raw.count, rawBytes, &out)
                    : sdui_bench_libdeflate_inflate(base, raw.count, rawBytes, &out)
                free(out)
                if n < 0 { throw SDUIError(.gzip, "\(method) could not inflate the pack") }
            case .sdui, .sduiOneThread:
                var limits = limits
                if method == .sduiOneThread { limits.parallelScanBytes = .max }
                let pack = try open(bytes, file: file, limits: limits)
                for item in screen.tokens {
                    guard try pack.token(item.id) != nil else {
                        throw SDUIError(.notFound, "token \(item.id) missing")
                    }
                }
            case .resolve:
                let pack = try open(bytes, file: file, limits: limits)
                let tree = resolver.resolve(screen, pack: pack)
                if tree.root.children.isEmpty { throw SDUIError(.schema, "the first screen resolved to nothing") }
            case .jansson:
                if sdui_bench_jansson_parse(base, raw.count, rawBytes) < 0 {
                    throw SDUIError(.json, "jansson could not parse the pack")
                }
            case .simdjson, .simdjsonOndemand:
                var out: UnsafeMutablePointer<CChar>?
                let n = sdui_bench_libdeflate_inflate(base, raw.count, rawBytes, &out)
                defer { free(out) }
                guard n >= 0, let out else { throw SDUIError(.gzip, "libdeflate could not inflate the pack") }
                let r = method == .simdjson ? sdui_bench_simdjson_parse(out, Int(n))
                    : sdui_bench_simdjson_first_tokens(out, Int(n), screen.tokens.count)
                if r < 0 { throw SDUIError(.json, "simdjson could not parse the pack") }
            case .jsondecoder:
                let doc = try JSONDecoder().decode(PackDocument.self, from: try inflate(base, raw.count, rawBytes))
                if doc.tokens.isEmpty { throw SDUIError(.schema, "no tokens decoded") }
            case .jsonserialization:
                let obj = try JSONSerialization.jsonObject(with: try inflate(base, raw.count, rawBytes))
                guard let d = obj as? [String: Any], d["tokens"] is [Any] else {
                    throw SDUIError(.schema, "no tokens array")
                }
            }
        }
    }

    /// zlib-inflated bytes as Data without a copy.
    private static func inflate(_ base: UnsafeRawPointer, _ count: Int, _ hint: Int) throws -> Data {
        var out: UnsafeMutablePointer<CChar>?
        let n = sdui_bench_zlib_inflate(base, count, hint, &out)
        guard n >= 0, let out else { throw SDUIError(.gzip, "could not inflate the pack") }
        return Data(bytesNoCopy: out, count: Int(n), deallocator: .free)
    }

    /// Median milliseconds of each case over `rounds` rounds.  The cases
    /// take turns (round-robin), so drift on a shared machine hits all
    /// alike; and each timed run follows an untimed run of the same case,
    /// so no case pays for the memory state another left behind (the
    /// allocator handing back or reusing a large buffer).  A case stops
    /// being timed after `maxSeconds` in all (at least 3 runs).
    public func measure(rounds: Int, cases: [Case], maxSeconds: Double = 20) throws -> [Case: Double] {
        try measureWithCPU(rounds: rounds, cases: cases, maxSeconds: maxSeconds).mapValues(\.ms)
    }

    /// A case's medians: wall time, and the process's CPU time over the
    /// same runs divided by it.  The open is the only work in the process
    /// while it runs, so above 1 is the split scan's second thread working
    /// at the same time as the first, on a core of its own; near 1 with
    /// two threads started means they took turns on one core.
    public struct Timing: Sendable, Codable {
        public var ms: Double
        public var cpuPerWall: Double
    }

    /// ``measure(rounds:cases:maxSeconds:)`` with each case's CPU time.
    public func measureWithCPU(rounds: Int, cases: [Case], maxSeconds: Double = 20) throws -> [Case: Timing] {
        var samples: [Case: [Double]] = [:]
        var ratios: [Case: [Double]] = [:]
        var spent: [Case: Double] = [:]
        for round in 0..<rounds {
            for c in cases {
                if round >= 3 && spent[c, default: 0] > maxSeconds * 1000 { continue }
                try runOnce(c)   // the warm-up run
                let cpu0 = sdui_bench_process_cpu_ns(), t0 = sdui_bench_monotonic_ns()
                try runOnce(c)
                let t1 = sdui_bench_monotonic_ns(), cpu1 = sdui_bench_process_cpu_ns()
                let ms = Double(t1 - t0) / 1e6
                samples[c, default: []].append(ms)
                ratios[c, default: []].append(Double(cpu1 - cpu0) / Double(max(1, t1 - t0)))
                spent[c, default: 0] += ms
            }
        }
        return samples.mapValues { Self.median($0) }.reduce(into: [:]) { out, kv in
            out[kv.key] = Timing(ms: kv.value, cpuPerWall: Self.median(ratios[kv.key] ?? []))
        }
    }

    /// What one run in a fresh process cost, as that process saw it.
    public struct Probe: Sendable, Codable {
        /// Wall time of the run, in milliseconds.
        public var ms: Double
        /// Minor page faults during the run (getrusage).
        public var minorFaults: Int
        /// The process's peak resident set after the run, in bytes (VmHWM).
        public var peakBytes: Int
        /// The peak less the resident set just before the run, in bytes.
        public var growthBytes: Int
    }

    /// Runs `c` once and reports its time, faults and memory.  Meaningful
    /// as the first run of a fresh process (see `sdui bench first-paint`).
    public func probe(_ c: Case) throws -> Probe {
        let rss = sdui_bench_rss_bytes()
        let faults = sdui_bench_minor_faults()
        let t0 = sdui_bench_monotonic_ns()
        try runOnce(c)
        let t1 = sdui_bench_monotonic_ns()
        let faults1 = sdui_bench_minor_faults()
        let peak = sdui_bench_peak_rss_bytes()
        return Probe(ms: Double(t1 - t0) / 1e6, minorFaults: Int(faults1 - faults),
                     peakBytes: Int(peak), growthBytes: Int(max(0, peak - rss)))
    }

    /// Pins this process, its threads and the processes it starts, to
    /// `n` cores (n <= 0: leaves it); the cores it may now use.
    ///
    /// - Throws: ``SDUIError`` `.io` when the system refuses.
    @discardableResult
    public static func pin(cores n: Int) throws -> Int {
        let kept = sdui_bench_pin_cpus(Int32(clamping: n))
        guard kept >= 0 else {
            throw SDUIError(.io, "cannot pin the benchmark to \(n) core(s): \(String(cString: strerror(errno)))")
        }
        return Int(kept)
    }

    /// The cores this process may run on.
    public static var usableCores: Int { (try? pin(cores: 0)) ?? ProcessInfo.processInfo.activeProcessorCount }

    /// The median of `xs` (the mean of the middle two for an even count).
    public static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// The median of a list of whole numbers.
    public static func median(_ xs: [Int]) -> Double { median(xs.map(Double.init)) }
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
    var props: [String: CodableJSON]
}

/// The Codable peer's JSON value (its own, as an app using Codable would write).
indirect enum CodableJSON: Decodable {
    case null, bool(Bool), number(Double), string(String)
    case array([CodableJSON]), object([String: CodableJSON])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([CodableJSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: CodableJSON].self)) }
    }
}
#endif
