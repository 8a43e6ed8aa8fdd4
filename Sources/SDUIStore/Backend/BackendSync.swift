// BackendSync.swift - a backend scope's persistence and sync: the values and
// the queue of unpushed patches in one snapshot file, pushed whenever the
// server can be reached, pulled on demand, conflicts resolved by time.
//
// The values live in a snapshot file (PATH, the C core's snapshot file)
// and the changes since it was written, with the unpushed patches, in the
// core's durable queue beside it (PATH.queue, the outbox FilePersistence's
// journal uses too: StoreJournal).  A committed local change appends, in
// ONE small transaction, a journal record (JournalRecord: the new value of
// each top-level member it changed) and one item per patch, each with an
// id and a timestamp, `{"patch": {...}}`; the state is not rewritten, and
// a change made offline survives a kill and is pushed later.  Loading
// replays the records on the snapshot in order (exact and idempotent, see
// JournalRecord) and queues the patch items.  The records are folded into
// the snapshot (written whole, then the records it holds deleted) when
// they pass `compactRecords` records or `compactBytes` bytes, when there
// is no readable snapshot, and on load; patch items leave the queue (one
// ack) when the server accepted them or they lost a conflict.  A queue
// file written before the queue moved out (`{"values", "queue": [...]}`
// in PATH) loads with its patches, which are moved into PATH.queue (ids
// already there are not queued twice, so a kill mid-move loses and
// doubles nothing) before PATH is written without them.  An item that
// cannot be read is an error naming PATH.queue and the record; nothing is
// saved until it is fixed or moved away.
//
// After each commit a flusher task pushes the
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
    /// The values as of the last compaction (guarded by `lock`).
    private let snapshot: SnapshotFile
    /// PATH.queue: the journal records and the unpushed patches.
    let queuePath: String
    let version: SemanticVersion?
    let logger: Logger
    let retry = RetryPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(30), maxAttempts: nil, jitter: .full)

    /// Fold the records into the snapshot past this many records or bytes.
    static let compactRecords = 1_000
    static let compactBytes = 4 << 20
    /// The queue's own bounds, far past what a scope queues offline (the
    /// outbox would drop the oldest items beyond them).
    static let maxItems = 1 << 24
    static let maxBytes = 1 << 30

    // Guarded by `lock` (see the essay's lock order).
    private let lock = NSLock()
    private var queue: [BackendPatch] = []
    /// The seq of each queued patch's item.
    private var seqs: [UUID: Int64] = [:]
    /// The seqs of the journal records not yet folded, and their bytes.
    private var recordSeqs: [Int64] = []
    private var recordBytes = 0
    /// The snapshot must be written whole at the next commit (none, or it
    /// did not read).
    private var needsSnapshot = false
    /// A queue item that cannot be read: commits fail with it.
    private var unreadable: SDUIError?
    private var journal: StoreJournal?
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
        self.queuePath = file.path + ".queue"
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
        try locked { try loadLocked() }
    }

    /// `load` under `lock`.
    private func loadLocked() throws -> (state: [String: StoreValue]?, warning: String?) {
        let saved: JSONValue?, recovered: String?
        do { (saved, recovered) = try snapshot.read() } catch {
            // The queue's patches are still this client's changes: keep
            // them; its records belong to the unreadable snapshot.
            needsSnapshot = true
            if FileManager.default.fileExists(atPath: queuePath), let items = try? readQueue() {
                queue = items.patches.map(\.patch)
                seqs = Dictionary(items.patches.map { ($0.patch.id, $0.seq) }, uniquingKeysWith: { a, _ in a })
                recordSeqs = items.records.map(\.seq)
            }
            throw error
        }
        var state: [String: StoreValue] = [:], dropped: SemanticVersion?
        if let saved {
            do { (state, dropped) = try SavedState.decode(saved, version: version) } catch {
                snapshot.markUnreadable()
                needsSnapshot = true
                throw error
            }
        }
        var warning = recovered
        if let dropped, let version {
            warning = [warning, "dropped the data saved by version \(dropped): this is \(version), a new major version"]
                .compactMap { $0 }.joined(separator: "; ")
            if FileManager.default.fileExists(atPath: queuePath) {
                let j = try openJournal()
                try j.remove(try j.records().map(\.seq))
            }
            lastState = [:]
            needsSnapshot = true
            return ([:], warning)
        }
        // The old form: the queue inside PATH.
        var legacy: [BackendPatch] = []
        if let items = saved?["queue"]?.arrayValue {
            let decoder = JSONValueDecoder()
            legacy = items.compactMap { try? decoder.decode(BackendPatch.self, from: $0) }
        }
        guard FileManager.default.fileExists(atPath: queuePath) || !legacy.isEmpty else {
            lastState = state
            needsSnapshot = saved == nil || recovered != nil
            return (saved == nil ? nil : state, warning)
        }
        let items: (records: [(seq: Int64, record: JournalRecord, bytes: Int)], patches: [(seq: Int64, patch: BackendPatch)])
        do { items = try readQueue() } catch let e as SDUIError {
            unreadable = e
            throw e
        }
        for r in items.records { r.record.apply(to: &state) }
        queue = items.patches.map(\.patch)
        seqs = Dictionary(items.patches.map { ($0.patch.id, $0.seq) }, uniquingKeysWith: { a, _ in a })
        recordSeqs = items.records.map(\.seq)
        recordBytes = items.records.reduce(0) { $0 + $1.bytes }
        let moving = legacy.filter { seqs[$0.id] == nil }
        if !moving.isEmpty {
            let first = try openJournal().append(all: try moving.map(Self.item))
            for (i, p) in moving.enumerated() { seqs[p.id] = first + Int64(i) }
            // The old file queued these before anything in PATH.queue.
            queue = moving + queue
        }
        lastState = state
        needsSnapshot = saved == nil || recovered != nil
        if !legacy.isEmpty { try compact() }
        if let notice = journal?.recovery { warning = [warning, notice].compactMap { $0 }.joined(separator: "; ") }
        return (state, warning)
    }

    /// The queue's items, oldest first: journal records and patches.
    ///
    /// - Throws: ``SDUIError`` naming PATH.queue and the record that
    ///   cannot be read; the queue's own errors.
    private func readQueue() throws -> (records: [(seq: Int64, record: JournalRecord, bytes: Int)],
                                         patches: [(seq: Int64, patch: BackendPatch)]) {
        var records: [(seq: Int64, record: JournalRecord, bytes: Int)] = []
        var patches: [(seq: Int64, patch: BackendPatch)] = []
        var seen = Set<UUID>()
        let decoder = JSONValueDecoder()
        for (seq, bytes) in try openJournal().records() {
            let source = "record \(seq) of \(queuePath)"
            do {
                let json = try JSONValue(json: Data(bytes), source: source, maxDepth: JSONValue.defaultMaxDepth + 4)
                if let p = json["patch"] {
                    let patch = try decoder.decode(BackendPatch.self, from: p)
                    if seen.insert(patch.id).inserted { patches.append((seq, patch)) }
                } else {
                    records.append((seq, try JournalRecord(bytes: bytes, source: source), bytes.count))
                }
            } catch {
                let e = error as? SDUIError ?? SDUIError(.corrupt, "\(error)")
                throw SDUIError(e.category == .schema ? .schema : .corrupt,
                                "record \(seq) of the backend scope's queue cannot be read (\(e.message)); nothing "
                                + "is saved until the queue is fixed or moved away", input: queuePath)
            }
        }
        return (records, patches)
    }

    func attach(_ store: ScenarioStore) {
        locked { self.store = store }
        if !locked({ queue.isEmpty }) { scheduleFlush() }
    }

    func commit(_ state: [String: StoreValue], change: StoreChange) throws -> [String: StoreValue]? {
        let now = Self.now()
        try locked {
            if let unreadable { throw unreadable }
            var patches: [BackendPatch] = []
            if !applyingRemote {
                patches = change.patches.map {
                    BackendPatch(op: $0.op, keyPath: $0.keyPath, value: $0.newValue, timestamp: now)
                }
            }
            lastState = state
            let members = FilePersistence.members(of: change.patches)
            if needsSnapshot || members == nil {
                // The state whole, then the patches alone.
                try compact()
                try enqueue(patches, record: nil)
            } else {
                try enqueue(patches, record: try JournalRecord(members: members!, of: state).encoded())
            }
        }
        if !locked({ applyingRemote }) { scheduleFlush() }
        return nil
    }

    func clear() throws {
        try locked {
            queue = []
            seqs = [:]
            recordSeqs = []
            recordBytes = 0
            lastState = [:]
            if journal != nil || FileManager.default.fileExists(atPath: queuePath) {
                let j = try openJournal()
                try j.remove(try j.records().map(\.seq))
            }
            try snapshot.remove()
            needsSnapshot = true
        }
    }

    // MARK: Under the lock

    /// Appends `record` (when not nil) and one item per patch in one
    /// transaction; folds the records when they pass their bounds.
    private func enqueue(_ patches: [BackendPatch], record: [UInt8]?) throws {
        let items = try (record.map { [$0] } ?? []) + patches.map(Self.item)
        guard !items.isEmpty else { return }
        let first = try openJournal().append(all: items)
        var seq = first
        if let record {
            recordSeqs.append(seq)
            recordBytes += record.count
            seq += 1
        }
        for p in patches {
            queue.append(p)
            seqs[p.id] = seq
            seq += 1
        }
        if recordSeqs.count > Self.compactRecords || recordBytes > Self.compactBytes { try compact() }
    }

    /// Writes `lastState` as the snapshot, then deletes the records it now
    /// holds (a kill between the two leaves records whose replay gives the
    /// snapshot again).
    private func compact() throws {
        guard case .object(var top) = SavedState.encode(lastState, version: version) else { return }
        top["namespace"] = .string(namespace)
        try snapshot.write(.object(top))
        needsSnapshot = false
        if !recordSeqs.isEmpty {
            try openJournal().remove(recordSeqs)
            recordSeqs = []
            recordBytes = 0
        }
    }

    /// The queue, opened on first use.
    private func openJournal() throws -> StoreJournal {
        if let journal { return journal }
        let j = try StoreJournal(path: queuePath, maxItems: Self.maxItems, maxBytes: Self.maxBytes)
        journal = j
        return j
    }

    /// A queued patch as a queue item's bytes.
    private static func item(_ p: BackendPatch) throws -> [UInt8] {
        var out = ""
        try JournalRecord.write(.object(["patch": json(p)]), to: &out)
        return Array(out.utf8)
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
            // The loop holds the sync only while it pushes: during a wait it
            // has a weak reference, so a store given up while offline goes
            // away (deinit cancels the loop) instead of retrying for ever
            // and pushing the same patches as the next store opened on the
            // file.
            flusher = Task { [weak self] in
                var attempt = 0
                var rng = SystemRandomNumberGenerator()
                while !Task.isCancelled {
                    guard let wait = await self?.flushOnce(attempt: &attempt, random: &rng) else { return }
                    do { try await Task.sleep(for: wait) } catch { break }
                }
                if let sync = self { sync.locked { sync.flusher = nil } }
            }
        }
    }

    /// One round of the flusher: pushes the queue; returns nil when it is
    /// empty and nothing more was asked (the flusher is then cleared), no
    /// wait when more came meanwhile, and the retry policy's wait after a
    /// failure.
    private func flushOnce(attempt: inout Int, random rng: inout SystemRandomNumberGenerator) async -> Duration? {
        do {
            _ = try await push()
            attempt = 0
            let more = locked { () -> Bool in
                let again = flushAgain || !queue.isEmpty
                flushAgain = false
                if !again { flusher = nil }
                return again
            }
            return more ? .zero : nil
        } catch {
            attempt += 1
            logger.debug("backend \(namespace): push failed (attempt \(attempt)), will retry: \(error)")
            return retry.delay(forAttempt: attempt, random: &rng) ?? .seconds(30)
        }
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
            let acked = done.compactMap { seqs.removeValue(forKey: $0) }
            if !acked.isEmpty { try openJournal().remove(acked.sorted()) }
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
