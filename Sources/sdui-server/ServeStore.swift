// ServeStore.swift - the store `sdui serve` opens: not migrated here, since the server migrates or only checks it.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUIServer

extension StoreOptions {
    /// Opens the store for `sdui serve` without migrating it: the server
    /// migrates it, or with `migrate` false only checks its schema
    /// (``RegistryServerConfiguration/migrate``).  With `migrate` false a
    /// missing SQLite file is an error, not a new empty registry.
    func openForServing(migrate: Bool) async throws -> any RegistryStore {
        if let url = postgres ?? (db == nil ? ProcessInfo.processInfo.environment["SDUI_POSTGRES_URL"] : nil) {
            return try PostgresRegistryStore(url: url, logger: quietLogger("sdui.registry.postgres"))
        }
        guard let db else { throw ValidationError("give --db FILE or --postgres URL") }
        if !migrate, !FileManager.default.fileExists(atPath: db) {
            throw SDUIError(.notFound, "no registry file here; create it with `sdui registry migrate --db FILE` "
                            + "(--no-migrate creates nothing)", input: db)
        }
        return try await SQLiteRegistryStore(path: db, logger: quietLogger("sdui.registry.sqlite"))
    }
}
#endif
