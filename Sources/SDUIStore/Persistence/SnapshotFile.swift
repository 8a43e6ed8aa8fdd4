// SnapshotFile.swift - the one file a persistent scope keeps its state in:
// the C core's snapshot file (atomic replace, checksum, PATH.prev), read once
// and written on each commit, with what is unreadable kept rather than lost.
import Foundation
import SDUICore
internal import CSDUI

/// A scope's snapshot file.  Not thread-safe by itself: its owner serializes
/// calls (the store's lock, or the backend scope's).
final class SnapshotFile: @unchecked Sendable {
    /// PATH; its previous good generation is PATH.prev.
    let url: URL
    /// Set when neither PATH nor PATH.prev could be read: before the first
    /// write both are renamed aside, so starting afresh loses nothing.
    private var unreadable = false
    /// How deep the saved value may nest (the envelope adds levels).
    private let maxDepth: UInt32

    init(url: URL, maxDepth: Int = JSONValue.defaultMaxDepth + 4) {
        self.url = url
        self.maxDepth = UInt32(maxDepth)
    }

    /// The saved value (nil when there is no file yet) and, when PATH was
    /// damaged and PATH.prev was read instead, why.
    ///
    /// - Throws: ``SDUIError`` when neither can be read; the message says
    ///   that the first write keeps them aside.
    func read() throws -> (value: JSONValue?, recovered: String?) {
        var err = sdui_error()
        var doc: OpaquePointer?
        var recovered: Int32 = 0
        let status = sdui_snapshot_read(url.path, maxDepth, &doc, &recovered, &err)
        if status == SDUI_NOT_FOUND { return (nil, nil) }
        if status != SDUI_OK && status != SDUI_IO {
            unreadable = true
            let e = SDUIError(status, err, input: url.path)
            throw SDUIError(e.category, e.message + "; the first write keeps the unreadable files aside as "
                            + "\(url.lastPathComponent).unreadable-<time> (and .prev.unreadable-<time>)", input: url.path)
        }
        try SDUIError.check(status, err, input: url.path)
        let value = JSONDocument(adopting: doc!).value
        // The read succeeded; the error record says why PATH itself was refused.
        let why = recovered != 0
            ? "recovered the last good state from \(url.path).prev: " + SDUIError(SDUI_CORRUPT, err, input: url.path).message
            : nil
        return (value, why)
    }

    /// Replaces the file with `value` (its directory is made if missing).
    func write(_ value: JSONValue) throws {
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
        let doc = try JSONDocument(value)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var err = sdui_error()
        try SDUIError.check(sdui_snapshot_write(url.path, doc.handle, &err), err, input: url.path)
    }

    /// Removes PATH and PATH.prev.
    func remove() throws {
        for u in [url, URL(fileURLWithPath: url.path + ".prev")] {
            do { try FileManager.default.removeItem(at: u) } catch CocoaError.fileNoSuchFile {} catch {
                if FileManager.default.fileExists(atPath: u.path) { throw SDUIError(.io, "cannot remove: \(error)", input: u.path) }
            }
        }
    }
}
