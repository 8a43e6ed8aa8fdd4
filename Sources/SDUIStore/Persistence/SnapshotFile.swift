// SnapshotFile.swift - the one file a persistent scope keeps its state in:
// the C core's snapshot file (atomic replace, checksum, PATH.prev, a size
// bound, an advisory lock for writers), read once and written on each
// commit, with what is unreadable kept rather than lost.
//
// Three kinds of trouble at a read, three answers:
// - PATH damaged, PATH.prev good: the read recovers PATH.prev and says so;
//   the next write replaces the damaged PATH (PATH.prev keeps the good one).
// - Neither holds a snapshot (damaged, or not ours): the read throws, and
//   the next write first moves both aside under names that no file has
//   (`PATH.unreadable-<seconds>.<nanoseconds>-<pid>`, and the same with
//   `.prev`), so starting afresh loses nothing.
// - PATH exists but cannot be read at all (permissions, an I/O error, a
//   directory in its place): the read throws and the core refuses to write
//   over it, so nothing is replaced until someone makes it readable.
import Foundation
import SDUICore
internal import CSDUI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A scope's snapshot file.  Not thread-safe by itself: its owner serializes
/// calls (the store's lock, or the backend scope's).
final class SnapshotFile: @unchecked Sendable {
    /// PATH; its previous good generation is PATH.prev.
    let url: URL
    /// Set when the last read found neither PATH nor PATH.prev readable as a
    /// snapshot (or found one that is not a saved store): before the next
    /// write both are moved aside, so starting afresh loses nothing.
    private var unreadable = false
    /// How deep the saved value may nest (the envelope adds levels).
    private let maxDepth: UInt32
    /// PATH as this object last read or wrote it (nil: unknown).
    private var seen: FileStamp?
    /// Numbers the names of files kept aside within the process.
    private static let asideCount = Locked<Int>(0)

    init(url: URL, maxDepth: Int = JSONValue.defaultMaxDepth + 4) {
        self.url = url
        self.maxDepth = UInt32(maxDepth)
    }

    /// The saved value (nil when there is no file yet) and, when PATH was
    /// damaged and PATH.prev was read instead, why.
    ///
    /// - Throws: ``SDUIError``: `.io` when PATH exists but cannot be read
    ///   (nothing will be written over it); `.corrupt` or `.limit` when
    ///   neither PATH nor PATH.prev can be read as a snapshot (the message
    ///   says that the next write keeps them aside).
    func read() throws -> (value: JSONValue?, recovered: String?) {
        unreadable = false
        // Stamped before the read: a writer that replaces PATH between the
        // two leaves a stamp older than what was read, never the other way.
        let before = FileStamp(path: url.path)
        seen = nil
        var err = sdui_error()
        var doc: OpaquePointer?
        var recovered: Int32 = 0
        let status = sdui_snapshot_read(url.path, maxDepth, &doc, &recovered, &err)
        if status == SDUI_NOT_FOUND { return (nil, nil) }
        if status == SDUI_IO {
            let e = SDUIError(status, err, input: url.path)
            var thrown = SDUIError(.io, e.message + "; nothing is written over it until it can be read "
                                   + "(fix its permissions, or move it away)", input: url.path)
            thrown.code = e.code
            throw thrown
        }
        if status != SDUI_OK {
            unreadable = true
            let e = SDUIError(status, err, input: url.path)
            throw SDUIError(e.category, e.message + "; the next write keeps the unreadable files aside as "
                            + "\(url.lastPathComponent).unreadable-<time> (and .prev.unreadable-<time>)", input: url.path)
        }
        let value = JSONDocument(adopting: doc!).value
        if recovered == 0 { seen = before }
        // The read succeeded; the error record says why PATH itself was refused.
        let why = recovered != 0
            ? "recovered the last good state from \(url.path).prev: " + SDUIError(SDUI_CORRUPT, err, input: url.path).message
            : nil
        return (value, why)
    }

    /// Says that what the last read gave is not a saved state this store can
    /// take (a snapshot of something else): the next write keeps the files
    /// aside, as for files that do not read.
    func markUnreadable() {
        unreadable = true
        seen = nil
    }

    /// Whether PATH is still the file this object last read or wrote: no
    /// writer has replaced it since (each write renames a new file in, so
    /// its inode, size or times differ).
    var isUnchangedSinceSeen: Bool {
        guard let seen else { return false }
        return FileStamp(path: url.path) == seen
    }

    /// Replaces the file with `value` (its directory is made if missing).
    func write(_ value: JSONValue) throws {
        if unreadable {
            try keepAside()
            unreadable = false
        }
        seen = nil
        let doc = try JSONDocument(value)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var err = sdui_error()
        try SDUIError.check(sdui_snapshot_write(url.path, doc.handle, &err), err, input: url.path)
        seen = FileStamp(path: url.path)
    }

    /// Runs `body` holding the snapshot's write lock (the core's flock on
    /// PATH.lock), waiting while another writer holds it.  A writer that
    /// reads, changes and writes within one `body` loses no other writer's
    /// change.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lock = try SnapshotLock(path: url.path)
        defer { lock.release() }
        return try body()
    }

    /// Removes PATH and PATH.prev.
    func remove() throws {
        seen = nil
        for u in [url, URL(fileURLWithPath: url.path + ".prev")] {
            do { try FileManager.default.removeItem(at: u) } catch CocoaError.fileNoSuchFile {} catch {
                if FileManager.default.fileExists(atPath: u.path) { throw SDUIError(.io, "cannot remove: \(error)", input: u.path) }
            }
        }
    }

    /// Moves PATH and PATH.prev (those there) to names no file has:
    /// `PATH.unreadable-<stamp>` and `PATH.prev.unreadable-<stamp>`, the
    /// stamp being the time to the nanosecond, the process id and, should
    /// that name be taken all the same, a counter.  A name that exists is
    /// never replaced (a hard link fails on it), so two generations kept
    /// aside in the same second both stay.
    private func keepAside() throws {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let n = Self.asideCount.withLock { c in c += 1; return c }
        let stamp = "\(now.tv_sec).\(String(format: "%09ld", Int(now.tv_nsec)))-\(getpid())" + (n > 1 ? "-\(n)" : "")
        for suffix in ["", ".prev"] {
            let from = url.path + suffix
            guard FileManager.default.fileExists(atPath: from) else { continue }
            var attempt = 0
            while true {
                let to = "\(url.path)\(suffix).unreadable-\(stamp)" + (attempt > 0 ? "-\(attempt)" : "")
                if link(from, to) == 0 {
                    _ = unlink(from)   // should this fail, the name aside still holds it
                    break
                }
                let code = errno
                if code == EEXIST && attempt < 1000 {
                    attempt += 1
                    continue
                }
                if [EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS, EMLINK].contains(code),
                   !FileManager.default.fileExists(atPath: to), rename(from, to) == 0 {
                    break   // a file system without hard links
                }
                throw SDUIError(.io, "cannot keep the unreadable file aside as \(to): \(String(cString: strerror(code)))",
                                input: from)
            }
        }
    }
}
