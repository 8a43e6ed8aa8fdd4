// EventRetention.swift - how long the registry keeps analytics events, and the service that deletes the rest.
#if Server
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// How long `POST /events` keeps analytics events (`flow_events`), and how
/// many: every ``interval`` the server deletes the events it received more
/// than ``maxAge`` ago, then all but the newest ``maxCount``.  Age is the
/// server's receipt time, not the client's `timestamp` (a client clock can
/// say anything).  nil turns a bound off; ``off`` keeps everything.
///
/// The registry is not an analytics warehouse: export what you keep longer
/// (``RegistryStore/events(limit:)``) before it ages out.  An event id that
/// was pruned is a new event if a client sends it again, so keep
/// ``maxAge`` far longer than any client's upload retries.
public struct EventRetention: Sendable, Equatable {
    /// Events received longer ago are deleted (default 90 days).
    public var maxAge: Duration?
    /// At most this many events are kept, the newest (default 10 million).
    public var maxCount: Int?
    /// How often the bounds are applied (default 10 minutes).
    public var interval: Duration

    /// Bounds of `maxAge` and `maxCount`, applied every `interval`.
    public init(maxAge: Duration? = .seconds(90 * 86_400), maxCount: Int? = 10_000_000,
                interval: Duration = .seconds(600)) {
        self.maxAge = maxAge
        self.maxCount = maxCount
        self.interval = interval
    }

    /// Keeps every event (the registry grows without bound).
    public static let off = EventRetention(maxAge: nil, maxCount: nil)

    /// Whether any bound is set.
    public var isOn: Bool { maxAge != nil || maxCount != nil }

    /// Throws `.invalid` for a bound that makes no sense: a negative age or
    /// count, an interval that is not positive.
    public func check() throws {
        if let maxAge, maxAge < .zero { throw RegistryError(.invalid, "event retention: maxAge must not be negative") }
        if let maxCount, maxCount < 0 { throw RegistryError(.invalid, "event retention: maxCount must not be negative") }
        guard interval > .zero else { throw RegistryError(.invalid, "event retention: interval must be positive") }
    }
}

/// Applies a ``RegistryServer``'s ``RegistryServerConfiguration/eventRetention``
/// to its store: once when it starts, then every
/// ``EventRetention/interval``, until the service group shuts down.  What
/// it deletes is counted in `sdui_events_pruned_total` and logged; a
/// failed pass is logged and tried again at the next interval.  Deletes go
/// in batches of ``batch`` rows, each its own transaction, so posts of new
/// events are never held up for long.  Finding the oldest event kept by
/// count walks `maxCount` index entries (about 0.1 to 0.3 s a million on a
/// loaded machine): on PostgreSQL in one query on a pooled connection,
/// holding up nobody; on SQLite in steps of 100,000, each its own turn on
/// the one connection.
///
/// ``RegistryServer/run()`` runs one itself when a bound is set.  A host
/// that mounts the routes in its own application runs one beside the
/// ``RegistryRefresher``.  Servers of a fleet may all run one: on
/// PostgreSQL a pass that finds another server pruning skips.
public struct EventPruner: Service {
    let server: RegistryServer
    /// Most rows one delete statement removes: about 50 ms of work on a
    /// loaded machine, the longest a post of events waits on a pass.
    static let batch = 1_000

    /// A pruner for `server`'s store, with `server`'s retention.
    public init(_ server: RegistryServer) {
        self.server = server
    }

    /// Prunes now, then every interval, until the task is cancelled or the
    /// group shuts down gracefully.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await server.pruneLoop() }
    }
}

extension RegistryServer {
    /// Applies the retention once: returns how many events were deleted.
    @discardableResult
    public func pruneEvents(now: Date = Date()) async throws -> Int {
        let retention = configuration.eventRetention
        let cutoff = retention.maxAge.map { age in
            now.addingTimeInterval(-(Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18))
        }
        let deleted = try await store.pruneEvents(receivedBefore: cutoff, keepingNewest: retention.maxCount)
        if deleted > 0 {
            Counter(label: "sdui_events_pruned_total", factory: metricsFactory).increment(by: deleted)
            logger.info("deleted old analytics events (event retention)",
                        metadata: ["deleted": "\(deleted)", "maxAge": "\(retention.maxAge.map { "\($0)" } ?? "none")",
                                   "maxCount": "\(retention.maxCount.map(String.init) ?? "none")"])
        }
        return deleted
    }

    /// Prunes now and every ``EventRetention/interval`` until cancelled.
    func pruneLoop() async {
        _ = Counter(label: "sdui_events_pruned_total", factory: metricsFactory)   // at 0 from the start
        while !Task.isCancelled {
            do {
                try await pruneEvents()
            } catch {
                if Task.isCancelled || error is CancellationError { return }
                logger.warning("event retention failed; trying again at the next interval",
                               metadata: ["error": "\(EchoedInput.visible(String(describing: error), maxBytes: 2048))"])
            }
            do {
                try await Task.sleep(for: configuration.eventRetention.interval)
            } catch {
                return
            }
        }
    }
}
#endif
