// BackendSync.swift - a backend scope's persistence and sync: the values and
// the queue of unpushed patches in one snapshot file, pushed whenever the
// server can be reached, pulled on demand, conflicts resolved by time.
//
// Every committed local change appends its patches, each with an id and a
// timestamp, to the queue, and the values and queue are saved together in
// one atomically replaced snapshot file, so a change made offline survives
// a kill and is pushed later.  After each commit a flusher task pushes the
// queue; when the server cannot be reached it waits (RetryPolicy:
// exponential, jittered, capped) and tries again while patches remain.
// Accepted patches leave the queue; a patch that lost to a later write on
// the server leaves it too, the server's value is applied locally and the
// conflict is reported.  A pull takes the server's value for every key
// with no queued local patch newer than the server's write (last writer
// wins).  Values applied from the server are committed like any change
// (observers see them) but not queued again.
//
// Locks: the store's lock is taken before this object's lock, never the
// other way round; network calls run with neither held.
import Foundation
import Logging
import SDUICore

/// The persistence of a `.backend` scope.
final class BackendSync: StorePersistence, @unchecked Sendable {
    let namespace: String
    let scenarioID: String?
    let adapter: (any BackendAdapter)?
    let file: URL
    /// The values and queue, in one snapshot file (guarded by `lock`).
    private let snapshot: SnapshotFile
    let version: SemanticVersion?
    let logger: Logger
    let retry = RetryPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(30), maxAttempts: nil, jitter: .full)

    // Guarded by `lock` (see the essay's lock order).
    private let lock = NSLock()
    private var queue: [BackendPatch] = []
    private var lastState: [String: StoreValue] = [:]
    private var applyingRemote = false
    private var flusher: Task<Void, Never>?
    private var flushAgain = false
    private weak var store: ScenarioStore?
    private var reports: [BackendConflict] = []

    init(namespace: String, scenarioID: String?, adapter: (any BackendAdapter)?, queue file: URL,
         version: SemanticVersion?, logger: Logger) {
        self.namespace = namespace
        self.scenarioID = scenarioID
        self.adapter = adapter
        self.file = file
        self.snapshot = SnapshotFile(url: file)
        self.version = version
        self.logger = logger
    }

    deinit { flusher?.cancel() }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: StorePersistence

    func load() throws -> (state: [String: StoreValue]?, warning: String?) {
        let (saved, recovered) = try locked { try snapshot.read() }
        guard let json = saved else { return (nil, nil) }
        var (state, dropped) = try SavedState.decode(json, version: version)
        var warning = recovered
        var pending: [BackendPatch] = []
        if dropped == nil, let items = json["queue"]?.arrayValue {
            let decoder = JSONValueDecoder()
            pending = items.compactMap { try? decoder.decode(BackendPatch.self, from: $0) }
        }
        if let dropped, let version {
            warning = [warning, "dropped the data saved by version \(dropped): this is \(version), a new major version"]
                .compactMap { $0 }.joined(separator: "; ")
            state = [:]
        }
        locked {
            queue = pending
            lastState = state
        }
        return (state, warning)
    }

    func attach(_ store: ScenarioStore) {
        locked { self.store = store }
        if !locked({ queue.isEmpty }) { scheduleFlush() }
    }

    func commit(_ state: [String: StoreValue], change: StoreChange) throws -> [String: StoreValue]? {
        let now = Self.now()
        try locked {
            if !applyingRemote {
                for p in change.patches {
                    queue.append(BackendPatch(op: p.op, keyPath: p.keyPath, value: p.newValue, timestamp: now))
                }
            }
            lastState = state
            try save()
        }
        if !locked({ applyingRemote }) { scheduleFlush() }
        return nil
    }

    func clear() throws {
        locked {
            queue = []
            lastState = [:]
        }
        try locked { try snapshot.remove() }
    }

    /// Writes values and queue as the snapshot file (under `lock`).
    private func save() throws {
        guard case .object(var top) = SavedState.encode(lastState, version: version) else { return }
        top["queue"] = .array(queue.map(Self.json))
        top["namespace"] = .string(namespace)
        try snapshot.write(.object(top))
    }

    /// A queued patch as JSON.
    private static func json(_ p: BackendPatch) -> JSONValue {
        var o: [String: JSONValue] = ["id": .string(p.id.uuidString), "op": .string(p.op.rawValue),
                                      "keyPath": .string(p.keyPath), "timestamp": .int(p.timestamp)]
        if let v = p.value { o["value"] = v.jsonValue }
        return .object(o)
    }

    /// Milliseconds since 1970, never less than the last value given (so
    /// one client's patches are ordered even if the clock steps back).
    private static func now() -> Int64 {
        clock.withLock { last in
            let t = max(Int64(Date().timeIntervalSince1970 * 1000), last)
            last = t
            return t
        }
    }
    private static let clock = Locked<Int64>(0)

    // MARK: Sync

    /// How many patches wait to be pushed.
    var queuedCount: Int { locked { queue.count } }

    /// Starts the flusher unless it runs (then it goes round once more).
    private func scheduleFlush() {
        guard adapter != nil else { return }
        locked {
            if flusher != nil {
                flushAgain = true
                return
            }
            flusher = Task { [weak self] in await self?.flushLoop() }
        }
    }

    /// Pushes until the queue is empty, waiting by the retry policy while
    /// the server cannot be reached.
    private func flushLoop() async {
        var attempt = 0
        var rng = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            do {
                _ = try await push()
                attempt = 0
                let more = locked { () -> Bool in
                    let again = flushAgain || !queue.isEmpty
                    flushAgain = false
                    if !again { flusher = nil }
                    return again
                }
                if !more { return }
            } catch {
                attempt += 1
                logger.debug("backend \(namespace): push failed (attempt \(attempt)), will retry: \(error)")
                let wait = retry.delay(forAttempt: attempt, random: &rng) ?? .seconds(30)
                do { try await Task.sleep(for: wait) } catch { break }
            }
        }
        locked { flusher = nil }
    }

    /// Pushes the queue once: accepted and conflicting patches leave it,
    /// conflicts are applied locally.  Returns (accepted, conflicts).
    @discardableResult
    func push() async throws -> (Int, [BackendConflict]) {
        guard let adapter else { return (0, []) }
        let batch = locked { queue }
        guard !batch.isEmpty else { return (0, []) }
        let result = try await adapter.push(namespace: namespace, scenarioID: scenarioID, patches: batch)
        let done = Set(result.accepted).union(result.conflicts.map(\.patch.id))
        // Conflicts first: the server's values replace the losing ones.
        if !result.conflicts.isEmpty {
            for c in result.conflicts {
                logger.warning("backend \(namespace): \(c.patch.op) of \(c.patch.keyPath) lost to a later write on the server")
            }
            applyRemote(result.conflicts.map { ($0.patch.keyPath, $0.serverValue) })
        }
        try locked {
            queue.removeAll { done.contains($0.id) }
            reports += result.conflicts
            try save()
        }
        return (result.accepted.count, result.conflicts)
    }

    /// Pushes, then pulls; the report of what changed.
    func sync() async throws -> BackendSyncReport {
        let (pushed, conflicts) = try await push()
        guard let adapter else { throw SDUIError(.argument, "backend \(namespace) has no adapter") }
        let snapshot = try await adapter.pull(namespace: namespace, scenarioID: scenarioID)
        let (local, pending) = locked { (lastState, queue) }
        var updates: [(String, StoreValue?)] = []
        for key in Set(snapshot.values.keys).union(local.keys).sorted() {
            let server = snapshot.values[key]
            guard server != local[key], let path = try? KeyPath(components: [.key(key)]) else { continue }
            let serverTime = snapshot.updatedAt.filter { (try? KeyPath($0.key))?.intersects(path) == true }.values.max() ?? 0
            let localNewer = pending.contains { p in
                (try? KeyPath(p.keyPath))?.intersects(path) == true && p.timestamp > serverTime
            }
            if !localNewer { updates.append((path.description, server)) }
        }
        applyRemote(updates)
        return BackendSyncReport(pushed: pushed, conflicts: conflicts,
                                 pulledKeys: updates.map(\.0), queued: queuedCount)
    }

    /// Applies server values to the store without queueing them.
    private func applyRemote(_ updates: [(String, StoreValue?)]) {
        guard !updates.isEmpty, let store = locked({ store }) else { return }
        store.applyRemote(updates) { active in
            self.locked { self.applyingRemote = active }
        }
    }
}
