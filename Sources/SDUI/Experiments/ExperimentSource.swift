// ExperimentSource.swift - where the app gets the experiments it assigns
// with: the registry when it answers, else the last list kept in the disk
// cache, else the Fallback Pack.  Assignment is a function of the user's
// attributes and the definitions, so an app offline assigns exactly as the
// registry would with the same definitions.
import Foundation
import SDUICore

/// Finds the experiments an app assigns with (see the file's essay).
///
/// The list is revalidated with its ETag and kept in the disk cache under
/// the path `/experiments` (the rule all kept documents follow:
/// `KeptCopy`).  When the registry cannot be reached or answers badly, the
/// kept list is used, then the Fallback Pack's.
public struct ExperimentSource: Sendable {
    /// Where a list came from.
    public enum Origin: String, Sendable, Hashable {
        /// `GET /experiments` answered 200 or 304.
        case registry
        /// The list kept in the disk cache.
        case diskCache = "disk-cache"
        /// The Fallback Pack's `experiments`.
        case fallbackPack = "fallback-pack"
        /// None anywhere: no experiments.
        case none
    }

    /// What ``load(now:)`` found.
    public struct Loaded: Sendable {
        /// The experiments, ready to assign (a definition whose audience
        /// does not compile is left out and named in ``problems``).
        public var assigners: [ExperimentAssigner]
        /// Where they came from.
        public var origin: Origin
        /// Why a better source was not used, and definitions left out.
        public var problems: [String]
    }

    /// The disk-cache key of the kept list.
    public static let cacheKey = "/experiments"

    /// The registry (nil: offline by design).
    public let transport: (any RegistryTransport)?
    /// Where the list is kept between runs.
    public let disk: DiskCache?
    /// The list shipped with the app.
    public let fallbackPack: FallbackPack?

    /// A source over the registry, the disk cache and the Fallback Pack,
    /// each optional.
    public init(transport: (any RegistryTransport)?, disk: DiskCache? = nil, fallbackPack: FallbackPack? = nil) {
        self.transport = transport
        self.disk = disk
        self.fallbackPack = fallbackPack
    }

    /// The experiments from the best source that has them.
    public func load(now: Date = Date()) async -> Loaded {
        let found = await KeptCopy<ExperimentList>(key: Self.cacheKey, disk: disk, noun: "list")
            .revalidate(now: now, fetch: transport.map { t in { try await t.fetchExperiments(ifNoneMatch: $0).list } })
        if let list = found.document {
            return Self.ready(list.experiments, found.origin == .registry ? .registry : .diskCache, found.problems)
        }
        if let pack = fallbackPack, !pack.experiments.isEmpty {
            return Self.ready(pack.experiments, .fallbackPack, found.problems)
        }
        return Loaded(assigners: [], origin: .none, problems: found.problems)
    }

    /// The assigners of `experiments`, those that compile.
    static func ready(_ experiments: [Experiment], _ origin: Origin, _ problems: [String]) -> Loaded {
        var problems = problems
        var out: [ExperimentAssigner] = []
        for e in experiments {
            do { out.append(try ExperimentAssigner(e)) } catch {
                problems.append("experiment \"\(e.key)\" left out: \(error)")
            }
        }
        return Loaded(assigners: out, origin: origin, problems: problems)
    }
}
