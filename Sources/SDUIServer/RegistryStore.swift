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
    /// Creates the tables when they are missing.
    func migrate() async throws
    /// Publishes token versions in one transaction.  A version already
    /// stored with the same JSON is skipped; with other JSON it is a
    /// `.conflict`, and nothing of the batch is written.  Returns how many
    /// versions were new.
    @discardableResult
    func publish(_ tokens: [StoredToken]) async throws -> Int
    /// Adds or replaces screens in one transaction.
    func putScreens(_ screens: [StoredScreen]) async throws
    /// The highest sequence number written (0 for an empty registry).
    func generation() async throws -> Int64
    /// Everything written after sequence `seq`, in sequence order.
    func changes(after seq: Int64) async throws -> (tokens: [StoredToken], screens: [StoredScreen])
    /// Releases the connection(s).
    func close() async throws
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
#endif
