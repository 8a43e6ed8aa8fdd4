// StoreOptions.swift - the --sqlite / --postgres options every registry command takes.
import ArgumentParser
import Foundation
import Logging
import SDUI
import SDUIServer

/// Where the registry lives: an SQLite file (default) or PostgreSQL.
struct StoreOptions: ParsableArguments {
    @Option(help: "The registry's SQLite file (created when missing).")
    var db: String?

    @Option(help: "A PostgreSQL URL, postgres://user:password@host:port/database (or $SDUI_POSTGRES_URL).")
    var postgres: String?

    /// Runs `body` with the opened store and closes it afterwards, also
    /// when `body` throws.
    func with<T>(isolation: isolated (any Actor)? = #isolation,
                 _ body: (any RegistryStore) async throws -> T) async throws -> T {
        let store = try await open()
        return try await store.closing { try await body(store) }
    }

    /// Opens and migrates the store.
    func open() async throws -> any RegistryStore {
        let store: any RegistryStore
        if let url = postgres ?? (db == nil ? ProcessInfo.processInfo.environment["SDUI_POSTGRES_URL"] : nil) {
            store = try PostgresRegistryStore(url: url, logger: quietLogger("sdui.registry.postgres"))
        } else if let db {
            store = try await SQLiteRegistryStore(path: db, logger: quietLogger("sdui.registry.sqlite"))
        } else {
            throw ValidationError("give --db FILE or --postgres URL")
        }
        try await store.migrate()
        return store
    }
}
