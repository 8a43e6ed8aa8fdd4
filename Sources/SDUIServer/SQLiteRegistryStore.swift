// SQLiteRegistryStore.swift - the registry in one embedded SQLite file (the default).
#if Server
import Foundation
import Logging
import SQLiteNIO

/// The registry in an SQLite file, through SQLiteNIO.  WAL mode, so
/// `sdui registry import` can publish while `sdui serve` reads; writes take
/// `BEGIN IMMEDIATE`, so writers are serialised across processes and the
/// sequence stays in commit order.
///
/// An actor with one connection.  Actors are reentrant at every `await`,
/// so operations also take a FIFO turn (`exclusive(_:)`): one
/// transaction at a time on the connection.
public actor SQLiteRegistryStore: RegistryStore {
    let connection: SQLiteConnection
    /// The path of the registry file.
    public nonisolated let path: String
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` when no other operation is running on the connection.
    private func exclusive<T>(_ body: () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }

    /// Opens (creating when missing) the registry file at `path`.
    public init(path: String, logger: Logger = Logger(label: "sdui.registry.sqlite")) async throws {
        self.path = path
        connection = try await RegistryError.wrap(path) {
            try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        }
        try await RegistryError.wrap(path) {
            _ = try await connection.query("PRAGMA journal_mode=WAL")
            _ = try await connection.query("PRAGMA busy_timeout=10000")
        }
    }

    /// Creates the tables, their indexes and the sequence row when they are
    /// missing, and upgrades an older schema to ``RegistrySchema/version``,
    /// in one `BEGIN IMMEDIATE` transaction.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails or the schema is
    ///   newer than this build's (nothing is changed then).
    public func migrate() async throws {
        try await write {
            if let found = try await schemaVersion(), found > RegistrySchema.version,
               let newer = RegistrySchema.mismatch(found, store: path) {
                throw newer
            }
            for sql in [
                """
                CREATE TABLE IF NOT EXISTS design_tokens (
                  id TEXT NOT NULL, version INTEGER NOT NULL, json TEXT NOT NULL,
                  primitive_version INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (id, version))
                """,
                "CREATE INDEX IF NOT EXISTS design_tokens_seq ON design_tokens (seq)",
                """
                CREATE TABLE IF NOT EXISTS screens (
                  id TEXT PRIMARY KEY, payload TEXT NOT NULL, fallback_screen_id TEXT, seq INTEGER NOT NULL)
                """,
                "CREATE TABLE IF NOT EXISTS flows (id TEXT PRIMARY KEY, json TEXT NOT NULL, seq INTEGER NOT NULL)",
                // Version 2 → 3: experiment definitions.
                "CREATE TABLE IF NOT EXISTS experiments (key TEXT PRIMARY KEY, json TEXT NOT NULL, seq INTEGER NOT NULL)",
                // Version 3 → 4: string catalogs, versioned per locale.
                """
                CREATE TABLE IF NOT EXISTS string_catalogs (
                  locale TEXT NOT NULL, version INTEGER NOT NULL, json TEXT NOT NULL,
                  is_default INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (locale, version))
                """,
                "CREATE INDEX IF NOT EXISTS string_catalogs_seq ON string_catalogs (seq)",
                """
                CREATE TABLE IF NOT EXISTS flow_events (
                  n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
                  flow_id TEXT NOT NULL, user_id TEXT NOT NULL, ts INTEGER NOT NULL, json TEXT NOT NULL,
                  received_ms INTEGER NOT NULL DEFAULT 0)
                """,
                "CREATE TABLE IF NOT EXISTS registry_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
                "INSERT OR IGNORE INTO registry_meta (key, value) VALUES ('seq', 0)",
            ] {
                _ = try await connection.query(sql)
            }
            // Version 1 → 2: the receipt time, the upgrade's time for the events already there.
            let columns = try await connection.query("PRAGMA table_info(flow_events)")
            if !columns.contains(where: { $0.column("name")?.string == "received_ms" }) {
                _ = try await connection.query(
                    "ALTER TABLE flow_events ADD COLUMN received_ms INTEGER NOT NULL DEFAULT \(Self.milliseconds(Date()))")
            }
            _ = try await connection.query("CREATE INDEX IF NOT EXISTS flow_events_received ON flow_events (received_ms)")
            // The usage job reads one kind of event over a time range.
            _ = try await connection.query("CREATE INDEX IF NOT EXISTS flow_events_name_ts ON flow_events (name, ts)")
            _ = try await connection.query(
                "INSERT INTO registry_meta (key, value) VALUES ('schema', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [.integer(RegistrySchema.version)])
        }
    }

    /// The schema version in `registry_meta`: nil without tables, 1 for the
    /// first layout, which wrote none.
    private func schemaVersion() async throws -> Int? {
        let tables = try await connection.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'registry_meta'")
        guard !tables.isEmpty else { return nil }
        let rows = try await connection.query("SELECT value FROM registry_meta WHERE key = 'schema'")
        return rows.first?.column("value")?.integer ?? 1
    }

    /// Checks that the tables are there at ``RegistrySchema/version``,
    /// changing nothing.
    ///
    /// - Throws: `RegistryError` `.store` naming the file and what to do
    ///   when they are missing, older or newer, or when SQLite fails.
    public func verifySchema() async throws {
        try await exclusive { try await RegistryError.wrap(path) {
            if let mismatch = RegistrySchema.mismatch(try await schemaVersion(), store: path) { throw mismatch }
        } }
    }

    /// Milliseconds since the epoch.
    static func milliseconds(_ date: Date) -> Int {
        Int((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Runs `body` in a write transaction; rolls back when it throws.
    private func write<T>(_ body: () async throws -> T) async throws -> T {
        try await exclusive { try await RegistryError.wrap(path) {
            _ = try await connection.query("BEGIN IMMEDIATE")
            do {
                let result = try await body()
                _ = try await connection.query("COMMIT")
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
        } }
    }

    /// The next sequence number (inside a write transaction).
    private func nextSeq() async throws -> Int64 {
        let rows = try await connection.query(
            "UPDATE registry_meta SET value = value + 1 WHERE key = 'seq' RETURNING value")
        guard let v = rows.first?.column("value")?.integer else {
            throw RegistryError(.store, "registry_meta has no sequence row; run migrate", subject: path)
        }
        return Int64(v)
    }

    /// Publishes token versions in one `BEGIN IMMEDIATE` transaction: a
    /// version already stored with the same bytes is skipped, and each new
    /// one takes the next sequence number.  Returns how many were new.
    ///
    /// - Throws: `RegistryError` `.conflict` when an (id, version) is stored
    ///   with other JSON (nothing of the batch is written); `.store` when
    ///   SQLite fails.
    @discardableResult
    public func publish(_ tokens: [StoredToken]) async throws -> Int {
        try await write {
            var added = 0
            for t in tokens {
                let existing = try await connection.query(
                    "SELECT json FROM design_tokens WHERE id = ?1 AND version = ?2",
                    [.text(t.id), .integer(t.version)])
                if let json = existing.first?.column("json")?.string {
                    guard Data(json.utf8) == t.json else {   // bytes, not Unicode-equivalent text
                        throw RegistryError(.conflict, "version \(t.version) is already published with other content; "
                                            + "publish a higher version", subject: t.id)
                    }
                    continue
                }
                let seq = try await nextSeq()
                _ = try await connection.query(
                    "INSERT INTO design_tokens (id, version, json, primitive_version, seq) VALUES (?1, ?2, ?3, ?4, ?5)",
                    [.text(t.id), .integer(t.version), .text(String(decoding: t.json, as: UTF8.self)),
                     .integer(t.primitiveVersion), .integer(Int(seq))])
                added += 1
            }
            return added
        }
    }

    /// Adds or replaces screens in one `BEGIN IMMEDIATE` transaction; each
    /// write takes the next sequence number.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    public func putScreens(_ screens: [StoredScreen]) async throws {
        try await write {
            for s in screens {
                let seq = try await nextSeq()
                _ = try await connection.query(
                    """
                    INSERT INTO screens (id, payload, fallback_screen_id, seq) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (id) DO UPDATE SET payload = excluded.payload,
                      fallback_screen_id = excluded.fallback_screen_id, seq = excluded.seq
                    """,
                    [.text(s.id), .text(String(decoding: s.payload, as: UTF8.self)),
                     s.fallbackScreenID.map { .text($0) } ?? .null, .integer(Int(seq))])
            }
        }
    }

    /// Adds or replaces flows in one `BEGIN IMMEDIATE` transaction; each
    /// write takes the next sequence number.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    public func putFlows(_ flows: [StoredFlow]) async throws {
        try await write {
            for f in flows {
                let seq = try await nextSeq()
                _ = try await connection.query(
                    """
                    INSERT INTO flows (id, json, seq) VALUES (?1, ?2, ?3)
                    ON CONFLICT (id) DO UPDATE SET json = excluded.json, seq = excluded.seq
                    """,
                    [.text(f.id), .text(String(decoding: f.json, as: UTF8.self)), .integer(Int(seq))])
            }
        }
    }

    /// Adds or replaces experiment definitions in one `BEGIN IMMEDIATE`
    /// transaction; each write takes the next sequence number.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    public func putExperiments(_ experiments: [StoredExperiment]) async throws {
        try await write {
            for e in experiments {
                let seq = try await nextSeq()
                _ = try await connection.query(
                    """
                    INSERT INTO experiments (key, json, seq) VALUES (?1, ?2, ?3)
                    ON CONFLICT (key) DO UPDATE SET json = excluded.json, seq = excluded.seq
                    """,
                    [.text(e.key), .text(String(decoding: e.json, as: UTF8.self)), .integer(Int(seq))])
            }
        }
    }

    /// Publishes string catalogs in one `BEGIN IMMEDIATE` transaction: each
    /// that differs from its locale's newest version (JSON or default mark)
    /// becomes the next version.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    @discardableResult
    public func putCatalogs(_ catalogs: [StoredCatalog]) async throws -> Int {
        try await write {
            var written = 0
            for c in catalogs {
                let json = String(decoding: c.json, as: UTF8.self)
                let newest = try await connection.query(
                    "SELECT version, json, is_default FROM string_catalogs WHERE locale = ?1 ORDER BY version DESC LIMIT 1",
                    [.text(c.locale)]).first
                if let newest, newest.column("json")?.string == json,
                   (newest.column("is_default")?.integer ?? 0 != 0) == c.isDefault { continue }
                let seq = try await nextSeq()
                _ = try await connection.query(
                    "INSERT INTO string_catalogs (locale, version, json, is_default, seq) VALUES (?1, ?2, ?3, ?4, ?5)",
                    [.text(c.locale), .integer((newest?.column("version")?.integer ?? 0) + 1), .text(json),
                     .integer(c.isDefault ? 1 : 0), .integer(Int(seq))])
                written += 1
            }
            return written
        }
    }

    /// Stores events in one `BEGIN IMMEDIATE` transaction, each id once.
    ///
    /// - Throws: `RegistryError` `.invalid` naming the first event that
    ///   breaks ``EventRules`` (nothing is written); `.store` when SQLite fails.
    public func storeEvents(_ events: [StoredEvent]) async throws -> EventStoreResult {
        try EventRules.check(events)
        let received = Self.milliseconds(Date())
        return try await write {
            // One multi-row INSERT per 100 events: one statement's round
            // trip instead of one per event.  RETURNING names the rows
            // stored; an id given twice in a batch is stored once, at its
            // first place.
            var stored: [Int] = []
            var first: [String: Int] = [:]
            for (i, e) in events.enumerated() where first[e.id] == nil { first[e.id] = i }
            for start in stride(from: 0, to: events.count, by: Self.insertBatch) {
                let chunk = events[start..<min(start + Self.insertBatch, events.count)]
                var binds: [SQLiteData] = []
                binds.reserveCapacity(chunk.count * 7)
                var tuples: [String] = []
                for (k, e) in chunk.enumerated() {
                    let b = k * 7
                    tuples.append("(?\(b + 1), ?\(b + 2), ?\(b + 3), ?\(b + 4), ?\(b + 5), ?\(b + 6), ?\(b + 7))")
                    binds += [.text(e.id), .text(e.name), .text(e.flowID), .text(e.userID), .integer(Int(e.timestamp)),
                              .text(String(decoding: e.json, as: UTF8.self)), .integer(received)]
                }
                let rows = try await connection.query(
                    "INSERT INTO flow_events (id, name, flow_id, user_id, ts, json, received_ms) VALUES "
                        + tuples.joined(separator: ", ") + " ON CONFLICT (id) DO NOTHING RETURNING id", binds)
                for row in rows { if let id = row.column("id")?.string, let i = first[id] { stored.append(i) } }
            }
            return EventStoreResult(stored: stored.sorted(), of: events.count)
        }
    }

    /// Events per INSERT statement in ``storeEvents(_:)`` (7 values each,
    /// well below SQLite's 32,766 variables).
    static let insertBatch = 100

    /// Deletes events received before `cutoff`, then all but the newest
    /// `keep` (at most `keep` stay), at most ``EventPruner/batch`` rows per
    /// `BEGIN IMMEDIATE` transaction, so writers wait at most one batch.
    /// Returns how many were deleted.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    public func pruneEvents(receivedBefore cutoff: Date?, keepingNewest keep: Int?) async throws -> Int {
        var deleted = 0
        if let cutoff {
            deleted += try await deleteInBatches(
                "SELECT n FROM flow_events WHERE received_ms < ?1 ORDER BY received_ms LIMIT ?2",
                .integer(Self.milliseconds(cutoff)))
        }
        if let keep {
            if let boundary = try await newestBeyond(keep) {
                deleted += try await deleteInBatches("SELECT n FROM flow_events WHERE n <= ?1 ORDER BY n LIMIT ?2",
                                                     .integer(boundary))
            }
        }
        return deleted
    }

    /// The number of the newest event past the newest `keep`: it and every
    /// older one go; nil when there are at most `keep`.  Numbers have gaps
    /// (an insert that does nothing takes one), so the rows are counted:
    /// walked down from the newest, ``walkStep`` at a time, each step its
    /// own turn on the connection, so no other operation waits for more
    /// than one step (about 15 ms on a loaded machine).  Events stored
    /// meanwhile come above the walk and are kept too.
    private func newestBeyond(_ keep: Int) async throws -> Int? {
        var remaining = max(0, keep)
        var below: Int?   // the walk so far: rows at or above it are kept
        while true {
            let step = min(remaining, walkStep)
            let row = try await exclusive { try await RegistryError.wrap(path) {
                // The step-th row below the walk (or, with nothing left to count, the next one).
                let sql = "SELECT n FROM flow_events " + (below == nil ? "" : "WHERE n < ?2 ") + "ORDER BY n DESC LIMIT 1 OFFSET ?1"
                let binds: [SQLiteData] = [.integer(max(0, step - 1))] + (below.map { [.integer($0)] } ?? [])
                return try await connection.query(sql, binds).first?.column("n")?.integer
            } }
            guard let row else { return nil }   // fewer rows than that: nothing goes
            if step == 0 { return row }
            remaining -= step
            below = row
        }
    }

    /// Rows counted per turn by ``newestBeyond(_:)``.
    var walkStep = 100_000

    /// Sets ``walkStep`` (at least 1): smaller steps hold the connection
    /// for less time each.
    func setWalkStep(_ rows: Int) { walkStep = max(1, rows) }

    /// Deletes the rows `select` (bound to `value` and the batch size)
    /// picks, a batch per transaction, until a batch comes back short.
    private func deleteInBatches(_ select: String, _ value: SQLiteData) async throws -> Int {
        var total = 0
        while true {
            let n = try await write {
                try await connection.query("DELETE FROM flow_events WHERE n IN (\(select)) RETURNING n",
                                           [value, .integer(EventPruner.batch)]).count
            }
            total += n
            if n < EventPruner.batch { return total }
        }
    }

    /// How often each token was shown in `[from, to)`: one grouped query
    /// over the `token_usage` events (index `flow_events_name_ts`), each
    /// element of `properties.tokens` with a string `id` counted.  An event
    /// holding an escaped U+0000 (`\u0000` in its text) is skipped, as the
    /// PostgreSQL store must skip it, so both stores count alike.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    public func tokenUsage(fromMilliseconds from: Int64, toMilliseconds to: Int64) async throws -> [String: Int] {
        try await exclusive { try await RegistryError.wrap(path) {
            let rows = try await connection.query(
                """
                SELECT json_extract(t.value, '$.id') AS token, count(*) AS shown
                FROM flow_events AS e,
                     json_each(CASE WHEN instr(e.json, '\\u0000') = 0 THEN
                                 CASE WHEN json_valid(e.json) THEN
                                   CASE WHEN json_type(e.json, '$.properties.tokens') = 'array'
                                        THEN json_extract(e.json, '$.properties.tokens') ELSE '[]' END
                                 ELSE '[]' END
                               ELSE '[]' END) AS t
                WHERE e.name = 'token_usage' AND e.ts >= ?1 AND e.ts < ?2
                  AND t.type = 'object' AND json_type(t.value, '$.id') = 'text'
                GROUP BY token
                """, [.integer(Int(from)), .integer(Int(to))])
            var out: [String: Int] = [:]
            for row in rows {
                guard let id = row.column("token")?.string, let n = row.column("shown")?.integer else { continue }
                out[id] = n
            }
            return out
        } }
    }

    /// An experiment's exposures by variation and eligibility: one grouped
    /// query over the `experiment_exposure` events (index
    /// `flow_events_name_ts`); an event whose JSON does not parse, holds an
    /// escaped U+0000, or lacks a string variation is skipped, as the
    /// PostgreSQL store skips it.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    public func experimentExposures(key: String) async throws -> [ExposureCount] {
        try await exclusive { try await RegistryError.wrap(path) {
            let rows = try await connection.query(
                """
                SELECT json_extract(e.json, '$.properties.variation') AS variation,
                       CASE WHEN json_type(e.json, '$.properties.eligible') = 'false' THEN 0 ELSE 1 END AS eligible,
                       count(DISTINCT e.user_id) AS users, count(*) AS events
                FROM flow_events AS e
                WHERE e.name = 'experiment_exposure' AND instr(e.json, '\\u0000') = 0 AND json_valid(e.json)
                  AND json_extract(e.json, '$.properties.experiment') = ?1
                  AND json_type(e.json, '$.properties.variation') = 'text'
                GROUP BY 1, 2 ORDER BY 1, 2
                """, [.text(key)])
            return rows.compactMap { row in
                guard let v = row.column("variation")?.string, let e = row.column("eligible")?.integer,
                      let u = row.column("users")?.integer, let n = row.column("events")?.integer else { return nil }
                return ExposureCount(variation: v, eligible: e != 0, users: u, events: n)
            }
        } }
    }

    /// The stored events, oldest first, at most `limit`.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    public func events(limit: Int) async throws -> [StoredEvent] {
        try await exclusive { try await RegistryError.wrap(path) {
            let rows = try await connection.query(
                "SELECT id, name, flow_id, user_id, ts, json FROM flow_events ORDER BY n LIMIT ?1",
                [.integer(max(0, limit))])
            return rows.map { r in
                StoredEvent(id: r.column("id")?.string ?? "", name: r.column("name")?.string ?? "",
                            flowID: r.column("flow_id")?.string ?? "", userID: r.column("user_id")?.string ?? "",
                            timestamp: Int64(r.column("ts")?.integer ?? 0),
                            json: Data((r.column("json")?.string ?? "").utf8))
            }
        } }
    }

    /// The highest sequence number written; 0 for an empty registry.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    public func generation() async throws -> Int64 {
        try await exclusive { try await RegistryError.wrap(path) {
            let rows = try await connection.query("SELECT value FROM registry_meta WHERE key = 'seq'")
            return Int64(rows.first?.column("value")?.integer ?? 0)
        } }
    }

    /// Every token version, screen, flow, experiment and catalog written after `seq`, each list in
    /// sequence order, read in one transaction so both come from the same
    /// state.
    ///
    /// - Throws: `RegistryError` `.store` when SQLite fails.
    public func changes(after seq: Int64) async throws -> RegistryChanges {
        try await exclusive { try await RegistryError.wrap(path) {
            // One read transaction, so both lists come from the same state.
            _ = try await connection.query("BEGIN")
            let t: [SQLiteRow], s: [SQLiteRow], f: [SQLiteRow], x: [SQLiteRow], c: [SQLiteRow]
            do {
                t = try await connection.query(
                    "SELECT id, version, json, primitive_version, seq FROM design_tokens WHERE seq > ?1 ORDER BY seq",
                    [.integer(Int(seq))])
                s = try await connection.query(
                    "SELECT id, payload, fallback_screen_id, seq FROM screens WHERE seq > ?1 ORDER BY seq",
                    [.integer(Int(seq))])
                f = try await connection.query(
                    "SELECT id, json, seq FROM flows WHERE seq > ?1 ORDER BY seq", [.integer(Int(seq))])
                x = try await connection.query(
                    "SELECT key, json, seq FROM experiments WHERE seq > ?1 ORDER BY seq", [.integer(Int(seq))])
                c = try await connection.query(
                    "SELECT locale, version, json, is_default, seq FROM string_catalogs WHERE seq > ?1 ORDER BY seq",
                    [.integer(Int(seq))])
                _ = try await connection.query("COMMIT")
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
            return RegistryChanges(tokens: t.map { r in
                StoredToken(id: r.column("id")?.string ?? "", version: r.column("version")?.integer ?? 0,
                            json: Data((r.column("json")?.string ?? "").utf8),
                            primitiveVersion: r.column("primitive_version")?.integer ?? 1,
                            seq: Int64(r.column("seq")?.integer ?? 0))
            }, screens: s.map { r in
                StoredScreen(id: r.column("id")?.string ?? "", payload: Data((r.column("payload")?.string ?? "").utf8),
                             fallbackScreenID: r.column("fallback_screen_id")?.string,
                             seq: Int64(r.column("seq")?.integer ?? 0))
            }, flows: f.map { r in
                StoredFlow(id: r.column("id")?.string ?? "", json: Data((r.column("json")?.string ?? "").utf8),
                           seq: Int64(r.column("seq")?.integer ?? 0))
            }, experiments: x.map { r in
                StoredExperiment(key: r.column("key")?.string ?? "", json: Data((r.column("json")?.string ?? "").utf8),
                                 seq: Int64(r.column("seq")?.integer ?? 0))
            }, catalogs: c.map { r in
                StoredCatalog(locale: r.column("locale")?.string ?? "", json: Data((r.column("json")?.string ?? "").utf8),
                              isDefault: (r.column("is_default")?.integer ?? 0) != 0,
                              version: r.column("version")?.integer ?? 0, seq: Int64(r.column("seq")?.integer ?? 0))
            })
        } }
    }

    /// Closes the connection.
    ///
    /// - Throws: `RegistryError` `.store` when closing fails.
    public func close() async throws {
        try await RegistryError.wrap(path) { try await connection.close() }
    }
}
#endif
