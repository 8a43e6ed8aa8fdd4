// RegistryFixtures.swift - stores of both kinds, a seeded registry, servers and a captured log for the registry tests.
#if Server
import Foundation
import Logging
import NIOConcurrencyHelpers
import SDUI
import SDUIServer
import SDUITestSupport
import Testing

/// The two stores; every store test runs against both.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

struct PostgresUnavailable: Error, CustomStringConvertible {
    var description: String {
        "SDUI_TEST_POSTGRES_URL is not set: run scripts/test.sh, which starts PostgreSQL with scripts/postgres.sh"
    }
}

/// A fresh, migrated store: a new SQLite file, or a new PostgreSQL schema.
func makeStore(_ kind: StoreKind) async throws -> any RegistryStore {
    let store: any RegistryStore
    switch kind {
    case .sqlite:
        store = try await SQLiteRegistryStore(path: Fixtures.temporaryDirectory().appendingPathComponent("registry.db").path)
    case .postgres:
        guard let url = ProcessInfo.processInfo.environment["SDUI_TEST_POSTGRES_URL"] else {
            Issue.record(PostgresUnavailable())
            throw PostgresUnavailable()
        }
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        store = try PostgresRegistryStore(url: url, schema: schema)
    }
    try await store.migrate()
    return store
}

/// A store of `kind` whose tables were never made: a new SQLite file, or a
/// new PostgreSQL schema name (the schema itself does not exist yet).
func makeUnmigratedStore(_ kind: StoreKind) async throws -> any RegistryStore {
    switch kind {
    case .sqlite:
        return try await SQLiteRegistryStore(path: Fixtures.temporaryDirectory().appendingPathComponent("registry.db").path)
    case .postgres:
        guard let url = ProcessInfo.processInfo.environment["SDUI_TEST_POSTGRES_URL"] else {
            Issue.record(PostgresUnavailable())
            throw PostgresUnavailable()
        }
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return try PostgresRegistryStore(url: url, schema: schema)
    }
}

/// Runs `sql` (statements separated by `;`) on `store`'s database through
/// another client, as an operator would: python3's sqlite3 for SQLite,
/// psql in the store's schema (created when missing) for PostgreSQL.
func executeSQL(_ sql: String, on store: any RegistryStore) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    if let sqlite = store as? SQLiteRegistryStore {
        p.arguments = ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                       + "c.executescript(sys.argv[2]); c.commit()", sqlite.path, sql]
    } else if let pg = store as? PostgresRegistryStore, let schema = pg.schema,
              let url = ProcessInfo.processInfo.environment["SDUI_TEST_POSTGRES_URL"] {
        p.arguments = ["psql", url, "-v", "ON_ERROR_STOP=1", "-qc",
                       "SET client_min_messages = warning; CREATE SCHEMA IF NOT EXISTS \(schema); "
                       + "SET search_path TO \(schema); \(sql)"]
    } else {
        throw RegistryError(.invalid, "no other client for this store")
    }
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw RegistryError(.store, "another client failed to run: \(sql)") }
}

/// Runs `body` with a fresh store and closes it.
func withStore<T>(_ kind: StoreKind, _ body: (any RegistryStore) async throws -> T) async throws -> T {
    let store = try await makeStore(kind)
    return try await store.closing { try await body(store) }
}

/// A server on a free loopback port over `store`.
func startServer(_ store: any RegistryStore, _ configure: (inout RegistryServerConfiguration) -> Void = { _ in })
    async throws -> RunningRegistry {
    var c = RegistryServerConfiguration()
    c.port = 0
    c.refreshInterval = .milliseconds(50)
    configure(&c)
    return try await RegistryServer(store: store, configuration: c).start()
}

/// The client primitives the server suites send: `modern` draws every
/// seeded version, `old` only those needing Text@4 at most.
enum RegistrySeed {
    static let modern = "Column@3,Row@2,Text@5,AsyncImage@2,Spacer@1"
    static let old = "Column@3,Row@2,Text@4,AsyncImage@2,Spacer@1"
}

/// Suites that seed a registry and ask it over HTTP.
protocol RegistryServerFixtures {}

extension RegistryServerFixtures {
    static var modern: String { RegistrySeed.modern }
    static var old: String { RegistrySeed.old }

    /// A registry where `card` has v1 (Text@4 inside) and v2 (Text@5 inside),
    /// `plain` one version, and `future` only a version needing Text@9.
    static func seed(_ store: any RegistryStore) async throws {
        let nested = { (v: Int) in
            #"{"children":[{"primitive":"Text","primitiveVersion":\#(v),"props":{"text":"v"}}]}"#
        }
        try await store.publish([
            stored("card", version: 1, primitive: "Column", primitiveVersion: 3, props: nested(4)),
            stored("card", version: 2, primitive: "Column", primitiveVersion: 3, props: nested(5)),
            stored("plain"),
            stored("future", primitive: "Column", primitiveVersion: 3, props: nested(9)),
        ])
        try await store.putScreens([screen("home", ["card", "plain"]),
                                    screen("lab", ["card", "future"], fallback: "home")])
    }

    func get(_ r: RunningRegistry, _ path: String, _ headers: [String: String] = ["X-Primitives": RegistrySeed.modern])
        async throws -> HTTPAnswer {
        try await HTTPProbe.get(URL(string: path, relativeTo: r.baseURL)!.absoluteURL, headers: headers)
    }
}

/// A log handler that keeps every line, for tests that read the log.
final class CapturedLog: @unchecked Sendable {
    /// Each line as "message key=value…", metadata sorted by key.
    let lines = NIOLockedValueBox<[String]>([])

    var logger: Logger {
        var logger = Logger(label: "sdui.server.test") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?,
                 source: String, file: String, function: String, line: UInt) {
            let all = metadata.merging(extra ?? [:]) { _, new in new }
            let text = "\(message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            log.lines.withLockedValue { $0.append(text) }
        }
    }
}
#endif
