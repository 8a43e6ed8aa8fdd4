// FolderWatcher.swift - tells the playground which files of its folder
// changed: inotify on Linux, kqueue (a dispatch source per folder) on Apple
// platforms, and a polling fallback everywhere.
//
// The watcher reports relative paths (`tokens/checkout_header.json`) in
// batches: the events that arrive within a few milliseconds of the first
// are reported together, so an editor's save (often a write, a rename and
// a delete) is one batch.  What it reports is only a hint to read the file
// again: PlaygroundFolder.reload reads the file and decides; a path the
// watcher names that is not a playground file is ignored there.  When the
// kernel's queue overflows, the watcher reports ``FolderWatcher/everything``
// and the folder is read again whole.
//
// inotify.  One watch on the folder (for its subfolders coming and going)
// and one on each subfolder the playground reads.  A file's change is its
// close after writing, a rename into the folder, a rename out or a delete;
// a file merely created is not yet a change (its content follows with the
// close).  A subfolder created later gets its watch then, and its files
// are reported.
//
// Polling.  Every interval the watcher lists the subfolders and compares
// each file's size, modification time and inode with the last listing; a
// difference is a change.  The listing is bounded (PlaygroundFolder's
// files per folder), so a poll's work is too.
//
// The watcher runs on a thread of its own (the inotify read blocks in
// poll(2) with a short timeout, so ``FolderWatcher/stop()`` ends it within
// that timeout).
#if Server
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reports the files of a folder that changed (see the file's essay).
package final class FolderWatcher: @unchecked Sendable {
    /// How changes are found.
    package enum Mode: String, Sendable, CaseIterable {
        /// inotify (Linux) or kqueue (Apple); polling where neither is available.
        case native
        /// A listing compared every interval.
        case polling
    }

    /// The path reported when the kernel dropped events: read everything again.
    package static let everything = "*"

    /// The folder watched.
    package let root: FolderPath
    /// Its subfolders whose files are reported.
    package let folders: [String]
    /// How changes are being found (native falls back to polling when the
    /// kernel's watch cannot be set up).
    package private(set) var mode: Mode
    /// The polling interval.
    package let interval: Duration

    // Written once by start(), read by the thread; `stopped` under `lock`.
    private let lock = NSLock()
    private var stopped = false
    private var thread: Thread?

    /// A watcher of `folders` under `root`; nothing is watched before ``changes()``.
    package init(root: FolderPath, folders: [String], mode: Mode = .native, interval: Duration = .milliseconds(250)) {
        self.root = root
        self.folders = folders
        self.mode = mode
        self.interval = interval
    }

    deinit { stop() }

    /// Starts watching; each element is one batch of changed relative paths.
    /// Call once.
    package func changes() -> AsyncStream<[String]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [String].self, bufferingPolicy: .bufferingNewest(64))
        var started = false
        #if canImport(Glibc)
        if mode == .native, let inotify = Inotify(root: root, folders: folders) {
            started = true
            run { [weak self] in inotify.loop(isStopped: { self?.isStopped ?? true }, yield: { continuation.yield($0) }) }
        }
        #elseif canImport(Darwin)
        if mode == .native {
            started = true
            let poller = Poller(root: root, folders: folders)
            let sources = DirectorySources(root: root, folders: folders)
            run { [weak self] in
                poller.loop(interval: .seconds(1), wake: sources.signal,
                            isStopped: { self?.isStopped ?? true }, yield: { continuation.yield($0) })
                sources.cancel()
            }
        }
        #endif
        if !started {
            mode = .polling
            let poller = Poller(root: root, folders: folders)
            let interval = interval
            run { [weak self] in
                poller.loop(interval: interval, wake: nil, isStopped: { self?.isStopped ?? true },
                            yield: { continuation.yield($0) })
            }
        }
        continuation.onTermination = { [weak self] _ in self?.stop() }
        return stream
    }

    /// Stops the watcher's thread (within a poll's timeout).
    package func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    /// Whether ``stop()`` was called.
    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    /// Runs `body` on the watcher's own thread.
    private func run(_ body: @escaping @Sendable () -> Void) {
        let t = Thread(block: body)
        t.name = "sdui-dev-watch"
        thread = t
        t.start()
    }
}

// MARK: - Polling

/// The polling way: a listing of the subfolders compared with the last one.
struct Poller: Sendable {
    let root: FolderPath
    let folders: [String]

    /// What identifies a file's content without reading it.
    struct Stamp: Equatable {
        var size: Int64
        var mtime: Int64   // nanoseconds
        var inode: UInt64
    }

    /// Each file of the subfolders with its stamp.
    func listing() -> [String: Stamp] {
        var out: [String: Stamp] = [:]
        for folder in folders {
            guard let dir = root.subfolder(folder) else { continue }
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
                .filter { !$0.hasPrefix(".") }.sorted().prefix(PlaygroundFolder.maxFilesPerFolder)
            for name in names {
                var st = stat()
                guard lstat(dir + "/" + name, &st) == 0 else { continue }
                #if canImport(Darwin)
                let mtime = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
                #else
                let mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
                #endif
                out["\(folder)/\(name)"] = Stamp(size: Int64(st.st_size), mtime: mtime, inode: UInt64(st.st_ino))
            }
        }
        return out
    }

    /// The paths whose stamp differs between `old` and `new` (added,
    /// changed or removed), sorted.
    static func changed(_ old: [String: Stamp], _ new: [String: Stamp]) -> [String] {
        var paths: Set<String> = []
        for (path, stamp) in new where old[path] != stamp { paths.insert(path) }
        for path in old.keys where new[path] == nil { paths.insert(path) }
        return paths.sorted()
    }

    /// Lists every `interval` (or sooner when `wake` is signalled) until
    /// `isStopped`, yielding what changed.
    func loop(interval: Duration, wake: DispatchSemaphore?, isStopped: () -> Bool, yield: ([String]) -> Void) {
        var last = listing()
        let slice = Duration.milliseconds(50)
        while !isStopped() {
            var waited = Duration.zero
            while waited < interval && !isStopped() {
                if let wake, wake.wait(timeout: .now() + .milliseconds(50)) == .success { break }
                if wake == nil { Thread.sleep(forTimeInterval: 0.05) }
                waited += slice
            }
            if isStopped() { break }
            let now = listing()
            let paths = Self.changed(last, now)
            last = now
            if !paths.isEmpty { yield(paths) }
        }
    }
}

#if canImport(Glibc)
// MARK: - inotify

/// The inotify way (Linux).
final class Inotify: @unchecked Sendable {
    // The kernel's event bits (linux/inotify.h; part of the ABI).
    static let closeWrite: UInt32 = 0x8, movedFrom: UInt32 = 0x40, movedTo: UInt32 = 0x80
    static let create: UInt32 = 0x100, delete: UInt32 = 0x200, deleteSelf: UInt32 = 0x400
    static let moveSelf: UInt32 = 0x800, overflow: UInt32 = 0x4000, isDir: UInt32 = 0x4000_0000
    static let onlyDir: UInt32 = 0x0100_0000
    /// What a subfolder's watch listens for.
    static let fileEvents = closeWrite | movedFrom | movedTo | delete | deleteSelf | moveSelf
    /// What the folder's own watch listens for: subfolders coming and going.
    static let folderEvents = create | movedTo | movedFrom | delete | onlyDir

    let root: FolderPath
    let folders: [String]
    let fd: Int32
    /// Which subfolder each watch descriptor is (the root's is "").
    private var names: [Int32: String] = [:]

    /// Sets up the watches; nil when inotify is not available.
    init?(root: FolderPath, folders: [String]) {
        self.root = root
        self.folders = folders
        fd = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        guard fd >= 0 else { return nil }
        let top = inotify_add_watch(fd, root.realPath, Self.folderEvents)
        guard top >= 0 else {
            close(fd)
            return nil
        }
        names[top] = ""
        for folder in folders { _ = watch(folder) }
    }

    deinit { close(fd) }

    /// Watches subfolder `folder` when it is there; true when it is.
    @discardableResult
    private func watch(_ folder: String) -> Bool {
        // A subfolder that is a link out of the folder is not watched.
        guard let dir = root.subfolder(folder) else { return false }
        let wd = inotify_add_watch(fd, dir, Self.fileEvents | Self.onlyDir)
        guard wd >= 0 else { return false }
        names[wd] = folder
        return true
    }

    /// Reads events until `isStopped`, yielding each batch.
    func loop(isStopped: () -> Bool, yield: ([String]) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while !isStopped() {
            var batch: [String] = []
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            // The first event, then whatever follows within 10 ms: one batch.
            drain(&buffer, into: &batch)
            var more = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while poll(&more, 1, 10) > 0 { drain(&buffer, into: &batch) }
            var seen: Set<String> = []
            let unique = batch.filter { seen.insert($0).inserted }
            if !unique.isEmpty { yield(unique) }
        }
    }

    /// Reads what is queued and appends the relative paths it names.
    private func drain(_ buffer: inout [UInt8], into batch: inout [String]) {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return }
        var at = 0
        // struct inotify_event: wd (4), mask (4), cookie (4), len (4), name[len].
        while at + 16 <= n {
            let (wd, mask, len) = buffer.withUnsafeBytes { raw in
                (raw.loadUnaligned(fromByteOffset: at, as: Int32.self),
                 raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self),
                 Int(raw.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)))
            }
            let nameBytes = buffer[(at + 16)..<min(at + 16 + len, n)].prefix { $0 != 0 }
            let name = String(decoding: nameBytes, as: UTF8.self)
            at += 16 + len
            if mask & Self.overflow != 0 {
                batch.append(FolderWatcher.everything)
                continue
            }
            guard let folder = names[wd] else { continue }
            if folder.isEmpty {
                // A subfolder of the root came (watch it, report its files) or went.
                guard folders.contains(name) else { continue }
                if mask & (Self.create | Self.movedTo) != 0, watch(name), let dir = root.subfolder(name) {
                    for file in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() {
                        batch.append("\(name)/\(file)")
                    }
                } else if mask & (Self.delete | Self.movedFrom) != 0 {
                    batch.append(FolderWatcher.everything)
                }
                continue
            }
            if mask & (Self.deleteSelf | Self.moveSelf) != 0 {
                names[wd] = nil
                batch.append(FolderWatcher.everything)
                continue
            }
            if !name.isEmpty, mask & Self.isDir == 0 { batch.append("\(folder)/\(name)") }
        }
    }
}
#endif

#if canImport(Darwin)
// MARK: - kqueue (Apple)

/// Dispatch sources (kqueue) on the folder and its subfolders: a rename,
/// a create or a delete in one (how editors save) signals the poller at
/// once; a write in place is found by its next poll.
final class DirectorySources: @unchecked Sendable {
    let signal = DispatchSemaphore(value: 0)
    private var sources: [DispatchSourceFileSystemObject] = []

    init(root: FolderPath, folders: [String]) {
        for path in [root.realPath] + folders.compactMap({ root.subfolder($0) }) {
            let fd = open(path, O_EVTONLY)
            guard fd >= 0 else { continue }
            let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: fd, eventMask: [.write, .rename, .delete],
                                                                   queue: .global())
            source.setEventHandler { [signal] in signal.signal() }
            source.setCancelHandler { close(fd) }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() { sources.forEach { $0.cancel() } }
}
#endif
#endif
