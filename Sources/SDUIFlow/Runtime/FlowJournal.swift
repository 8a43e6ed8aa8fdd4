// FlowJournal.swift - the SQLite file where flows keep their progress and
// the analytics events waiting to be sent (the C core's durable queue).
import Foundation
internal import CSDUI
import SDUICore

/// The durable home of flow progress and the analytics outbox: one SQLite
/// file (WAL, `synchronous=FULL` by default) held by the C core's
/// `sdui_outbox`.
///
/// ``commit(states:events:droppedReported:)`` writes progress rows and
/// appends events in **one transaction**: after a kill at any instant the
/// file holds a transition together with the events it caused, or neither.
/// The event queue is bounded (``Limits``): past a bound the oldest events
/// are dropped and counted, and the sender reports the count as an event of
/// its own.
///
/// Thread-safe: the C handle serializes every call with its own mutex,
/// hence `@unchecked Sendable`.  Many processes may open one file.
public final class FlowJournal: @unchecked Sendable {
    /// Bounds of the event queue.
    public struct Limits: Sendable, Hashable {
        /// Most events queued (the oldest go first past it).
        public var maxEvents = 10_000
        /// Most bytes of queued events.
        public var maxBytes = 8 << 20
        /// Largest single event; a larger one fails its commit.
        public var maxEventBytes = 64 << 10
        /// `false`: SQLite's `synchronous=NORMAL` (a power cut may lose the
        /// last commits; a process kill still loses none).
        public var fullSync = true

        /// Bounds from their parts; the defaults are 10,000 events, 8 MiB in all,
        /// 64 KiB per event, and `synchronous=FULL`.
        public init(maxEvents: Int = 10_000, maxBytes: Int = 8 << 20, maxEventBytes: Int = 64 << 10,
                    fullSync: Bool = true) {
            self.maxEvents = maxEvents
            self.maxBytes = maxBytes
            self.maxEventBytes = maxEventBytes
            self.fullSync = fullSync
        }
    }

    /// What the queue holds.
    public struct Stats: Sendable, Hashable {
        /// Events queued now, and their bytes.
        public var events: Int
        /// Bytes of the events queued now.
        public var bytes: Int
        /// Events dropped by the bounds and not yet reported.
        public var dropped: Int
        /// Events ever dropped.
        public var droppedTotal: Int
    }

    /// One queued event: its sequence number in the queue and its JSON.
    public struct Queued: Sendable, Hashable {
        /// Its number in the queue (rising in commit order); ``acknowledge(_:)`` takes it.
        public var seq: Int64
        /// The event's JSON, exactly as committed.
        public var json: Data
    }

    private let handle: OpaquePointer
    /// The file's path.
    public let path: String

    /// Opens (creating when missing) the journal at `path`.  Only a journal
    /// file is ever written: any other file (not a SQLite database, another
    /// program's database) is refused and left as it is.  A damaged
    /// journal is moved aside and a fresh one made (``recovered`` and
    /// ``recovery`` tell).
    ///
    /// - Throws: `SDUIError` `.sqlite` for a path that cannot hold the file
    ///   (a directory, a missing folder), a file that is not a journal (the
    ///   message names the path and why, and says it was left untouched), a
    ///   journal of a newer schema version, or a file SQLite cannot use;
    ///   `.io` for a damaged journal that cannot be moved aside.
    public init(path: String, limits: Limits = Limits()) throws {
        var opts = sdui_outbox_options()
        opts.max_items = limits.maxEvents
        opts.max_bytes = limits.maxBytes
        opts.max_item_bytes = limits.maxEventBytes
        opts.synchronous = limits.fullSync ? 0 : 1
        var err = sdui_error()
        var out: OpaquePointer?
        try SDUIError.check(sdui_outbox_open(path, &opts, &out, &err), err, input: path)
        guard let out else { throw SDUIError(.oom, "the journal could not be opened", input: path) }
        handle = out
        self.path = path
    }

    deinit { sdui_outbox_free(handle) }

    /// Whether a damaged file was moved aside (at open or since).
    public var recovered: Bool { sdui_outbox_recovered(handle) != 0 }

    /// What the last move aside of a damaged file said: `outbox "<path>"
    /// was damaged (<why>); moved aside to "<path>.corrupt-<ms>", a fresh
    /// one was made`; nil when none was moved aside.
    public var recovery: String? {
        let n = sdui_outbox_recovery(handle, nil, 0)
        guard n > 0 else { return nil }
        var buf = [CChar](repeating: 0, count: n + 1)
        _ = sdui_outbox_recovery(handle, &buf, buf.count)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes the progress rows (`nil` deletes a row) and appends the events,
    /// in one transaction; `droppedReported` is the count of dropped events
    /// one of `events` reports.  Returns the queue sequence number of the
    /// first event.
    ///
    /// - Throws: `SDUIError` `.limit` for an event over
    ///   ``Limits/maxEventBytes`` (nothing is written), `.sqlite` when the
    ///   file fails; nothing is written either way.
    @discardableResult
    public func commit(states: [(key: String, value: Data?)] = [], events: [Data] = [],
                       droppedReported: Int = 0) throws -> Int64 {
        var err = sdui_error()
        var first: Int64 = 0
        // One buffer holds every key, value and event (withCBytes: each
        // NUL-terminated, none NULL), so a single pinning covers the C call;
        // a nil value is passed as NULL, which deletes its row.
        let n = states.count
        let parts = states.map { Data($0.key.utf8) } + states.map { $0.value ?? Data() } + events
        let status: sdui_status = withCBytes(parts) { ps, lens in
            let cStates = states.indices.map { i in
                sdui_outbox_state(key: ps[i], value: states[i].value == nil ? nil : UnsafeRawPointer(ps[n + i]),
                                  len: lens[n + i])
            }
            let cItems = events.indices.map { j in
                sdui_outbox_item(bytes: UnsafeRawPointer(ps[2 * n + j]), len: lens[2 * n + j])
            }
            return sdui_outbox_commit(handle, cStates, cStates.count, cItems, cItems.count,
                                      UInt64(max(0, droppedReported)), &first, &err)
        }
        try SDUIError.check(status, err, input: path)
        return first
    }

    /// The progress row `key`; nil when there is none.
    public func state(_ key: String) throws -> Data? {
        var err = sdui_error()
        var out: UnsafeMutableRawPointer?
        var len = 0
        let status = sdui_outbox_state_get(handle, key, &out, &len, &err)
        if status == SDUI_NOT_FOUND { return nil }
        try SDUIError.check(status, err, input: path)
        defer { sdui_free(out) }
        guard let out else { return Data() }
        return Data(bytes: out, count: len)
    }

    /// The oldest queued events, in order: at most `maxEvents`, and no more
    /// than `maxBytes` in all (but at least one when any is queued).
    public func peek(maxEvents: Int, maxBytes: Int) throws -> [Queued] {
        var err = sdui_error()
        var batch: OpaquePointer?
        try SDUIError.check(sdui_outbox_peek(handle, maxEvents, maxBytes, &batch, &err), err, input: path)
        defer { sdui_outbox_batch_free(batch) }
        return (0..<sdui_outbox_batch_count(batch)).map { i in
            var len = 0
            let bytes = sdui_outbox_batch_bytes(batch, i, &len)
            return Queued(seq: sdui_outbox_batch_seq(batch, i),
                          json: len == 0 ? Data() : bytes.map { Data(bytes: $0, count: len) } ?? Data())
        }
    }

    /// Deletes the events with these sequence numbers (sent and
    /// acknowledged); numbers no longer queued are ignored.
    public func acknowledge(_ seqs: [Int64]) throws {
        var err = sdui_error()
        try SDUIError.check(sdui_outbox_ack(handle, seqs, seqs.count, &err), err, input: path)
    }

    /// What the queue holds now.
    public func stats() throws -> Stats {
        var err = sdui_error()
        var s = sdui_outbox_stats()
        try SDUIError.check(sdui_outbox_stats_get(handle, &s, &err), err, input: path)
        return Stats(events: Int(clamping: s.items), bytes: Int(clamping: s.bytes),
                     dropped: Int(clamping: s.dropped), droppedTotal: Int(clamping: s.dropped_total))
    }
}

extension SDUIError {
    /// Whether this is the journal failing (a step cannot be recorded:
    /// SQLite, I/O, memory, damage), rather than an action being refused;
    /// a refusal becomes a `render_error`, a journal failure is thrown.
    var isJournalFailure: Bool {
        [.sqlite, .io, .oom, .corrupt].contains(category)
    }
}
