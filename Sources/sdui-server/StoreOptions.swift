// StoreOptions.swift - the --sqlite / --postgres options every registry command takes.
#if Server
import ArgumentParser
import Foundation
import Logging
import SDUI
import SDUIServer

/// Where the registry lives: an SQLite file (default) or PostgreSQL.
struct StoreOptions: ParsableArguments {
    @Option(help: "The registry's SQLite file (created when missing by commands that write; read-only commands need it to exist).")
    var db: String?

    @Option(help: "A PostgreSQL URL, postgres://user:password@host:port/database (or $SDUI_POSTGRES_URL).")
    var postgres: String?

    /// For commands that need a store: a usage error (with the command's
    /// usage) when neither `--db`, `--postgres` nor `$SDUI_POSTGRES_URL` names one.
    func validateGiven() throws {
        guard db != nil || postgres != nil || ProcessInfo.processInfo.environment["SDUI_POSTGRES_URL"] != nil else {
            throw ValidationError("give --db FILE or --postgres URL")
        }
    }

    /// Runs `body` with the opened store and closes it afterwards, also
    /// when `body` throws.  `readOnly` commands (list, pack build) neither
    /// create a missing SQLite file nor migrate: a mistyped `--db` is an
    /// error naming the file, not a new empty registry.
    func with<T>(readOnly: Bool = false, isolation: isolated (any Actor)? = #isolation,
                 _ body: (any RegistryStore) async throws -> T) async throws -> T {
        let store = try await open(readOnly: readOnly)
        return try await store.closing { try await body(store) }
    }

    /// Opens the store, and migrates it unless `readOnly`.
    func open(readOnly: Bool = false) async throws -> any RegistryStore {
        let store: any RegistryStore
        if let url = postgres ?? (db == nil ? ProcessInfo.processInfo.environment["SDUI_POSTGRES_URL"] : nil) {
            store = try PostgresRegistryStore(url: url, logger: quietLogger("sdui.registry.postgres"))
        } else if let db {
            if readOnly && !FileManager.default.fileExists(atPath: db) {
                throw SDUIError(.notFound, "no registry file here (a read-only command does not create one)", input: db)
            }
            store = try await SQLiteRegistryStore(path: db, logger: quietLogger("sdui.registry.sqlite"))
        } else {
            throw ValidationError("give --db FILE or --postgres URL")
        }
        // A read-only command does not change an SQLite file; PostgreSQL is
        // migrated (idempotent, under its advisory lock), which is also what
        // turns an unreachable server into one clear error.
        if !readOnly || store is PostgresRegistryStore { try await store.migrate() }
        return store
    }
}
#endif
