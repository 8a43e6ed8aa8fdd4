// StoreJournal.swift - a file scope's journal: the C core's durable queue
// (sdui_outbox, one SQLite file in WAL mode) at PATH.journal, whose queued
// items are the store's committed changes since the snapshot was last
// written.  Appending one is one small transaction (fsynced), so a write
// no longer rewrites the whole state; FilePersistence folds the journal
// into the snapshot now and then (its essay says when).
import Foundation
import SDUICore
internal import CSDUI

/// The durable queue that holds a file scope's journal records.  Not
/// thread-safe by itself: FilePersistence serializes calls (the store's
/// lock) and writes only under the snapshot's file lock.
final class StoreJournal: @unchecked Sendable {
    /// PATH.journal.
    let path: String
    private let handle: OpaquePointer

    /// How the queue is bounded.  FilePersistence folds the journal into
    /// the snapshot before either of its own (smaller) bounds would be
    /// passed, so the queue never drops a record; these only keep the
    /// outbox's bounds out of the way.
    static let maxItems = 4_096
    static let maxBytes = 32 << 20

    /// Opens (creating if needed) the journal at `path`.  A damaged journal
    /// is moved aside by the core and a fresh one made: ``recovery`` then
    /// says where it went.
    ///
    /// - Throws: ``SDUIError`` naming `path`: `.sqlite` for a file that is
    ///   not a journal (left untouched) or that cannot be opened.
    /// `maxItems` and `maxBytes` bound the queue (the outbox drops the
    /// oldest records past them, so a user keeps them out of reach).
    init(path: String, maxItems: Int = StoreJournal.maxItems, maxBytes: Int = StoreJournal.maxBytes) throws {
        self.path = path
        var opts = sdui_outbox_options()
        sdui_outbox_options_default(&opts)
        opts.max_items = maxItems
        opts.max_bytes = maxBytes
        opts.max_item_bytes = maxBytes
        var err = sdui_error()
        var out: OpaquePointer?
        try SDUIError.check(sdui_outbox_open(path, &opts, &out, &err), err, input: path)
        handle = out!
    }

    deinit { sdui_outbox_free(handle) }

    /// Why the journal was replaced by a fresh one (damage found by the
    /// core), or nil.
    var recovery: String? {
        guard sdui_outbox_recovered(handle) != 0 else { return nil }
        let n = sdui_outbox_recovery(handle, nil, 0)
        var buf = [CChar](repeating: 0, count: n + 1)
        _ = sdui_outbox_recovery(handle, &buf, buf.count)
        return String(cString: buf)
    }

    /// The number of records, their bytes, and the seq the next one gets
    /// (it grows with every append by any writer, so an unchanged value
    /// means no one appended).
    func stats() throws -> (records: Int, bytes: Int, nextSeq: Int64) {
        var s = sdui_outbox_stats()
        var err = sdui_error()
        try SDUIError.check(sdui_outbox_stats_get(handle, &s, &err), err, input: path)
        return (Int(s.items), Int(s.bytes), s.next_seq)
    }

    /// Appends `record` in one transaction; its seq.
    @discardableResult
    func append(_ record: [UInt8]) throws -> Int64 {
        var err = sdui_error()
        var seq: Int64 = 0
        let status = record.withUnsafeBytes { raw in
            var item = sdui_outbox_item(bytes: raw.baseAddress, len: raw.count)
            return sdui_outbox_commit(handle, nil, 0, &item, 1, 0, &seq, &err)
        }
        try SDUIError.check(status, err, input: path)
        return seq
    }

    /// Appends `records` in order in one transaction (all or none); the
    /// seq of the first (the others follow it one by one).
    @discardableResult
    func append(all records: [[UInt8]]) throws -> Int64 {
        var err = sdui_error()
        var seq: Int64 = 0
        // One buffer holds every record, so one pinned pointer covers all.
        let joined = records.flatMap { $0 }
        let status = joined.withUnsafeBytes { raw -> sdui_status in
            var offset = 0
            let items = records.map { r -> sdui_outbox_item in
                defer { offset += r.count }
                return sdui_outbox_item(bytes: raw.baseAddress.map { $0 + offset }, len: r.count)
            }
            return sdui_outbox_commit(handle, nil, 0, items, items.count, 0, &seq, &err)
        }
        try SDUIError.check(status, err, input: path)
        return seq
    }

    /// Every record, oldest first, with its seq.
    func records() throws -> [(seq: Int64, bytes: [UInt8])] {
        var err = sdui_error()
        var batch: OpaquePointer?
        try SDUIError.check(sdui_outbox_peek(handle, 0, 0, &batch, &err), err, input: path)
        defer { sdui_outbox_batch_free(batch) }
        return (0..<sdui_outbox_batch_count(batch)).map { i in
            var len = 0
            let p = sdui_outbox_batch_bytes(batch, i, &len)
            let bytes = p.map { Array(UnsafeRawBufferPointer(start: $0, count: len)) } ?? []
            return (sdui_outbox_batch_seq(batch, i), bytes)
        }
    }

    /// Deletes the records `seqs` (one transaction).
    func remove(_ seqs: [Int64]) throws {
        guard !seqs.isEmpty else { return }
        var err = sdui_error()
        try SDUIError.check(sdui_outbox_ack(handle, seqs, seqs.count, &err), err, input: path)
    }
}
