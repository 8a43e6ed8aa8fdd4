// RegistryServer+Snapshot.swift - the in-memory snapshot and the task that keeps it current.
#if Server
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import SDUI


extension RegistryServer {

    /// Brings the snapshot up to the store's latest state now.  A store
    /// whose sequence went backwards (restored, or re-created) is read again
    /// from the start.
    public func refresh() async throws {
        let current = state.withLockedValue { $0.snapshot }
        let generation = try await store.generation()
        guard generation != current.generation else {
            state.withLockedValue { $0.refreshed = .now }
            return
        }
        let base = generation < current.generation ? RegistrySnapshot() : current
        if generation < current.generation {
            logger.warning("the registry sequence went backwards; reloading everything",
                           metadata: ["had": "\(current.generation)", "now": "\(generation)"])
        }
        let changes = try await store.changes(after: base.generation)
        let newest = max(generation, changes.newest)
        let next = base.applying(changes, generation: newest, signer: configuration.signer, logger: logger)
        state.withLockedValue {
            if base.generation == 0 || $0.snapshot.generation < next.generation { $0.snapshot = next }
            $0.refreshed = .now
        }
        Gauge(label: "sdui_registry_generation", factory: metricsFactory).record(Double(next.generation))
        Gauge(label: "sdui_registry_token_ids", factory: metricsFactory).record(Double(next.tokens.count))
    }

    /// The snapshot requests answer from (never waits for the store).
    func snapshot() -> RegistrySnapshot { state.withLockedValue { $0.snapshot } }

    /// Refreshes every ``RegistryServerConfiguration/refreshInterval`` until
    /// cancelled; a failure is logged and the last snapshot kept.
    func refreshLoop() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: configuration.refreshInterval)
                try await refresh()
            } catch is CancellationError {
                return
            } catch {
                logger.error("registry refresh failed; serving the last snapshot", metadata: ["error": "\(error)"])
            }
        }
    }

    /// How long since the store last answered, and whether that is too long
    /// (ten refresh intervals, and at least 30 s).
    func staleness() -> (seconds: Double, stale: Bool) {
        let age = ContinuousClock.now - state.withLockedValue { $0.refreshed }
        let limit = configuration.healthStaleAfter ?? max(configuration.refreshInterval * 10, .seconds(30))
        return (Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18, age > limit)
    }
}
#endif
