// RegistryFixtures.swift - stores of both kinds, tokens and servers for the registry tests.
import Foundation
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
