// SnapshotLock.swift - the C core's advisory write lock of a snapshot file
// (sdui_snapshot_lock_open: an exclusive flock on PATH.lock), held while a
// writer reads, changes and writes the file.
import SDUICore
internal import CSDUI

/// The core's write lock of one snapshot path, held from `init` until
/// ``release()`` (or `deinit`, should a caller forget).
final class SnapshotLock {
    // Used by one thread between init and release; hence not Sendable.
    private var handle: OpaquePointer?

    /// Takes the lock of the snapshot at `path`, waiting while it is held.
    init(path: String) throws {
        var err = sdui_error()
        var lock: OpaquePointer?
        try SDUIError.check(sdui_snapshot_lock_open(path, 1, &lock, &err), err, input: path)
        handle = lock
    }

    /// Lets go of the lock.
    func release() {
        sdui_snapshot_lock_free(handle)
        handle = nil
    }

    deinit { sdui_snapshot_lock_free(handle) }
}
