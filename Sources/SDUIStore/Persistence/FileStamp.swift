// FileStamp.swift - what a file name leads to and when it last changed, to
// tell cheaply whether another writer has replaced a snapshot file.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path led to and when it last changed.  Equal stamps mean
/// that no writer replaced the file in between: a snapshot write renames a
/// new file over the name, which changes the inode, and its change time.
struct FileStamp: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: [Int]
    let changed: [Int]

    /// The stamp of the file at `path`; nil when there is none.
    init?(path: String) {
        var sb = stat()
        guard stat(path, &sb) == 0 else { return nil }
        device = UInt64(truncatingIfNeeded: sb.st_dev)
        inode = UInt64(truncatingIfNeeded: sb.st_ino)
        size = Int64(sb.st_size)
        #if canImport(Darwin)
        modified = [Int(sb.st_mtimespec.tv_sec), Int(sb.st_mtimespec.tv_nsec)]
        changed = [Int(sb.st_ctimespec.tv_sec), Int(sb.st_ctimespec.tv_nsec)]
        #else
        modified = [Int(sb.st_mtim.tv_sec), Int(sb.st_mtim.tv_nsec)]
        changed = [Int(sb.st_ctim.tv_sec), Int(sb.st_ctim.tv_nsec)]
        #endif
    }
}
