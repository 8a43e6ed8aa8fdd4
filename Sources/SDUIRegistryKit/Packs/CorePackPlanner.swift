// CorePackPlanner.swift - builds the Core-Token Pack, its manifest and the Fallback Pack (seed 000 S-5, §8, §11).
import Foundation
import SDUI

/// Usage telemetry: how often each token was shown in a period.
///
/// File format (`sdui pack build --usage FILE`), either
/// - JSON: `{"format": "sdui-usage/1", "period": "2026-W46", "counts": {"promo_banner": 18234, …}}`
///   (`format` and `period` optional), or
/// - CSV: one `token_id,count` per line; blank lines and lines starting with `#` are skipped.
///
/// Counts are non-negative integers; an id may appear once.
public struct UsageTelemetry: Sendable, Equatable {
    public var counts: [String: Int]
    public var period: String?

    public init(counts: [String: Int], period: String? = nil) {
        self.counts = counts
        self.period = period
    }

    /// Reads a telemetry file; errors name the file and the line or key.
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try FileInput.read(url.path, limit: FileInput.documentLimit) } catch let e as SDUIError {
            throw RegistryError(e.category == .limit ? .invalid : .notFound, "usage telemetry: \(e.message)",
                                subject: url.path)
        }
        try self.init(data: data, source: url.path)
    }

    public init(data: Data, source: String) throws {
        let text = String(decoding: data, as: UTF8.self)
        if text.drop(while: { $0.isWhitespace }).first == "{" {
            guard let root = try? JSONDecoder().decode([String: JSONValue].self, from: data),
                  let counts = root["counts"]?.objectValue else {
                throw RegistryError(.invalid, "expected {\"counts\": {\"token_id\": count, …}}", subject: source)
            }
            var out: [String: Int] = [:]
            for (id, v) in counts {
                guard let n = v.intValue, n >= 0 else {
                    throw RegistryError(.invalid, "counts.\(id) must be an integer ≥ 0", subject: source)
                }
                out[id] = Int(n)
            }
            self.init(counts: out, period: root["period"]?.stringValue)
            return
        }
        var out: [String: Int] = [:]
        // Lines split on LF bytes: "\r\n" is one Character, so a CRLF file
        // would not split on Character "\n".
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (i, rawBytes) in lines.enumerated() {
            let line = String(decoding: rawBytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let n = Int(parts[1].trimmingCharacters(in: .whitespaces)), n >= 0 else {
                throw RegistryError(.invalid, "line \(i + 1): expected token_id,count", subject: source)
            }
            let id = parts[0].trimmingCharacters(in: .whitespaces)
            guard out[id] == nil else { throw RegistryError(.invalid, "line \(i + 1): \(id) appears twice", subject: source) }
            out[id] = n
        }
        self.init(counts: out)
    }
}

/// One token the planner may put in the pack.
public struct PackCandidate: Sendable, Equatable {
    public var id: String
    public var version: Int
    public var json: Data

    public init(id: String, version: Int, json: Data) {
        self.id = id
        self.version = version
        self.json = json
    }
}

/// What a build produced.
public struct CorePackBuild: Sendable {
    /// The gzipped pack.
    public var pack: Data
    /// The manifest (S-5), as written next to the pack.
    public var manifest: Manifest

    public struct Manifest: Codable, Sendable, Equatable {
        public struct Entry: Codable, Sendable, Equatable {
            public var id: String
            public var version: Int
            public var etag: String
            public var bytes: Int
            public var usage: Int
        }
        public var formatVersion = 1
        public var budgetBytes: Int
        public var packBytes: Int
        /// packBytes / budgetBytes.
        public var budgetUsed: Double
        public var rawBytes: Int
        public var candidates: Int
        public var tokens: [Entry]
        public var usagePeriod: String?
        public var previousPackBytes: Int?
        public var deltaBytes: Int?
    }
}

/// Ranks tokens by usage and keeps the largest top slice that fits the
/// budget (seed 000 §8):
///
/// 1. every candidate is checked (the design-token schema as the C core
///    checks it, the 32 KB limit, and image URLs when a policy is given);
///    any failure stops the build with a report naming each token;
/// 2. candidates are ranked by usage count, highest first, ties by id;
///    tokens without telemetry come last;
/// 3. the slice size is found by binary search over gzipped packs (gzip
///    size does not add up token by token), so the pack written is the
///    largest top-N whose gzip size is within the budget;
/// 4. against a previous pack, a size change of more than `maxDeltaBytes`
///    (either way) fails the build (the CI gate).
public struct CorePackPlanner: Sendable {
    public var budgetBytes = 600_000
    public var maxDeltaBytes = 200_000
    /// gzip level of the pack, 0 to 12 (libdeflate's scale).
    public var gzipLevel = 12
    public var imagePolicy: ImageURLPolicy?
    public var limits: PackLimits = .default

    public init() {}

    /// Builds the pack from `candidates` ranked by `usage`.
    public func build(_ candidates: [PackCandidate], usage: UsageTelemetry?, previous: Data? = nil) throws -> CorePackBuild {
        var problems: [String] = []
        var checked: [(PackCandidate, DesignToken)] = []
        let policy = TokenPolicy(limits: limits, imagePolicy: imagePolicy)
        for c in candidates {
            switch policy.admit(c.json, source: c.id) {
            case .success(let t):
                checked.append((c, t))
            case .failure(let error):
                // The gate's report has two kinds: size, and the rest as "schema".
                problems.append("\(c.id)@\(c.version): \(error.rule == .size ? "size" : "schema"): \(error.error.message)")
            }
        }
        guard problems.isEmpty else {
            throw RegistryError(.gate, "\(problems.count) invalid token(s):\n  " + problems.joined(separator: "\n  "))
        }
        let counts = usage?.counts ?? [:]
        let ranked = checked.sorted { a, b in
            let (ca, cb) = (counts[a.0.id] ?? -1, counts[b.0.id] ?? -1)
            return ca != cb ? ca > cb : a.0.id < b.0.id
        }
        // Every token is minified once; each step of the search gzips a prefix.
        var all = CorePackBuilder(limits: limits)
        for (c, _) in ranked { try all.add(json: c.json, source: c.id) }
        func pack(_ n: Int) throws -> (Data, Int) {
            let document = all.document(prefix: n)
            return (try CorePackBuilder.gzip(document, level: gzipLevel), document.count)
        }
        var (best, raw) = try pack(0)
        guard best.count <= budgetBytes else {
            throw RegistryError(.gate, "even an empty pack is \(best.count) bytes, over the \(budgetBytes)-byte budget")
        }
        // The largest n whose pack fits: pack(lo) fits, pack(hi) does not
        // (hi = count + 1 stands for "past the last token").
        var lo = 0, hi = ranked.count + 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            let candidate = try pack(mid)
            if candidate.0.count <= budgetBytes { lo = mid; (best, raw) = candidate } else { hi = mid }
        }
        let count = lo
        guard count > 0 || ranked.isEmpty else {
            throw RegistryError(.gate, "no token fits the \(budgetBytes)-byte budget: the first by usage, "
                                + "\(ranked[0].0.id), makes a pack of \(try pack(1).0.count) bytes")
        }
        guard count > 0 else { throw RegistryError(.gate, "no token to pack: the build selected none") }
        do {
            try CorePackBuilder.verify(best, tokens: count, limits: limits, source: "the built pack")
        } catch let e as SDUIError {
            throw RegistryError(.gate, e.message)
        }
        let entries = ranked.prefix(count).map { c, t in
            CorePackBuild.Manifest.Entry(id: c.id, version: t.version, etag: ETag.of(json: c.json),
                                         bytes: c.json.count, usage: counts[c.id] ?? 0)
        }
        var manifest = CorePackBuild.Manifest(budgetBytes: budgetBytes, packBytes: best.count,
                                              budgetUsed: Double(best.count) / Double(max(budgetBytes, 1)),
                                              rawBytes: raw, candidates: candidates.count, tokens: entries,
                                              usagePeriod: usage?.period)
        if let previous {
            manifest.previousPackBytes = previous.count
            manifest.deltaBytes = best.count - previous.count
            guard abs(best.count - previous.count) <= maxDeltaBytes else {
                throw RegistryError(.gate, "the pack is \(best.count) bytes against \(previous.count) before: "
                                    + "a change of \(best.count - previous.count) bytes, over the \(maxDeltaBytes)-byte gate")
            }
        }
        return CorePackBuild(pack: best, manifest: manifest)
    }

    /// A Fallback Pack (§11): for each critical screen, its fallback screen
    /// (or the screen itself when it names none) with `fallbackFor` set,
    /// plus every token those screens use.
    public func fallbackPack(critical: [String], screens: [String: StoredScreen],
                             tokens: (String) -> PackCandidate?) throws -> Data {
        var builder = CorePackBuilder(limits: limits)
        var added = Set<String>()
        var embedded: [JSONValue] = []
        for id in critical {
            guard let screen = screens[id] else { throw RegistryError(.notFound, "no screen \"\(id)\"", subject: id) }
            let shown = screen.fallbackScreenID.flatMap { screens[$0] } ?? screen
            guard case .object(var doc) = try JSONDecoder().decode(JSONValue.self, from: shown.payload) else {
                throw RegistryError(.invalid, "screen is not an object", subject: shown.id)
            }
            doc["fallbackFor"] = .string(id)
            doc["fallbackScreenId"] = nil
            embedded.append(.object(doc))
            let payload = try ScreenPayload(json: shown.payload, source: shown.id)
            for item in payload.tokens where added.insert(item.id).inserted {
                guard let t = tokens(item.id) else {
                    throw RegistryError(.notFound, "screen \(shown.id) uses \(item.id), which no version serves", subject: item.id)
                }
                _ = try builder.add(json: t.json, source: t.id)
            }
        }
        // The pack document with the "screens" member the C core skips.
        var doc = builder.document()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let screensJSON = try encoder.encode(embedded)
        guard doc.first == UInt8(ascii: "{") else { throw RegistryError(.invalid, "unexpected pack document") }
        doc.insert(contentsOf: Data("\"screens\":".utf8) + screensJSON + Data(",".utf8), at: doc.startIndex + 1)
        let pack = try CorePackBuilder.gzip(doc, level: gzipLevel)
        do {
            try CorePackBuilder.verify(pack, tokens: builder.ids.count, limits: limits, source: "the Fallback Pack")
            _ = try FallbackPack(pack: CorePack(data: pack, name: "the Fallback Pack", limits: limits))
        } catch let e as SDUIError {
            throw RegistryError(.gate, e.message)
        }
        return pack
    }
}
