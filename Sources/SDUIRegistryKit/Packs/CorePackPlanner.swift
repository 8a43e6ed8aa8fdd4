// CorePackPlanner.swift - ranks tokens by usage and builds the Core-Token Pack within its budget.
import Foundation
import SDUI

/// Ranks tokens by usage and keeps the largest top slice that fits the
/// budget:
///
/// 1. every candidate is checked (the design-token schema as the C core
///    checks it, the 32 KB limit, and image URLs when a policy is given);
///    any failure stops the build with a report naming each token;
/// 2. candidates are ranked by usage count, highest first, ties by id;
///    tokens without telemetry come last;
/// 3. the slice size is found by binary search over gzipped packs (gzip
///    size does not add up token by token), so the pack written is the
///    largest top-N whose gzip size is within the budget; a seekable pack
///    (``seekable``) is measured as written, members and tables included;
/// 4. against a previous pack, a size change of more than `maxDeltaBytes`
///    (either way) fails the build (the CI gate).
public struct CorePackPlanner: Sendable {
    /// The largest gzipped pack allowed, in bytes (default 600,000).
    public var budgetBytes = 600_000
    /// The largest change in pack size against a previous pack, either way,
    /// in bytes (default 200,000).
    public var maxDeltaBytes = 200_000
    /// gzip level of the pack, 0 to 12 (libdeflate's scale).
    public var gzipLevel = 12
    /// When set, every candidate's image URLs must satisfy it; nil (the
    /// default) checks no image URLs.
    public var imagePolicy: ImageURLPolicy?
    /// The limits candidates are checked against and the pack is built with
    /// (default `PackLimits.default`).
    public var limits: PackLimits = .default
    /// When set, the pack is written seekable by this writer (several gzip
    /// members with an id table) instead of as one gzip member, and the
    /// budget is measured on that encoding: the size checked is the size of
    /// the file written.  `gzipLevel` is then unused (the writer has its
    /// own level).  Default nil: one member.
    public var seekable: SeekablePackWriter?
    /// A bundle of string catalogs (``StringBundleWriter``) the pack and
    /// the Fallback Pack carry as their `strings` member (`sdui pack build
    /// --locales`); counted in the budget like the tokens.
    public var strings: Data?

    /// A planner with the defaults: a 600,000-byte budget, a 200,000-byte
    /// delta gate, gzip level 12, no image policy, the default limits.
    public init() {}

    /// Builds the pack from `candidates` ranked by `usage`.
    ///
    /// `usage` nil ranks every token by id alone.  `previous`, the last
    /// gzipped pack, turns on the size-change gate.
    ///
    /// - Throws: ``RegistryError`` `.gate` when any candidate fails its
    ///   checks (every one is listed), when not even an empty pack or the
    ///   first token fits ``budgetBytes``, when there is no candidate, or
    ///   when the size changes by more than ``maxDeltaBytes``; `SDUIError`
    ///   when a candidate cannot be minified or compressed.
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
        // Every token is minified once; each step of the search compresses a
        // prefix in the encoding written, the tokens in rank order.
        var all = CorePackBuilder(limits: limits)
        if let strings { all.members = Data(#""strings":"#.utf8) + strings + Data(",".utf8) }
        for (c, _) in ranked { try all.add(json: c.json, source: c.id) }
        func pack(_ n: Int) throws -> (Data, Int) {
            let document = all.document(prefix: n)
            if let seekable {
                return (try seekable.write(document, source: "the pack of the first \(n) tokens"), document.count)
            }
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
}
