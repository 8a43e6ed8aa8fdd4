// FilePersistence.swift - the file scope: the whole state in one JSON file,
// replaced atomically on each commit and checked when read (the C core's
// snapshot file: temporary file, fsync, rename; PATH.prev keeps the last
// good state).
import Foundation
import SDUICore

/// Saves a store's state as a snapshot file.
final class FilePersistence: StorePersistence, @unchecked Sendable {
    // The store serializes calls (StorePersistence), which covers `file`.
    let file: SnapshotFile
    let version: SemanticVersion?

    /// A snapshot file at `url`, stamped with `version`.
    init(url: URL, version: SemanticVersion?) {
        self.file = SnapshotFile(url: url)
        self.version = version
    }

    /// Reads the snapshot; a recovery from PATH.prev or a dropped major
    /// version comes back as the warning.
    func load() throws -> (state: [String: StoreValue]?, warning: String?) {
        let (saved, recovered) = try file.read()
        guard let saved else { return (nil, nil) }
        var warning = recovered
        let (state, dropped) = try SavedState.decode(saved, version: version)
        if let dropped, let version {
            warning = [warning, "dropped the data saved by version \(dropped): this is \(version), a new major version"]
                .compactMap { $0 }.joined(separator: "; ")
            try clear()
        }
        return (state, warning)
    }

    /// Writes the state as the new snapshot.
    func commit(_ state: [String: StoreValue], change: StoreChange) throws {
        try file.write(SavedState.encode(state, version: version))
    }

    /// Removes the file and its previous generation.
    func clear() throws {
        try file.remove()
    }
}
