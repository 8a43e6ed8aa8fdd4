// RegistryRefresher.swift - the service that keeps a server's snapshot current.
#if Server
import Foundation
import ServiceLifecycle

/// Applies what the store has published to a ``RegistryServer``'s
/// in-memory snapshot, every ``RegistryServerConfiguration/refreshInterval``,
/// until the service group shuts down.  A failed refresh keeps the last
/// snapshot; an outage is logged when it starts and when it ends, and
/// counted on `/metrics` (``RegistryServer`` reports it on `/health/ready`).
///
/// ``RegistryServer/run()`` runs one itself.  A service that mounts the
/// registry's routes in its own Hummingbird application
/// (``RegistryServer/makeRouter()``) runs one in its `ServiceGroup` beside
/// the application, so publishes keep reaching it:
///
///     let registry = RegistryServer(store: store)
///     try await store.migrate()                     // run() does this itself
///     try await registry.refresh()                  // the first snapshot
///     let app = Application(router: registry.makeRouter(), …)
///     let group = ServiceGroup(services: [app, RegistryRefresher(registry), EventPruner(registry)],
///                              logger: logger)
///     try await group.run()
public struct RegistryRefresher: Service {
    let server: RegistryServer

    /// A refresher for `server`'s snapshot, at the server's configured
    /// ``RegistryServerConfiguration/refreshInterval``.  Its first refresh
    /// comes one interval after it starts, so load the first snapshot with
    /// ``RegistryServer/refresh()`` before serving.
    public init(_ server: RegistryServer) {
        self.server = server
    }

    /// Refreshes until the task is cancelled or the group shuts down gracefully.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await server.refreshLoop() }
    }
}
#endif
