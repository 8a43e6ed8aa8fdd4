// RegistryStore.swift - where the registry keeps token versions and screens.
#if Server
import Foundation

/// A registry store: embedded SQLite (``SQLiteRegistryStore``) for one
/// server, PostgreSQL (``PostgresRegistryStore``) for a fleet of stateless
/// servers sharing one database.
///
/// A published (id, version) never changes.  Every write takes the next
/// value of one registry-wide sequence, and writes are serialised, so a
/// reader that has seen sequence `n` finds everything newer with
/// ``changes(after:)``; servers keep an in-memory snapshot and apply those
/// changes (see `RegistrySnapshot`).
public protocol RegistryStore: Sendable {
    /// Creates the tables when they are missing and upgrades older ones to
    /// ``RegistrySchema/version``; refuses a schema newer than this build's.
    func migrate() async throws
    /// Checks, without changing anything, that the tables are there at
    /// ``RegistrySchema/version``: what a server that does not migrate
    /// (``RegistryServerConfiguration/migrate`` false) does at start.
    /// Throws a `.store` ``RegistryError`` saying what to do when they are
    /// missing or older (run `sdui registry migrate`) or newer (upgrade).
    func verifySchema() async throws
    /// Deletes the stored events received before `cutoff` (nil: none by
    /// age), then all but the newest `keep` (nil: none by count), in
    /// batches of bounded size; returns how many were deleted
    /// (``EventRetention``).
    func pruneEvents(receivedBefore cutoff: Date?, keepingNewest keep: Int?) async throws -> Int
    /// Publishes token versions in one transaction.  A version already
    /// stored with the same JSON is skipped; with other JSON it is a
    /// `.conflict`, and nothing of the batch is written.  Returns how many
    /// versions were new.
    @discardableResult
    func publish(_ tokens: [StoredToken]) async throws -> Int
    /// Adds or replaces screens in one transaction.
    func putScreens(_ screens: [StoredScreen]) async throws
    /// Adds or replaces flow definitions in one transaction; each write
    /// takes the next sequence number.
    func putFlows(_ flows: [StoredFlow]) async throws
    /// Adds or replaces experiment definitions, by key, in one
    /// transaction; each write takes the next sequence number.
    func putExperiments(_ experiments: [StoredExperiment]) async throws
    /// Publishes string catalogs in one transaction: a catalog whose JSON
    /// and default mark equal its locale's newest version is skipped; any
    /// other becomes the locale's next version, taking the next sequence
    /// number.  Returns how many versions were new.
    @discardableResult
    func putCatalogs(_ catalogs: [StoredCatalog]) async throws -> Int
    /// Stores analytics events in one transaction, each id once: an event
    /// whose id is already stored is skipped and counted as a duplicate.
    /// Events that break ``EventRules`` (a NUL in an indexed field, say)
    /// are refused with a `.invalid` ``RegistryError`` naming the first,
    /// before anything is written, by every store alike.
    func storeEvents(_ events: [StoredEvent]) async throws -> EventStoreResult
    /// How often each token was shown in the `token_usage` events whose
    /// client timestamp is in `[from, to)` (ms since the Unix epoch): one
    /// grouped query in the database, each `{id}` of an event's
    /// `properties.tokens` counted once per event.  What the usage job
    /// (`sdui registry usage`) writes and the pack builder ranks by.
    func tokenUsage(fromMilliseconds from: Int64, toMilliseconds to: Int64) async throws -> [String: Int]
    /// The `experiment_exposure` events of experiment `key`, grouped by
    /// variation and eligibility: distinct users and events in each (one
    /// grouped query in the database).  What `sdui experiment report` reads.
    func experimentExposures(key: String) async throws -> [ExposureCount]
    /// The stored events in the order they were stored, at most `limit`.
    func events(limit: Int) async throws -> [StoredEvent]
    /// The highest sequence number written (0 for an empty registry).
    func generation() async throws -> Int64
    /// Everything written after sequence `seq`, each list in sequence
    /// order, read from one state of the store.
    func changes(after seq: Int64) async throws -> RegistryChanges
    /// Releases the connection(s).
    func close() async throws
}

/// What a store wrote after a sequence number.
public struct RegistryChanges: Sendable {
    /// Token versions written after the sequence number, in sequence order.
    public var tokens: [StoredToken] = []
    /// Screens written after it, in sequence order.
    public var screens: [StoredScreen] = []
    /// Flow definitions written after it, in sequence order.
    public var flows: [StoredFlow] = []
    /// Experiment definitions written after it, in sequence order.
    public var experiments: [StoredExperiment] = []
    /// String catalog versions written after it, in sequence order.
    public var catalogs: [StoredCatalog] = []

    /// Changes from their parts; empty by default.
    public init(tokens: [StoredToken] = [], screens: [StoredScreen] = [], flows: [StoredFlow] = [],
                experiments: [StoredExperiment] = [], catalogs: [StoredCatalog] = []) {
        self.tokens = tokens
        self.screens = screens
        self.flows = flows
        self.experiments = experiments
        self.catalogs = catalogs
    }

    /// The highest sequence number among the changes (0 when none).
    public var newest: Int64 {
        max(tokens.map(\.seq).max() ?? 0, screens.map(\.seq).max() ?? 0, flows.map(\.seq).max() ?? 0,
            experiments.map(\.seq).max() ?? 0, catalogs.map(\.seq).max() ?? 0)
    }
}

/// The version of the registry's tables, kept in `registry_meta` under the
/// key `schema`.
///
/// 1: the first layout (no `schema` row).  2: `flow_events.received_ms`,
/// the server's receipt time of each event (ms since the epoch; events
/// stored before the upgrade get the time of the upgrade), indexed for
/// ``EventRetention``.  3: the `experiments` table (key, definition JSON,
/// sequence number).  4: the `string_catalogs` table (locale, version,
/// JSON, default mark, sequence number).
public enum RegistrySchema {
    /// The version this build creates, upgrades to and serves.
    public static let version = 4

    /// The error of a store whose schema is `found` (nil: no tables),
    /// or nil when it is ``version``.
    static func mismatch(_ found: Int?, store: String) -> RegistryError? {
        guard let found else {
            return RegistryError(.store, "the registry has no tables; create them with `sdui registry migrate` "
                                 + "(a server started with --no-migrate issues no DDL)", subject: store)
        }
        if found < version {
            return RegistryError(.store, "the registry's schema is version \(found), older than this build's \(version); "
                                 + "upgrade it with `sdui registry migrate`", subject: store)
        }
        if found > version {
            return RegistryError(.store, "the registry's schema is version \(found), newer than this build's \(version); "
                                 + "run a newer sdui", subject: store)
        }
        return nil
    }
}

extension RegistryStore {
    /// Runs `body`, then closes this store, also when `body` throws.
    public func closing<T>(isolation: isolated (any Actor)? = #isolation,
                           _ body: () async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body()
        } catch {
            try? await close()
            throw error
        }
        // Closed once: a failure to close after a good body is reported.
        try await close()
        return result
    }
}

/// One group of an experiment's exposures (``RegistryStore/experimentExposures(key:)``).
public struct ExposureCount: Sendable, Equatable {
    /// The variation assigned.
    public var variation: String
    /// Whether the app could render it.
    public var eligible: Bool
    /// Distinct users.
    public var users: Int
    /// Events.
    public var events: Int

    /// A group from its parts.
    public init(variation: String, eligible: Bool, users: Int, events: Int) {
        self.variation = variation
        self.eligible = eligible
        self.users = users
        self.events = events
    }
}

/// What ``RegistryStore/storeEvents(_:)`` did with a batch.
public struct EventStoreResult: Sendable, Equatable {
    /// Events stored now.
    public var accepted: Int
    /// Events whose id was stored before (or given twice in the batch).
    public var duplicates: Int
    /// The batch indexes of the events stored now, ascending: what the
    /// registry counts (a resent event is counted once).
    public var stored: [Int]

    /// A result from the indexes stored out of a batch of `count`.
    public init(stored: [Int], of count: Int) {
        self.stored = stored
        self.accepted = stored.count
        self.duplicates = count - stored.count
    }
}
#endif
