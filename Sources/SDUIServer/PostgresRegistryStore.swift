// PostgresRegistryStore.swift - the registry in PostgreSQL, for a fleet of stateless servers.
#if Server
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle

/// The registry in PostgreSQL, through PostgresNIO's pooled client.  The
/// same tables as the SQLite store; `json` and `payload` are `text`, so the
/// bytes served are the bytes published.  Publishers serialise on the
/// sequence row (`SELECT … FOR UPDATE`), so sequence numbers commit in
/// order and a server that has seen `n` misses nothing newer.
///
/// The pooled client needs a task that runs it.  By default the store
/// starts one itself (and ``close()`` ends it).  In a service, pass
/// `startsClient: false` and put the store in the `ServiceGroup` (it is a
/// ServiceLifecycle `Service` whose ``run()`` runs the client), before the
/// ``RegistryServer`` that uses it: the client then lives in the group's
/// structured task tree and stops with it.
public final class PostgresRegistryStore: RegistryStore, Service {
    let client: PostgresClient
    /// The task that runs the client when the store started it itself.
    let runTask: Task<Void, Never>?
    let logger: Logger
    /// `host:port/database`, for errors.
    public let name: String

    /// The schema the tables live in (nil: the server's search_path).
    public let schema: String?
    /// How long ``migrate()`` waits for the database before it gives up
    /// (the pool itself keeps retrying a server that is down).
    public let startupTimeout: Duration
    /// One direct connection's configuration, when the store was made from
    /// a URL: ``reachable()`` tries it, so its error can be told.
    let probe: PostgresConnection.Configuration?

    /// Connects with a URL `postgres://user:password@host:port/database`,
    /// optionally with libpq's TLS parameters `sslmode` (`disable`, the
    /// default, `prefer`, `require`, `verify-ca`, `verify-full`) and
    /// `sslrootcert` (``PostgresURL``).  With `schema` (lowercase letters,
    /// digits and `_`), the tables live in that schema, created by
    /// ``migrate()``.
    ///
    /// - Throws: `RegistryError` `.invalid` for a URL ``PostgresURL`` refuses.
    public convenience init(url: String, schema: String? = nil, startupTimeout: Duration = .seconds(10),
                            startsClient: Bool = true,
                            logger: Logger = Logger(label: "sdui.registry.postgres")) throws {
        let parsed = try PostgresURL(url)
        let probe: PostgresConnection.Configuration
        do {
            probe = try parsed.connectionConfiguration()
        } catch {
            throw RegistryError(.invalid, "TLS: \(EchoedInput.visible(String(describing: error)))",
                                subject: PostgresURL.redacted(url))
        }
        try self.init(configuration: parsed.clientConfiguration(), name: parsed.name, schema: schema,
                      startupTimeout: startupTimeout, startsClient: startsClient, logger: logger, probe: probe)
    }

    /// Connects with a PostgresNIO configuration.  `schema`, when given, is
    /// checked (lowercase letters, digits, `_`) and set as the search_path.
    /// `startsClient: false` leaves running the client to ``run()`` (see
    /// the type's documentation).
    public convenience init(configuration: PostgresClient.Configuration, name: String, schema: String? = nil,
                            startupTimeout: Duration = .seconds(10), startsClient: Bool = true,
                            logger: Logger = Logger(label: "sdui.registry.postgres")) throws {
        try self.init(configuration: configuration, name: name, schema: schema, startupTimeout: startupTimeout,
                      startsClient: startsClient, logger: logger, probe: nil)
    }

    /// The designated initializer: `probe` is what ``reachable()`` tries.
    init(configuration: PostgresClient.Configuration, name: String, schema: String?, startupTimeout: Duration,
         startsClient: Bool, logger: Logger, probe: PostgresConnection.Configuration?) throws {
        self.probe = probe
        var configuration = configuration
        if let schema {
            let u = schema.utf8
            func lower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
            guard let first = u.first, first == UInt8(ascii: "_") || lower(first), u.count <= 63,
                  u.allSatisfy({ lower($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") }) else {
                throw RegistryError(.invalid, "a schema name is lowercase letters, digits and _", subject: schema)
            }
            configuration.options.additionalStartupParameters.append(("search_path", schema))
        }
        self.startupTimeout = startupTimeout
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.name = name
        self.schema = schema
        runTask = startsClient ? Task { await client.run() } : nil
    }

    /// Runs the pooled client until the task is cancelled or the service
    /// group shuts down gracefully: for a store made with
    /// `startsClient: false`, in the host's `ServiceGroup`.
    public func run() async throws {
        precondition(runTask == nil, "this store runs its own client; make it with startsClient: false to run it in a group")
        await cancelWhenGracefulShutdown { await self.client.run() }
    }

    /// Waits for the database (see ``reachable()``), then creates the schema
    /// (when one was given), the tables, their indexes and the sequence row
    /// when they are missing, and upgrades an older layout to
    /// ``RegistrySchema/version``, in one transaction.  Servers that migrate
    /// at the same time take turns on an advisory lock.
    ///
    /// - Throws: `RegistryError` `.store` when the database does not answer
    ///   within ``startupTimeout``, a statement fails, or the schema is newer
    ///   than this build's (nothing is changed then).
    public func migrate() async throws {
        try await reachable()
        try await RegistryError.wrap(name) {
            try await transaction { c in
                // Servers starting together must not race on CREATE TABLE.
                try await c.query("SELECT pg_advisory_xact_lock(72430001)", logger: logger)
                if let schema {   // checked in init: safe to splice
                    try await c.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger)
                }
                if let found = try await schemaVersion(c), found > RegistrySchema.version,
                   let newer = RegistrySchema.mismatch(found, store: name) {
                    throw newer
                }
                try await c.query("""
                    CREATE TABLE IF NOT EXISTS design_tokens (
                      id text NOT NULL, version integer NOT NULL, json text NOT NULL,
                      primitive_version integer NOT NULL, seq bigint NOT NULL, PRIMARY KEY (id, version))
                    """, logger: logger)
                try await c.query("CREATE INDEX IF NOT EXISTS design_tokens_seq ON design_tokens (seq)", logger: logger)
                try await c.query("""
                    CREATE TABLE IF NOT EXISTS screens (
                      id text PRIMARY KEY, payload text NOT NULL, fallback_screen_id text, seq bigint NOT NULL)
                    """, logger: logger)
                try await c.query("CREATE TABLE IF NOT EXISTS flows (id text PRIMARY KEY, json text NOT NULL, seq bigint NOT NULL)",
                                  logger: logger)
                // Version 2 → 3: experiment definitions.
                try await c.query(
                    "CREATE TABLE IF NOT EXISTS experiments (key text PRIMARY KEY, json text NOT NULL, seq bigint NOT NULL)",
                    logger: logger)
                // Version 3 → 4: string catalogs, versioned per locale.
                try await c.query("""
                    CREATE TABLE IF NOT EXISTS string_catalogs (
                      locale text NOT NULL, version integer NOT NULL, json text NOT NULL,
                      is_default boolean NOT NULL, seq bigint NOT NULL, PRIMARY KEY (locale, version))
                    """, logger: logger)
                try await c.query("CREATE INDEX IF NOT EXISTS string_catalogs_seq ON string_catalogs (seq)", logger: logger)
                try await c.query("""
                    CREATE TABLE IF NOT EXISTS flow_events (
                      n bigserial PRIMARY KEY, id text NOT NULL UNIQUE, name text NOT NULL, flow_id text NOT NULL,
                      user_id text NOT NULL, ts bigint NOT NULL, json text NOT NULL, received_ms bigint NOT NULL DEFAULT 0)
                    """, logger: logger)
                // Version 1 → 2: the receipt time, the upgrade's time for the events already there.
                let now = SQLiteRegistryStore.milliseconds(Date())   // an integer: safe to splice
                try await c.query(PostgresQuery(unsafeSQL:
                    "ALTER TABLE flow_events ADD COLUMN IF NOT EXISTS received_ms bigint NOT NULL DEFAULT \(now)"),
                                  logger: logger)
                try await c.query("CREATE INDEX IF NOT EXISTS flow_events_received ON flow_events (received_ms)",
                                  logger: logger)
                // The usage job reads one kind of event over a time range.
                try await c.query("CREATE INDEX IF NOT EXISTS flow_events_name_ts ON flow_events (name, ts)",
                                  logger: logger)
                try await c.query("CREATE TABLE IF NOT EXISTS registry_meta (key text PRIMARY KEY, value bigint NOT NULL)",
                                  logger: logger)
                try await c.query("INSERT INTO registry_meta (key, value) VALUES ('seq', 0) ON CONFLICT DO NOTHING",
                                  logger: logger)
                try await c.query("""
                    INSERT INTO registry_meta (key, value) VALUES ('schema', \(RegistrySchema.version))
                    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                    """, logger: logger)
            }
        }
    }

    /// The schema version in `registry_meta` (in the store's schema): nil
    /// without tables, 1 for the first layout, which wrote none.
    private func schemaVersion(_ c: PostgresConnection) async throws -> Int? {
        var exists = false
        for try await found in try await c.query("SELECT to_regclass('registry_meta') IS NOT NULL", logger: logger)
            .decode(Bool.self) { exists = found }
        guard exists else { return nil }
        var version = 1
        for try await v in try await c.query("SELECT value FROM registry_meta WHERE key = 'schema'", logger: logger)
            .decode(Int64.self) { version = Int(v) }
        return version
    }

    /// Waits for the database (see ``reachable()``) and checks that the
    /// tables are there at ``RegistrySchema/version``, issuing no DDL: a
    /// role without DDL rights can run it.
    ///
    /// - Throws: `RegistryError` `.store` naming the database and what to do
    ///   when they are missing, older or newer, or when it does not answer.
    public func verifySchema() async throws {
        try await reachable()
        try await RegistryError.wrap(name) {
            let found = try await client.withConnection { c in try await schemaVersion(c) }
            if let mismatch = RegistrySchema.mismatch(found, store: name) { throw mismatch }
        }
    }

    /// Deletes events received before `cutoff`, then all but the newest
    /// `keep`, at most ``EventPruner/batch`` rows per transaction.  Each
    /// batch takes an advisory lock without waiting: when another server
    /// of the fleet holds it (it is pruning the same tables), this pass
    /// stops.  The lock is the store's schema's: registries in other schemas
    /// of the same database prune on their own.  Returns how many were
    /// deleted.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    public func pruneEvents(receivedBefore cutoff: Date?, keepingNewest keep: Int?) async throws -> Int {
        try await RegistryError.wrap(name) {
            var deleted = 0
            if let cutoff {
                let ms = Int64(SQLiteRegistryStore.milliseconds(cutoff))
                guard let n = try await deleteInBatches({ limit in
                    "SELECT n FROM flow_events WHERE received_ms < \(ms) ORDER BY received_ms LIMIT \(limit)"
                }) else { return deleted }
                deleted += n
            }
            if let keep {
                var boundary: Int64?
                let rows = try await client.query(
                    "SELECT n FROM flow_events ORDER BY n DESC LIMIT 1 OFFSET \(Int64(max(0, keep)))", logger: logger)
                for try await n in rows.decode(Int64.self) { boundary = n }
                if let boundary, let n = try await deleteInBatches({ limit in
                    "SELECT n FROM flow_events WHERE n <= \(boundary) ORDER BY n LIMIT \(limit)"
                }) {
                    deleted += n
                }
            }
            return deleted
        }
    }

    /// Takes the pruning lock of the current schema (the one the tables are
    /// in) for the transaction, without waiting: true when it was free.  Two
    /// keys, the project's number and the schema name's hash, so servers
    /// sharing tables take turns and registries in other schemas (of other
    /// tenants, or of parallel test runs) do not stop each other's pruning.
    static let pruneLockSQL: PostgresQuery =
        "SELECT pg_try_advisory_xact_lock(72430002, hashtext(coalesce(current_schema(), '')))"

    /// Deletes the rows `select(limit)` picks, a batch per transaction,
    /// until a batch comes back short; nil when another server holds the
    /// pruning lock of this schema (``pruneLockSQL``).
    private func deleteInBatches(_ select: @escaping @Sendable (Int64) -> PostgresQuery) async throws -> Int? {
        var total = 0
        while true {
            let n: Int? = try await transaction { c in
                var locked = false
                for try await got in try await c.query(Self.pruneLockSQL, logger: logger)
                    .decode(Bool.self) { locked = got }
                guard locked else { return nil }
                var query = select(Int64(EventPruner.batch))
                query.sql = "WITH d AS (DELETE FROM flow_events WHERE n IN (\(query.sql)) RETURNING 1) SELECT count(*) FROM d"
                var count: Int64 = 0
                for try await c in try await c.query(query, logger: logger).decode(Int64.self) { count = c }
                return Int(count)
            }
            guard let n else { return total == 0 ? nil : total }
            total += n
            if n < EventPruner.batch { return total }
        }
    }

    /// Throws a `.store` error when the database does not answer within
    /// ``startupTimeout``.  A store made from a URL tries direct connections
    /// until then, and the error says why the last one failed (refused, a
    /// login the server turned down, a certificate that did not verify);
    /// otherwise it waits for the pool to answer `SELECT 1`.
    public func reachable() async throws {
        if let probe {
            let deadline = ContinuousClock.now + startupTimeout
            var last: (any Error)?
            repeat {
                var attempt = probe
                attempt.options.connectTimeout = TimeAmount(max(.milliseconds(100), deadline - .now))
                do {
                    let connection = try await PostgresConnection.connect(configuration: attempt, id: 0, logger: logger)
                    try? await connection.close()
                    return
                } catch let e as CancellationError {
                    throw e
                } catch {
                    last = error
                }
                try await Task.sleep(for: .milliseconds(250))
            } while ContinuousClock.now < deadline
            let why = last.map { EchoedInput.visible(String(reflecting: $0), maxBytes: 1500) } ?? "no attempt finished"
            throw RegistryError(.store, "no answer from PostgreSQL within \(startupTimeout); the last attempt: \(why)",
                                subject: name)
        }
        let client = client, logger = logger, timeout = startupTimeout
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await client.query("SELECT 1", logger: logger)
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        guard answered else {
            throw RegistryError(.store, "no answer from PostgreSQL within \(timeout)", subject: name)
        }
    }

    /// Runs `body` in a transaction; a `RegistryError` it throws comes
    /// out as itself, not inside PostgresNIO's transaction error.
    private func transaction<T>(_ body: (PostgresConnection) async throws -> sending T) async throws -> sending T {
        do {
            return try await client.withTransaction(logger: logger, body)
        } catch let e as PostgresTransactionError {
            if let inner = e.closureError as? RegistryError { throw inner }
            throw e
        }
    }

    /// Locks the sequence row for this transaction and returns its value.
    private func lockSeq(_ c: PostgresConnection) async throws -> Int64 {
        let rows = try await c.query("SELECT value FROM registry_meta WHERE key = 'seq' FOR UPDATE", logger: logger)
        for try await v in rows.decode(Int64.self) { return v }
        throw RegistryError(.store, "registry_meta has no sequence row; run migrate", subject: name)
    }

    private func setSeq(_ c: PostgresConnection, _ v: Int64) async throws {
        try await c.query("UPDATE registry_meta SET value = \(v) WHERE key = 'seq'", logger: logger)
    }

    /// Publishes token versions in one transaction that holds the sequence
    /// row's lock: a version already stored with the same bytes is skipped,
    /// and each new one takes the next sequence number.  Returns how many
    /// were new.
    ///
    /// - Throws: `RegistryError` `.conflict` when an (id, version) is stored
    ///   with other JSON (nothing of the batch is written); `.store` when the
    ///   database fails.
    @discardableResult
    public func publish(_ tokens: [StoredToken]) async throws -> Int {
        try await RegistryError.wrap(name) {
            try await transaction { c in
                var seq = try await lockSeq(c)
                var added = 0
                for t in tokens {
                    let text = String(decoding: t.json, as: UTF8.self)
                    let rows = try await c.query(
                        "SELECT json FROM design_tokens WHERE id = \(t.id) AND version = \(t.version)", logger: logger)
                    var existing: String?
                    for try await j in rows.decode(String.self) { existing = j }
                    if let existing {
                        guard Data(existing.utf8) == t.json else {   // bytes, not Unicode-equivalent text
                            throw RegistryError(.conflict, "version \(t.version) is already published with other content; "
                                                + "publish a higher version", subject: t.id)
                        }
                        continue
                    }
                    seq += 1
                    try await c.query("""
                        INSERT INTO design_tokens (id, version, json, primitive_version, seq)
                        VALUES (\(t.id), \(t.version), \(text), \(t.primitiveVersion), \(seq))
                        """, logger: logger)
                    added += 1
                }
                try await setSeq(c, seq)
                return added
            }
        }
    }

    /// Adds or replaces screens in one transaction that holds the sequence
    /// row's lock; each write takes the next sequence number.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    public func putScreens(_ screens: [StoredScreen]) async throws {
        try await RegistryError.wrap(name) {
            try await transaction { c in
                var seq = try await lockSeq(c)
                for s in screens {
                    seq += 1
                    let payload = String(decoding: s.payload, as: UTF8.self)
                    try await c.query("""
                        INSERT INTO screens (id, payload, fallback_screen_id, seq)
                        VALUES (\(s.id), \(payload), \(s.fallbackScreenID), \(seq))
                        ON CONFLICT (id) DO UPDATE SET payload = EXCLUDED.payload,
                          fallback_screen_id = EXCLUDED.fallback_screen_id, seq = EXCLUDED.seq
                        """, logger: logger)
                }
                try await setSeq(c, seq)
            }
        }
    }

    /// Adds or replaces flows in one transaction that holds the sequence
    /// row's lock; each write takes the next sequence number.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    public func putFlows(_ flows: [StoredFlow]) async throws {
        try await RegistryError.wrap(name) {
            try await transaction { c in
                var seq = try await lockSeq(c)
                for f in flows {
                    seq += 1
                    let json = String(decoding: f.json, as: UTF8.self)
                    try await c.query("""
                        INSERT INTO flows (id, json, seq) VALUES (\(f.id), \(json), \(seq))
                        ON CONFLICT (id) DO UPDATE SET json = EXCLUDED.json, seq = EXCLUDED.seq
                        """, logger: logger)
                }
                try await setSeq(c, seq)
            }
        }
    }

    /// Adds or replaces experiment definitions in one transaction that holds
    /// the sequence row's lock; each write takes the next sequence number.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    public func putExperiments(_ experiments: [StoredExperiment]) async throws {
        try await RegistryError.wrap(name) {
            try await transaction { c in
                var seq = try await lockSeq(c)
                for e in experiments {
                    seq += 1
                    let json = String(decoding: e.json, as: UTF8.self)
                    try await c.query("""
                        INSERT INTO experiments (key, json, seq) VALUES (\(e.key), \(json), \(seq))
                        ON CONFLICT (key) DO UPDATE SET json = EXCLUDED.json, seq = EXCLUDED.seq
                        """, logger: logger)
                }
                try await setSeq(c, seq)
            }
        }
    }

    /// Publishes string catalogs in one transaction that holds the sequence
    /// row's lock: each that differs from its locale's newest version (JSON
    /// or default mark) becomes the next version.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    @discardableResult
    public func putCatalogs(_ catalogs: [StoredCatalog]) async throws -> Int {
        try await RegistryError.wrap(name) {
            try await transaction { c in
                var seq = try await lockSeq(c)
                var written = 0
                for cat in catalogs {
                    let json = String(decoding: cat.json, as: UTF8.self)
                    var newest: (version: Int, json: String, isDefault: Bool)?
                    let rows = try await c.query("""
                        SELECT version, json, is_default FROM string_catalogs WHERE locale = \(cat.locale)
                        ORDER BY version DESC LIMIT 1
                        """, logger: logger)
                    for try await (v, j, d) in rows.decode((Int, String, Bool).self) { newest = (v, j, d) }
                    if let newest, newest.json == json, newest.isDefault == cat.isDefault { continue }
                    seq += 1
                    written += 1
                    let version = (newest?.version ?? 0) + 1
                    try await c.query("""
                        INSERT INTO string_catalogs (locale, version, json, is_default, seq)
                        VALUES (\(cat.locale), \(version), \(json), \(cat.isDefault), \(seq))
                        """, logger: logger)
                }
                try await setSeq(c, seq)
                return written
            }
        }
    }

    /// Stores events in one transaction, each id once (servers of a fleet
    /// receiving the same event race on the unique id; one insert wins).
    ///
    /// - Throws: `RegistryError` `.invalid` naming the first event that
    ///   breaks ``EventRules`` (nothing is written); `.store` when the database fails.
    public func storeEvents(_ events: [StoredEvent]) async throws -> EventStoreResult {
        try EventRules.check(events)
        let received = Int64(SQLiteRegistryStore.milliseconds(Date()))
        return try await RegistryError.wrap(name) {
            // One INSERT for the batch, its columns passed as arrays and
            // unnested in order: one round trip instead of one per event.
            // RETURNING names the rows stored; an id given twice in a batch
            // is stored once, at its first place.
            var first: [String: Int] = [:]
            for (i, e) in events.enumerated() where first[e.id] == nil { first[e.id] = i }
            let ids = events.map(\.id), names = events.map(\.name), flows = events.map(\.flowID)
            let users = events.map(\.userID), stamps = events.map(\.timestamp)
            let jsons = events.map { String(decoding: $0.json, as: UTF8.self) }
            return try await transaction { c in
                var stored: [Int] = []
                let rows = try await c.query("""
                    INSERT INTO flow_events (id, name, flow_id, user_id, ts, json, received_ms)
                    SELECT u.id, u.name, u.flow_id, u.user_id, u.ts, u.json, \(received)
                    FROM unnest(\(ids)::text[], \(names)::text[], \(flows)::text[], \(users)::text[], \(stamps)::bigint[],
                                \(jsons)::text[]) WITH ORDINALITY AS u(id, name, flow_id, user_id, ts, json, k)
                    ORDER BY u.k
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """, logger: logger)
                for try await id in rows.decode(String.self) { if let i = first[id] { stored.append(i) } }
                return EventStoreResult(stored: stored.sorted(), of: events.count)
            }
        }
    }

    /// How often each token was shown in `[from, to)`: one grouped query
    /// over the `token_usage` events (index `flow_events_name_ts`), each
    /// element of `properties.tokens` with a string `id` counted.  The JSON
    /// is read as `json`, not `jsonb`, which refuses an escaped U+0000; an
    /// event holding one (`\u0000` in its text) is skipped.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    public func tokenUsage(fromMilliseconds from: Int64, toMilliseconds to: Int64) async throws -> [String: Int] {
        try await RegistryError.wrap(name) {
            let rows = try await client.query("""
                SELECT t->>'id' AS token, count(*) AS shown
                FROM flow_events AS e,
                     json_array_elements(CASE WHEN json_typeof(e.json::json -> 'properties' -> 'tokens') = 'array'
                                              THEN e.json::json -> 'properties' -> 'tokens' ELSE '[]'::json END) AS t
                WHERE e.name = 'token_usage' AND e.ts >= \(from) AND e.ts < \(to)
                  AND strpos(e.json, '\\u0000') = 0
                  AND json_typeof(t -> 'id') = 'string'
                GROUP BY 1
                """, logger: logger)
            var out: [String: Int] = [:]
            for try await (id, n) in rows.decode((String, Int64).self) { out[id] = Int(n) }
            return out
        }
    }

    /// An experiment's exposures by variation and eligibility: one grouped
    /// query over the `experiment_exposure` events, read as `json` (an
    /// event holding an escaped U+0000 is skipped, as in tokenUsage), the
    /// key bound as a parameter.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    public func experimentExposures(key: String) async throws -> [ExposureCount] {
        try await RegistryError.wrap(name) {
            let rows = try await client.query("""
                SELECT e.json::json -> 'properties' ->> 'variation' AS variation,
                       CASE WHEN json_typeof(e.json::json -> 'properties' -> 'eligible') = 'boolean'
                             AND (e.json::json -> 'properties' ->> 'eligible') = 'false' THEN 0 ELSE 1 END AS eligible,
                       count(DISTINCT e.user_id) AS users, count(*) AS events
                FROM flow_events AS e
                WHERE e.name = 'experiment_exposure' AND strpos(e.json, '\\u0000') = 0
                  AND json_typeof(e.json::json -> 'properties') = 'object'
                  AND json_typeof(e.json::json -> 'properties' -> 'experiment') = 'string'
                  AND e.json::json -> 'properties' ->> 'experiment' = \(key)
                  AND json_typeof(e.json::json -> 'properties' -> 'variation') = 'string'
                GROUP BY 1, 2 ORDER BY 1, 2
                """, logger: logger)
            var out: [ExposureCount] = []
            for try await (v, e, u, n) in rows.decode((String, Int32, Int64, Int64).self) {
                out.append(ExposureCount(variation: v, eligible: e != 0, users: Int(u), events: Int(n)))
            }
            return out
        }
    }

    /// The stored events, oldest first, at most `limit`.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    public func events(limit: Int) async throws -> [StoredEvent] {
        try await RegistryError.wrap(name) {
            let rows = try await client.query(
                "SELECT id, name, flow_id, user_id, ts, json FROM flow_events ORDER BY n LIMIT \(max(0, limit))",
                logger: logger)
            var out: [StoredEvent] = []
            for try await (id, n, f, u, ts, json) in rows.decode((String, String, String, String, Int64, String).self) {
                out.append(StoredEvent(id: id, name: n, flowID: f, userID: u, timestamp: ts, json: Data(json.utf8)))
            }
            return out
        }
    }

    /// The highest sequence number written; 0 for an empty registry.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    public func generation() async throws -> Int64 {
        try await RegistryError.wrap(name) {
            let rows = try await client.query("SELECT value FROM registry_meta WHERE key = 'seq'", logger: logger)
            for try await v in rows.decode(Int64.self) { return v }
            return 0
        }
    }

    /// Every token version, screen, flow, experiment and catalog written after `seq`, each list in
    /// sequence order, read in one repeatable-read transaction so both come
    /// from the same state.
    ///
    /// - Throws: `RegistryError` `.store` when the database fails.
    public func changes(after seq: Int64) async throws -> RegistryChanges {
        try await RegistryError.wrap(name) {
            try await transaction { c in
                try await c.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: logger)
                var tokens: [StoredToken] = []
                let t = try await c.query("""
                    SELECT id, version, json, primitive_version, seq FROM design_tokens WHERE seq > \(seq) ORDER BY seq
                    """, logger: logger)
                for try await (id, version, json, pv, s) in t.decode((String, Int, String, Int, Int64).self) {
                    tokens.append(StoredToken(id: id, version: version, json: Data(json.utf8), primitiveVersion: pv, seq: s))
                }
                var screens: [StoredScreen] = []
                let r = try await c.query("""
                    SELECT id, payload, fallback_screen_id, seq FROM screens WHERE seq > \(seq) ORDER BY seq
                    """, logger: logger)
                for try await (id, payload, fb, s) in r.decode((String, String, String?, Int64).self) {
                    screens.append(StoredScreen(id: id, payload: Data(payload.utf8), fallbackScreenID: fb, seq: s))
                }
                var flows: [StoredFlow] = []
                let f = try await c.query("SELECT id, json, seq FROM flows WHERE seq > \(seq) ORDER BY seq", logger: logger)
                for try await (id, json, s) in f.decode((String, String, Int64).self) {
                    flows.append(StoredFlow(id: id, json: Data(json.utf8), seq: s))
                }
                var experiments: [StoredExperiment] = []
                let x = try await c.query("SELECT key, json, seq FROM experiments WHERE seq > \(seq) ORDER BY seq",
                                          logger: logger)
                for try await (key, json, s) in x.decode((String, String, Int64).self) {
                    experiments.append(StoredExperiment(key: key, json: Data(json.utf8), seq: s))
                }
                var catalogs: [StoredCatalog] = []
                let k = try await c.query("""
                    SELECT locale, version, json, is_default, seq FROM string_catalogs WHERE seq > \(seq) ORDER BY seq
                    """, logger: logger)
                for try await (locale, version, json, d, s) in k.decode((String, Int, String, Bool, Int64).self) {
                    catalogs.append(StoredCatalog(locale: locale, json: Data(json.utf8), isDefault: d, version: version, seq: s))
                }
                return RegistryChanges(tokens: tokens, screens: screens, flows: flows, experiments: experiments,
                                       catalogs: catalogs)
            }
        }
    }

    /// Stops the connection pool and waits until it has shut down, when the
    /// store runs its own client; otherwise the group's shutdown does.
    public func close() async throws {
        runTask?.cancel()
        await runTask?.value
    }
}
#endif
