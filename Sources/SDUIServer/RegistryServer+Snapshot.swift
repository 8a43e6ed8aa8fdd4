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
        exportExperiments(next)
    }

    /// Exports what the sample-ratio alert compares exposures with, for
    /// each running experiment: `sdui_experiment_weight{experiment,
    /// variation}`, each variation's share (``Experiment/effectiveWeights``),
    /// and `sdui_experiment_srm_critical{experiment}`, the chi-square value
    /// whose p-value is 0.001 for its variations less one degrees of
    /// freedom.  An experiment no longer running has its gauges removed.
    /// The series share the exposure counter's cap (``maxExposureSeries``).
    func exportExperiments(_ snap: RegistrySnapshot) {
        let running = snap.runningExperiments
        let now = Set(running.flatMap { e in e.experiment.variations.map { "\(e.stored.key)\u{0}\($0.id)" } })
        let gone = exportedWeights.withLockedValue { exported -> Set<String> in
            defer { exported = now }
            return exported.subtracting(now)
        }
        for pair in gone {
            let parts = pair.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
            Gauge(label: "sdui_experiment_weight", dimensions: [("experiment", parts[0]), ("variation", parts[1])],
                  factory: metricsFactory).destroy()
        }
        for key in Set(gone.map { pair in String(pair.prefix { $0 != "\u{0}" }) }) where !running.contains(where: { $0.stored.key == key }) {
            Gauge(label: "sdui_experiment_srm_critical", dimensions: [("experiment", key)], factory: metricsFactory).destroy()
        }
        for e in running.prefix(Self.maxExposureSeries) {
            let weights = e.experiment.effectiveWeights
            for (v, w) in zip(e.experiment.variations, weights) {
                Gauge(label: "sdui_experiment_weight", dimensions: [("experiment", e.stored.key), ("variation", v.id)],
                      factory: metricsFactory).record(w)
            }
            if let critical = SampleRatio.criticalChiSquare(degreesOfFreedom: weights.count - 1) {
                Gauge(label: "sdui_experiment_srm_critical", dimensions: [("experiment", e.stored.key)],
                      factory: metricsFactory).record(critical)
            }
        }
    }

    /// The snapshot requests answer from (never waits for the store).
    func snapshot() -> RegistrySnapshot { state.withLockedValue { $0.snapshot } }

    /// Refreshes every ``RegistryServerConfiguration/refreshInterval`` until
    /// cancelled; a failure keeps the last snapshot.
    ///
    /// An outage is logged twice, not once a refresh: an error when a
    /// refresh first fails (with the store's error), a notice when one
    /// works again (how long it lasted, how many failed).  Every failure
    /// counts in `sdui_registry_refresh_failures_total`, and
    /// `sdui_registry_refresh_age_seconds` tells how long ago the store last
    /// answered (also at each scrape of `/metrics`).
    func refreshLoop() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: configuration.refreshInterval)
            } catch {
                return
            }
            do {
                try await refresh()
                refreshWorked()
            } catch {
                // Cancelled mid-refresh (a store may wrap the CancellationError): shutting down, not an outage.
                if Task.isCancelled || error is CancellationError { return }
                refreshFailed(error)
            }
            recordRefreshAge()
        }
    }

    /// Counts a failed refresh; logs it when it starts an outage.
    func refreshFailed(_ error: any Error) {
        Counter(label: "sdui_registry_refresh_failures_total", factory: metricsFactory).increment()
        let first = state.withLockedValue { s -> Bool in
            guard s.outage == nil else {
                s.outage?.failures += 1
                return false
            }
            s.outage = (ContinuousClock.now, 1)
            return true
        }
        if first {
            logger.error("registry refresh failed; serving the last snapshot until the store answers again",
                         metadata: ["error": "\(EchoedInput.visible(String(describing: error), maxBytes: 2048))"])
        }
    }

    /// Ends an outage, logging how long it lasted.
    func refreshWorked() {
        guard let outage = state.withLockedValue({ s in defer { s.outage = nil }; return s.outage }) else { return }
        let lasted = ContinuousClock.now - outage.since
        logger.notice("registry refresh works again",
                      metadata: ["failedRefreshes": "\(outage.failures)",
                                 "seconds": "\(String(format: "%.1f", Double(lasted.components.seconds) + Double(lasted.components.attoseconds) / 1e18))"])
    }

    /// Records `sdui_registry_refresh_age_seconds`: how long since the
    /// store last answered.
    func recordRefreshAge() {
        Gauge(label: "sdui_registry_refresh_age_seconds", factory: metricsFactory).record(staleness().seconds)
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
