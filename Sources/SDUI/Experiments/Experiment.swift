// Experiment.swift - an experiment's definition (schemas/experiment.json):
// its variations and what each changes, and how users are split between
// them; read from JSON with every fault named by its JSON path.
import Foundation
internal import CSDUI
import SDUICore

/// An experiment: a key, two or more variations, and the split.
///
/// The split follows GrowthBook's SDK specification (see
/// `include/sdui/experiment.h`): weights, coverage, namespace, hash
/// attribute (with a fallback), hash version and seed; `audience` is an
/// expression of the project's language over the user's attributes.
/// `phase` starts a new assignment: sticky assignments kept from an earlier
/// phase are not used.
public struct Experiment: Sendable, Hashable {
    /// The experiment's state: only a running one enrols anyone.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case draft, running, stopped
    }

    /// A namespace: the users whose hash of the namespace's id falls in [start, end).
    public struct Namespace: Sendable, Hashable {
        /// The namespace's id (the seed of its hash).
        public var id: String
        /// Where this experiment's share of the namespace starts, 0 to 1.
        public var start: Double
        /// Where it ends (exclusive), start to 1.
        public var end: Double

        /// A namespace from its parts.
        public init(id: String, start: Double, end: Double) {
            self.id = id
            self.start = start
            self.end = end
        }
    }

    /// One variation and what it changes for the users it gets.
    public struct Variation: Sendable, Hashable {
        /// Its id (`control`, `green_cta`).
        public var id: String
        /// Screens shown instead of others: `{"checkout": "checkout_b"}`.
        public var screens: [String: String]
        /// Tokens used instead of others.
        public var tokens: [String: String]
        /// Store values set for its users.
        public var store: [String: JSONValue]

        /// A variation from its parts.
        public init(id: String, screens: [String: String] = [:], tokens: [String: String] = [:],
                    store: [String: JSONValue] = [:]) {
            self.id = id
            self.screens = screens
            self.tokens = tokens
            self.store = store
        }
    }

    /// The experiment's key (the seed when no `seed` is given).
    public var key: String
    /// The variations; the first is control.
    public var variations: [Variation]
    /// The share of each variation (nil: equal).
    public var weights: [Double]?
    /// The share of users enrolled at all, 0 to 1.
    public var coverage: Double
    /// The namespace it shares with other experiments, if any.
    public var namespace: Namespace?
    /// The attribute users are hashed by (`id`).
    public var hashAttribute: String
    /// The attribute used when the first is missing or empty.
    public var fallbackAttribute: String?
    /// 1 or 2.
    public var hashVersion: Int
    /// The hash's seed; nil: the key.
    public var seed: String?
    /// Who may be enrolled: an expression over the attributes; nil: everyone.
    public var audience: String?
    /// Draft, running or stopped.
    public var status: Status
    /// The assignment phase (1, 2, …).
    public var phase: Int

    /// The most variations an experiment may have.
    public static let maxVariations = 64

    /// An experiment from its parts.  Defaults: equal weights, full
    /// coverage, hashed by `id` with hash version 2 (the specification's
    /// unbiased one; its own default, for a definition that names none, is
    /// 1, so a definition moved from it names its version), running, phase 1.
    public init(key: String, variations: [Variation], weights: [Double]? = nil, coverage: Double = 1,
                namespace: Namespace? = nil, hashAttribute: String = "id", fallbackAttribute: String? = nil,
                hashVersion: Int = 2, seed: String? = nil, audience: String? = nil, status: Status = .running,
                phase: Int = 1) {
        self.key = key
        self.variations = variations
        self.weights = weights
        self.coverage = coverage
        self.namespace = namespace
        self.hashAttribute = hashAttribute
        self.fallbackAttribute = fallbackAttribute
        self.hashVersion = hashVersion
        self.seed = seed
        self.audience = audience
        self.status = status
        self.phase = phase
    }

    /// Reads a definition from JSON text.
    ///
    /// - Throws: `SDUIError` `.json` when it does not parse, `.schema` naming
    ///   the JSON path of the first fault (`$.weights: …`) and `source`.
    public init(json data: Data, source: String? = nil) throws {
        try self.init(value: try JSONValue(json: data, source: source), source: source)
    }

    /// Reads a definition from a parsed value (see ``init(json:source:)``).
    public init(value: JSONValue, source: String? = nil) throws {
        let reader = Reader(source: source)
        guard case .object(let o) = value else { throw reader.fault("$", "an experiment is a JSON object") }
        try reader.allowOnly(o, ["key", "variations", "weights", "coverage", "namespace", "hashAttribute",
                                 "fallbackAttribute", "hashVersion", "seed", "audience", "status", "phase"], at: "$")
        key = try reader.text(o["key"], "$.key")
        guard case .array(let items)? = o["variations"] else {
            throw reader.fault("$.variations", "variations is an array of 2 to \(Self.maxVariations) variations")
        }
        guard items.count >= 2, items.count <= Self.maxVariations else {
            throw reader.fault("$.variations", "an experiment has 2 to \(Self.maxVariations) variations, not \(items.count)")
        }
        var seen: Set<String> = []
        variations = try items.enumerated().map { i, item in
            let at = "$.variations[\(i)]"
            guard case .object(let v) = item else { throw reader.fault(at, "a variation is an object") }
            try reader.allowOnly(v, ["id", "screens", "tokens", "store"], at: at)
            let id = try reader.text(v["id"], at + ".id")
            guard seen.insert(id).inserted else { throw reader.fault(at + ".id", "variation \"\(id)\" is listed twice") }
            return Variation(id: id, screens: try reader.names(v["screens"], at + ".screens"),
                             tokens: try reader.names(v["tokens"], at + ".tokens"),
                             store: try reader.object(v["store"], at + ".store"))
        }
        if let w = o["weights"] {
            guard case .array(let list) = w, list.count == items.count else {
                throw reader.fault("$.weights", "weights is an array of one number per variation (\(items.count))")
            }
            let numbers = try list.enumerated().map { i, n -> Double in
                guard let d = n.doubleValue, d.isFinite, d >= 0 else {
                    throw reader.fault("$.weights[\(i)]", "a weight is a number from 0 to 1")
                }
                return d
            }
            let sum = numbers.reduce(0, +)
            guard sum >= 0.99, sum <= 1.01 else {
                throw reader.fault("$.weights", "the weights sum to \(JSONValue.text(sum)), not 1")
            }
            weights = numbers
        } else {
            weights = nil
        }
        coverage = try reader.unit(o["coverage"], "$.coverage") ?? 1
        if let n = o["namespace"] {
            guard case .array(let parts) = n, parts.count == 3, let id = parts[0].stringValue, !id.isEmpty,
                  let start = parts[1].doubleValue, let end = parts[2].doubleValue,
                  start >= 0, start <= end, end <= 1 else {
                throw reader.fault("$.namespace", "a namespace is [id, start, end] with 0 <= start <= end <= 1")
            }
            namespace = Namespace(id: id, start: start, end: end)
        } else {
            namespace = nil
        }
        hashAttribute = try o["hashAttribute"].map { try reader.text($0, "$.hashAttribute") } ?? "id"
        fallbackAttribute = try o["fallbackAttribute"].map { try reader.text($0, "$.fallbackAttribute") }
        hashVersion = try o["hashVersion"].map { v -> Int in
            guard let n = v.intValue, n == 1 || n == 2 else { throw reader.fault("$.hashVersion", "hashVersion is 1 or 2") }
            return Int(n)
        } ?? 2
        seed = try o["seed"].map { try reader.text($0, "$.seed") }
        if let a = o["audience"] {
            let text = try reader.text(a, "$.audience")
            do { _ = try CompiledExpression(text) } catch let e as SDUIError {
                throw reader.fault("$.audience", "the audience does not compile: \(e.message)")
            }
            audience = text
        } else {
            audience = nil
        }
        status = try o["status"].map { v -> Status in
            guard let s = v.stringValue, let status = Status(rawValue: s) else {
                throw reader.fault("$.status", "status is draft, running or stopped")
            }
            return status
        } ?? .draft
        phase = try o["phase"].map { v -> Int in
            guard let n = v.intValue, n >= 1, n <= Int64(Int32.max) else { throw reader.fault("$.phase", "phase is an integer >= 1") }
            return Int(n)
        } ?? 1
    }

    /// Reads members and says where a fault is.
    struct Reader {
        let source: String?

        /// A schema error at `path`.
        func fault(_ path: String, _ message: String) -> SDUIError {
            SDUIError(.schema, "\(path): \(message)", input: source)
        }

        /// Refuses members other than `names`.
        func allowOnly(_ o: [String: JSONValue], _ names: Set<String>, at path: String) throws {
            if let extra = o.keys.sorted().first(where: { !names.contains($0) }) {
                throw fault(path, "unknown member \"\(extra)\"")
            }
        }

        /// A non-empty string of at most 256 bytes.
        func text(_ v: JSONValue?, _ path: String) throws -> String {
            guard let s = v?.stringValue, !s.isEmpty, s.utf8.count <= 256 else {
                throw fault(path, "a non-empty string of at most 256 bytes")
            }
            return s
        }

        /// An object of ids to ids (absent: empty).
        func names(_ v: JSONValue?, _ path: String) throws -> [String: String] {
            guard let v else { return [:] }
            guard case .object(let o) = v else { throw fault(path, "an object of ids to ids") }
            var out: [String: String] = [:]
            for (k, value) in o {
                guard !k.isEmpty, k.utf8.count <= 256 else { throw fault(path, "an id is 1 to 256 bytes") }
                out[k] = try text(value, "\(path).\(k)")
            }
            return out
        }

        /// An object (absent: empty).
        func object(_ v: JSONValue?, _ path: String) throws -> [String: JSONValue] {
            guard let v else { return [:] }
            guard case .object(let o) = v else { throw fault(path, "an object of store keys to values") }
            for k in o.keys where (try? KeyPath(k)) == nil { throw fault("\(path).\(k)", "not a store key path") }
            return o
        }

        /// A number from 0 to 1 (absent: nil).
        func unit(_ v: JSONValue?, _ path: String) throws -> Double? {
            guard let v else { return nil }
            guard let d = v.doubleValue, d.isFinite, d >= 0, d <= 1 else { throw fault(path, "a number from 0 to 1") }
            return d
        }
    }
}

extension Experiment {
    /// Whether no variation replaces a screen or a token: an experiment of
    /// store values alone, which takes part in every screen (its values
    /// apply wherever the user is).
    public var changesOnlyStore: Bool {
        variations.allSatisfy { $0.screens.isEmpty && $0.tokens.isEmpty }
    }

    /// Whether screen `id` takes part before its tokens are known: a
    /// variation replaces it, or the experiment changes only store values.
    /// The app (`ExperimentScreens`) and the registry pick a screen's
    /// experiments by this and ``replaces(anyOf:)``.
    public func takesPart(screen id: String) -> Bool {
        changesOnlyStore || variations.contains { $0.screens[id] != nil }
    }

    /// Whether a variation replaces one of `tokens` (the tokens of the
    /// screen drawn).
    public func replaces(anyOf tokens: Set<String>) -> Bool {
        variations.contains { !Set($0.tokens.keys).isDisjoint(with: tokens) }
    }
}

extension Experiment {
    /// The share of each variation as assignment uses it, summing to 1: the
    /// widths of the bucket ranges the C core draws at full coverage
    /// (`sdui_experiment_bucket_ranges`, with the specification's rule for
    /// bad weights: equal weights), scaled to sum to 1.  What the report
    /// and the registry's sample-ratio metrics compare counts with.
    public var effectiveWeights: [Double] {
        let n = variations.count
        guard n > 0 else { return [] }
        var ranges = [sdui_range](repeating: sdui_range(), count: n)
        if let w = weights {
            w.withUnsafeBufferPointer { sdui_experiment_bucket_ranges(n, 1, $0.baseAddress, $0.count, &ranges) }
        } else {
            sdui_experiment_bucket_ranges(n, 1, nil, 0, &ranges)
        }
        let widths = ranges.map { $0.end - $0.start }
        let sum = widths.reduce(0, +)
        return sum > 0 ? widths.map { $0 / sum } : Array(repeating: 1 / Double(n), count: n)
    }
}
