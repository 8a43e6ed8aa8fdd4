// FilePersistence.swift - the file scope: the whole state in one JSON file,
// replaced atomically on each commit and checked when read (the C core's
// snapshot file: temporary file, fsync, rename; PATH.prev keeps the last
// good state).
import Foundation
import SDUICore
internal import CSDUI

/// Saves a store's state as a snapshot file.
final class FilePersistence: StorePersistence, @unchecked Sendable {
    // The store serializes calls (StorePersistence), so `unreadable` needs
    // no lock of its own.
    let url: URL
    let version: SemanticVersion?
    /// Set when neither PATH nor PATH.prev could be read: before the first
    /// write they are renamed aside, so starting afresh loses nothing.
    private var unreadable = false

    /// A snapshot file at `url`, stamped with `version`.
    init(url: URL, version: SemanticVersion?) {
        self.url = url
        self.version = version
    }

    /// Reads the snapshot; a recovery from PATH.prev or a dropped major
    /// version comes back as the warning.
    func load() throws -> (state: [String: StoreValue]?, warning: String?) {
        var err = sdui_error()
        var doc: OpaquePointer?
        var recovered: Int32 = 0
        let status = sdui_snapshot_read(url.path, UInt32(JSONValue.defaultMaxDepth) + 2, &doc, &recovered, &err)
        if status == SDUI_NOT_FOUND { return (nil, nil) }
        if status != SDUI_OK && status != SDUI_IO {
            unreadable = true
            let e = SDUIError(status, err, input: url.path)
            throw SDUIError(e.category, e.message + "; the first write keeps the unreadable files aside as "
                            + "\(url.lastPathComponent).unreadable-<time> (and .prev.unreadable-<time>)", input: url.path)
        }
        try SDUIError.check(status, err, input: url.path)
        let document = JSONDocument(adopting: doc!)
        var warning: String?
        if recovered != 0 {
            // The call succeeded; the record says why PATH itself was refused.
            warning = "recovered the last good state from \(url.path).prev: "
                + SDUIError(SDUI_CORRUPT, err, input: url.path).message
        }
        let (state, dropped) = try SavedState.decode(document.value, version: version)
        if let dropped, let version {
            warning = [warning, "dropped the data saved by version \(dropped): this is \(version), a new major version"]
                .compactMap { $0 }.joined(separator: "; ")
            try clear()
        }
        return (state, warning)
    }

    /// Writes the state as the new snapshot.
    func commit(_ state: [String: StoreValue], change: StoreChange) throws {
        if unreadable {
            let stamp = Int(Date().timeIntervalSince1970)
            for (from, to) in [(url.path, "\(url.path).unreadable-\(stamp)"),
                               (url.path + ".prev", "\(url.path).prev.unreadable-\(stamp)")]
            where FileManager.default.fileExists(atPath: from) {
                guard rename(from, to) == 0 else {
                    throw SDUIError(.io, "cannot keep the unreadable file aside as \(to): \(String(cString: strerror(errno)))",
                                    input: from)
                }
            }
            unreadable = false
        }
        let doc = try JSONDocument(SavedState.encode(state, version: version))
        var err = sdui_error()
        try SDUIError.check(sdui_snapshot_write(url.path, doc.handle, &err), err, input: url.path)
    }

    /// Removes the file and its previous generation.
    func clear() throws {
        for u in [url, URL(fileURLWithPath: url.path + ".prev")] {
            do { try FileManager.default.removeItem(at: u) } catch CocoaError.fileNoSuchFile {} catch {
                if FileManager.default.fileExists(atPath: u.path) { throw SDUIError(.io, "cannot remove: \(error)", input: u.path) }
            }
        }
    }
}
