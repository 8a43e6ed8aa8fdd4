// FilePersistence.swift - the file scope: the whole state in one JSON file,
// replaced atomically on each commit and checked when read (the C core's
// snapshot file: temporary file, fsync, rename; PATH.prev keeps the last
// good state).
//
// Several processes (or several stores of one process) may keep one file.
// Each commit runs under the file's advisory lock (SnapshotLock): if the
// file is still the one this store last read or wrote, the store's state is
// written as it is; otherwise the file is read again and the commit's
// patches are replayed on what it holds (SavedMerge), and the result is
// written and handed back so the store takes it as its own.  Writers so
// serialize, and none loses another's change.
//
// A commit that cannot be saved (the file cannot be read, the disk is
// full) keeps its steps; the next commit replays them before its own, so a
// change made while the file was unreadable is saved once it is readable
// again, into what the file holds then.
import Foundation
import SDUICore

/// Saves a store's state as a snapshot file.
final class FilePersistence: StorePersistence, @unchecked Sendable {
    // The store serializes calls (StorePersistence), which covers `file`
    // and `unsaved`.
    let file: SnapshotFile
    let version: SemanticVersion?
    /// The steps of commits that could not be saved, oldest first.
    private var unsaved: [SavedMerge.Step] = []

    /// A snapshot file at `url`, stamped with `version`.
    init(url: URL, version: SemanticVersion?) {
        self.file = SnapshotFile(url: url)
        self.version = version
    }

    /// Reads the snapshot; a recovery from PATH.prev or a dropped major
    /// version comes back as the warning.
    ///
    /// - Throws: the read's ``SDUIError``: `.io` when the file exists but
    ///   cannot be read (the store then starts empty and saves nothing over
    ///   it); `.corrupt` or `.limit` when neither it nor its .prev reads
    ///   (the next save keeps both aside); `.schema` for a snapshot that is
    ///   not a saved store (kept aside the same way).
    func load() throws -> (state: [String: StoreValue]?, warning: String?) {
        let (saved, recovered) = try file.read()
        guard let saved else { return (nil, nil) }
        var warning = recovered
        let state: [String: StoreValue], dropped: SemanticVersion?
        do { (state, dropped) = try SavedState.decode(saved, version: version) } catch {
            file.markUnreadable()
            throw error
        }
        if let dropped, let version {
            warning = [warning, "dropped the data saved by version \(dropped): this is \(version), a new major version"]
                .compactMap { $0 }.joined(separator: "; ")
            try clear()
        }
        return (state, warning)
    }

    /// Saves the commit under the file's lock, merged into what other
    /// writers saved since this store last read or wrote the file (the
    /// file's essay).  Returns the state saved when it is not `state`.
    func commit(_ state: [String: StoreValue], change: StoreChange) throws -> [String: StoreValue]? {
        let steps = unsaved + SavedMerge.steps(of: change.patches)
        do {
            let saved = try file.withLock { () throws -> [String: StoreValue]? in
                if unsaved.isEmpty && file.isUnchangedSinceSeen {
                    try file.write(SavedState.encode(state, version: version))
                    return nil
                }
                // No state to replay on (neither file reads): the store's own, whole.
                let merged = try current().map { SavedMerge.apply(steps, to: $0, own: state) } ?? state
                try file.write(SavedState.encode(merged, version: version))
                return merged == state ? nil : merged
            }
            unsaved = []
            return saved
        } catch {
            unsaved = steps
            throw error
        }
    }

    /// What the file holds now (under the lock): its state, empty when
    /// there is no file or it was saved by another major version, nil when
    /// neither it nor its .prev reads (they are kept aside by the write,
    /// and the store's own state is saved whole).
    ///
    /// - Throws: `.io` when the file exists but cannot be read.
    private func current() throws -> [String: StoreValue]? {
        let saved: JSONValue?
        do { saved = try file.read().value } catch let e as SDUIError where e.category != .io {
            return nil   // read() marked the files to keep aside
        }
        guard let saved else { return [:] }
        do { return try SavedState.decode(saved, version: version).state } catch {
            file.markUnreadable()
            return nil
        }
    }

    /// Removes the file and its previous generation (under the lock).
    func clear() throws {
        unsaved = []
        try file.withLock { try file.remove() }
    }
}
