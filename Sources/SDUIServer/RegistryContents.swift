// RegistryContents.swift - the whole registry read at once, for tools (list, pack build).
#if Server
import Foundation
import Logging
import SDUI

/// Every token version and screen in a store, parsed, as tools need them:
/// `sdui registry list` and the pack builder.
public struct RegistryContents: Sendable {
    let snapshot: RegistrySnapshot

    /// Reads everything from `store`.
    public static func load(_ store: any RegistryStore, logger: Logger = Logger(label: "sdui.registry")) async throws -> RegistryContents {
        let changes = try await store.changes(after: 0)
        let generation = try await store.generation()
        return RegistryContents(snapshot: RegistrySnapshot().applying(changes, generation: generation,
                                                                       signer: nil, logger: logger))
    }

    /// Token ids, sorted.
    public var ids: [String] { snapshot.tokens.keys.sorted() }

    /// The versions of `id`, highest first.
    public func versions(of id: String) -> [StoredToken] { snapshot.tokens[id]?.map(\.stored) ?? [] }

    /// The highest version of `id` a client with `primitives` can draw.
    public func best(_ id: String, for primitives: PrimitiveMap) -> StoredToken? {
        snapshot.best(id, for: primitives)?.stored
    }

    /// The pack builder's candidates: each id's best version for `primitives`.
    public func packCandidates(for primitives: PrimitiveMap) -> [PackCandidate] {
        ids.compactMap { id in best(id, for: primitives).map { PackCandidate(id: id, version: $0.version, json: $0.json) } }
    }

    /// Screens by id.
    public var screens: [String: StoredScreen] { snapshot.screens.mapValues(\.stored) }

    /// Flows by id.
    public var flows: [String: StoredFlow] { snapshot.flows.mapValues(\.stored) }

    /// Experiment definitions by key (every status).
    public var experiments: [String: Experiment] { snapshot.experiments.mapValues(\.experiment) }

    /// The running experiments' stored definitions, by key: what `GET
    /// /experiments` serves and a Fallback Pack carries.
    public var runningExperiments: [StoredExperiment] { snapshot.runningExperiments.map(\.stored) }

    /// The newest string catalog of each locale, as stored.
    public var catalogs: [String: Data] { snapshot.strings.catalogs.mapValues(\.json) }

    /// The default locale of the catalogs (nil when none is marked).
    public var defaultLocale: String? { snapshot.strings.defaultLocale }

    /// The screens (with their token ids) and tokens (the newest version of
    /// each) an experiment's variations are checked against.
    public var experimentCatalog: ExperimentCatalog {
        var catalog = ExperimentCatalog()
        for (id, s) in snapshot.screens { catalog.screens[id] = s.tokenIDs }
        for (id, versions) in snapshot.tokens {
            if let newest = versions.first, let token = try? DesignToken(json: newest.stored.json, source: id) {
                catalog.tokens[id] = token
            }
        }
        return catalog
    }

    /// The registry's sequence number when it was read.
    public var generation: Int64 { snapshot.generation }
}
#endif
