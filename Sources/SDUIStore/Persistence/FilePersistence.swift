// FilePersistence.swift - the file scope: the state in one JSON snapshot
// file (the C core's snapshot file: temporary file, fsync, rename;
// PATH.prev keeps the last good state) and the changes made since it was
// written in a journal beside it (PATH.journal: the core's durable queue),
// one small fsynced transaction per commit.
//
// The state is the snapshot with the journal's records replayed on it in
// order (JournalRecord: each record gives the top-level members a commit
// changed their new values, so replay is exact and idempotent).  A commit
// appends one record; it does not rewrite the state.  The journal is
// folded into the snapshot ("compaction": the state written as the
// snapshot, then the records it holds deleted) when it passes
// `compactRecords` records or `compactBytes` bytes, when a store that
// saved something goes away (so a store at rest is a snapshot file alone,
// in the form older versions wrote and read; a store that only read
// writes nothing), when there is no snapshot yet, when the
// snapshot had to be recovered from PATH.prev or kept aside, and for a
// change that touched the whole state.  A kill between writing the
// snapshot and deleting its records leaves records the snapshot holds:
// replaying them gives the same state.  A file written by a version
// without the journal is a snapshot with no journal: it reads as before.
//
// Several processes (or several stores of one process) may keep one file.
// Each commit runs under the file's advisory lock (SnapshotLock): if the
// snapshot and the journal are still as this store last read or wrote
// them, the commit's record is appended as it is; otherwise the snapshot
// and journal are read again, the commit's patches are replayed on what
// they hold (SavedMerge), the record of the merged members is appended,
// and the merged state is handed back so the store takes it as its own.
// Writers so serialize, and none loses another's change.
//
// A commit that cannot be saved (the file cannot be read, the disk is
// full) keeps its steps; the next commit replays them before its own, so a
// change made while the file was unreadable is saved once it is readable
// again, into what the file holds then.  When neither PATH nor PATH.prev
// reads, the next write keeps them aside and the journal's records with
// them (PATH.journal.unreadable-<time>, one record a line) before it
// starts afresh.  A journal record that cannot be
// read is an error naming the journal and the record: the store starts
// empty and nothing is written until the journal is fixed or moved away.
import Foundation
import SDUICore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Saves a store's state as a snapshot file and a journal of changes.
final class FilePersistence: StorePersistence, @unchecked Sendable {
    // The store serializes calls (StorePersistence), which covers `file`,
    // `journal`, `journalSeen` and `unsaved`; deinit runs alone.
    let file: SnapshotFile
    let version: SemanticVersion?
    /// PATH.journal.
    let journalPath: String
    /// The journal, once it was needed (opened on first use).
    private var journal: StoreJournal?
    /// The journal's next seq when this store last read or wrote it (nil:
    /// unknown, so the next commit reads the file again).
    private var journalSeen: Int64?
    /// The steps of commits that could not be saved, oldest first, and the
    /// top-level members they touch (nil: a step touched the whole state).
    private var unsaved: [SavedMerge.Step] = []
    private var unsavedMembers: Set<String>? = []
    /// Whether this store saved a commit (then it folds the journal when
    /// it goes away).
    private var wrote = false

    /// Fold the journal into the snapshot before it passes this many
    /// records or bytes.
    static let compactRecords = 1_000
    static let compactBytes = 4 << 20
    /// The core's bound on a snapshot file (SDUI_SNAPSHOT_MAX_BYTES).
    static let snapshotBound = 64 << 20

    /// A snapshot file at `url`, stamped with `version`.
    init(url: URL, version: SemanticVersion?) {
        self.file = SnapshotFile(url: url)
        self.version = version
        self.journalPath = url.path + ".journal"
    }

    /// Folds the journal into the snapshot, so a store at rest is one
    /// snapshot file (the essay).  Nothing is written when the files cannot
    /// be read.
    deinit {
        // A store that only read writes nothing (`sdui store inspect`).
        guard wrote, let journal, (try? journal.stats().records) ?? 0 > 0 else { return }
        _ = try? file.withLock { () throws -> Void in
            guard let now = try current() else { return }
            try compact(now.state, folding: now.seqs)
        }
    }

    /// Reads the snapshot and replays the journal on it; a recovery from
    /// PATH.prev, a damaged journal made afresh or a dropped major version
    /// comes back as the warning.
    ///
    /// - Throws: the read's ``SDUIError``: `.io` when the file exists but
    ///   cannot be read (the store then starts empty and saves nothing over
    ///   it); `.corrupt` or `.limit` when neither it nor its .prev reads
    ///   (the next save keeps both aside); `.schema` for a snapshot that is
    ///   not a saved store (kept aside the same way); `.corrupt` or
    ///   `.schema` naming the journal and the record for a journal record
    ///   that cannot be read (nothing is saved until it can).
    func load() throws -> (state: [String: StoreValue]?, warning: String?) {
        // With a journal the snapshot and records are read under the lock,
        // so no compaction falls between the two reads.
        let read = { () throws -> (JSONValue?, String?, [String: StoreValue]?, String?) in
            let (saved, recovered) = try self.file.read()
            var state: [String: StoreValue]?, dropped: SemanticVersion?
            if let saved {
                do { (state, dropped) = try SavedState.decode(saved, version: self.version) } catch {
                    self.file.markUnreadable()
                    throw error
                }
            }
            guard dropped == nil, FileManager.default.fileExists(atPath: self.journalPath) else {
                return (saved, recovered, state, dropped.map { "\($0)" })
            }
            var replayed = state ?? [:]
            let (_, notice) = try self.replayJournal(on: &replayed)
            let warning = [recovered, notice].compactMap { $0 }.joined(separator: "; ")
            return (saved, warning.isEmpty ? nil : warning, replayed, nil)
        }
        let (saved, recovered, state, droppedText) = FileManager.default.fileExists(atPath: journalPath)
            ? try file.withLock(read) : try read()
        guard saved != nil || state != nil else { return (nil, recovered) }
        var warning = recovered
        if let droppedText, let version {
            warning = [warning, "dropped the data saved by version \(droppedText): this is \(version), a new major version"]
                .compactMap { $0 }.joined(separator: "; ")
            try clear()
            return ([:], warning)
        }
        return (state, warning)
    }

    /// Saves the commit under the file's lock: one journal record, merged
    /// into what other writers saved since this store last read or wrote
    /// the files (the file's essay).  Returns the state saved when it is
    /// not `state`.
    func commit(_ state: [String: StoreValue], change: StoreChange) throws -> [String: StoreValue]? {
        let newSteps = SavedMerge.steps(of: change.patches)
        let steps = unsaved + newSteps
        let members = unsavedMembers.flatMap { m in Self.members(of: change.patches).map { m.union($0) } }
        do {
            let saved = try file.withLock { () throws -> [String: StoreValue]? in
                if unsaved.isEmpty, let members, let seen = journalSeen, file.isUnchangedSinceSeen {
                    let journal = try openJournal()
                    let stats = try journal.stats()
                    if stats.nextSeq == seen {
                        try save(state, members: members, stats: stats, folding: nil)
                        return nil
                    }
                }
                // Read what the files hold now and replay the steps on it.
                guard let now = try current() else {
                    // Neither snapshot reads: the store's own state, whole
                    // (the write keeps the unreadable files aside, and the
                    // journal's records, which belong to them, go aside too).
                    let aside = try keepJournalAside()
                    try compact(state, folding: aside)
                    return nil
                }
                let merged = SavedMerge.apply(steps, to: now.state, own: state)
                if now.needsSnapshot || members == nil {
                    try compact(merged, folding: now.seqs)
                } else {
                    try save(merged, members: members!, stats: try openJournal().stats(), folding: now.seqs)
                }
                return merged == state ? nil : merged
            }
            unsaved = []
            unsavedMembers = []
            wrote = true
            return saved
        } catch {
            unsaved = steps
            unsavedMembers = members
            throw error
        }
    }

    /// Removes the snapshot, its previous generation and the journal's
    /// records (under the lock).
    func clear() throws {
        unsaved = []
        unsavedMembers = []
        try file.withLock {
            if journal != nil || FileManager.default.fileExists(atPath: journalPath) {
                let j = try openJournal()
                try j.remove(try j.records().map(\.seq))
                journalSeen = try j.stats().nextSeq
            }
            try file.remove()
        }
    }

    // MARK: Under the lock

    /// What the files hold now: the snapshot with the journal replayed on
    /// it (empty when there is no snapshot, or it was saved by another
    /// major version), the seqs of the records replayed, and whether the
    /// snapshot must be written whole (there is none, or PATH.prev was read
    /// in its place).  Nil when neither PATH nor PATH.prev reads (they are
    /// kept aside by the next write, and the store's own state is saved
    /// whole).
    ///
    /// - Throws: `.io` when the file exists but cannot be read; the
    ///   journal's errors (a record that cannot be read names it).
    private func current() throws -> (state: [String: StoreValue], seqs: [Int64], needsSnapshot: Bool)? {
        let saved: JSONValue?, recovered: String?
        do { (saved, recovered) = try file.read() } catch let e as SDUIError where e.category != .io {
            journalSeen = nil
            return nil   // read() marked the files to keep aside
        }
        var state: [String: StoreValue] = [:]
        if let saved {
            do { state = try SavedState.decode(saved, version: version).state } catch {
                file.markUnreadable()
                journalSeen = nil
                return nil
            }
        }
        let (seqs, _) = try replayJournal(on: &state)
        return (state, seqs, saved == nil || recovered != nil)
    }

    /// Replays the journal's records on `state`, in order; their seqs and
    /// the core's notice when it found the journal damaged and made it
    /// afresh.  Sets `journalSeen`.
    ///
    /// - Throws: ``SDUIError`` naming the journal and the record that
    ///   cannot be read; the journal's own errors.
    private func replayJournal(on state: inout [String: StoreValue]) throws -> ([Int64], String?) {
        journalSeen = nil
        let journal = try openJournal()
        let records = try journal.records()
        for (seq, bytes) in records {
            let source = "record \(seq) of \(journalPath)"
            let record: JournalRecord
            do { record = try JournalRecord(bytes: bytes, source: source) } catch {
                let e = error as? SDUIError ?? SDUIError(.corrupt, "\(error)")
                throw SDUIError(e.category == .schema ? .schema : .corrupt,
                                "record \(seq) of the store's journal cannot be read (\(e.message)); nothing is "
                                + "saved until the journal is fixed or moved away", input: journalPath)
            }
            record.apply(to: &state)
        }
        journalSeen = try journal.stats().nextSeq
        return (records.map(\.seq), journal.recovery)
    }

    /// Saves `state`, of which `members` changed since the files were as
    /// `stats` says: one journal record, or a compaction when the record
    /// would take the journal past its bounds.  `folding`: the records
    /// already in the journal (nil: read them when compacting).
    private func save(_ state: [String: StoreValue], members: Set<String>,
                      stats: (records: Int, bytes: Int, nextSeq: Int64), folding: [Int64]?) throws {
        let record = try JournalRecord(members: members, of: state).encoded()
        // Near the snapshot's size bound, compact: the snapshot writer then
        // refuses a state that would pass it (`.limit`), as before the
        // journal.  The snapshot and the records together are at least
        // the state's size, give or take the envelope.
        let snapshotBytes = Int(FileStamp(path: file.url.path)?.size ?? 0)
        if stats.records + 1 > Self.compactRecords || stats.bytes + record.count > Self.compactBytes
            || snapshotBytes + stats.bytes + record.count > Self.snapshotBound {
            try compact(state, folding: folding)
            return
        }
        let seq = try openJournal().append(record)
        journalSeen = seq + 1
    }

    /// Writes `state` as the snapshot, then deletes the journal records it
    /// now holds: `folding`, or every record when nil.
    private func compact(_ state: [String: StoreValue], folding: [Int64]?) throws {
        try file.write(SavedState.encode(state, version: version))
        guard journal != nil || FileManager.default.fileExists(atPath: journalPath) else {
            journalSeen = try openJournal().stats().nextSeq
            return
        }
        let j = try openJournal()
        try j.remove(try folding ?? j.records().map(\.seq))
        journalSeen = try j.stats().nextSeq
    }

    /// Copies the journal's records, when there are any, to a file no file
    /// has the name of, `PATH.journal.unreadable-<seconds>.<nanoseconds>-<pid>`
    /// (one record's JSON text a line, oldest first), before the snapshots
    /// they were written on are kept aside and the records deleted; their
    /// seqs.  Starting afresh so loses none of them.
    private func keepJournalAside() throws -> [Int64] {
        guard journal != nil || FileManager.default.fileExists(atPath: journalPath) else { return [] }
        let records = try openJournal().records()
        guard !records.isEmpty else { return [] }
        var text: [UInt8] = []
        for r in records { text += r.bytes + [0x0A] }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let stamp = "\(now.tv_sec).\(String(format: "%09ld", Int(now.tv_nsec)))-\(getpid())"
        var name = "\(journalPath).unreadable-\(stamp)"
        var attempt = 0
        while true {
            do {
                try Data(text).write(to: URL(fileURLWithPath: name), options: .withoutOverwriting)
                break
            } catch CocoaError.fileWriteFileExists where attempt < 1000 {
                attempt += 1
                name = "\(journalPath).unreadable-\(stamp)-\(attempt)"
            } catch {
                throw SDUIError(.io, "cannot keep the journal's records aside as \(name): \(error)", input: journalPath)
            }
        }
        return records.map(\.seq)
    }

    /// The journal, opened on first use.
    private func openJournal() throws -> StoreJournal {
        if let journal { return journal }
        let j = try StoreJournal(path: journalPath)
        journal = j
        return j
    }

    /// The top-level members `patches` touch; nil when one touches the
    /// whole state (or its path does not read).
    static func members(of patches: [StorePatch]) -> Set<String>? {
        var out = Set<String>()
        for p in patches {
            guard let path = try? KeyPath(p.keyPath), case .key(let top)? = path.components.first else { return nil }
            out.insert(top)
        }
        return out
    }
}
