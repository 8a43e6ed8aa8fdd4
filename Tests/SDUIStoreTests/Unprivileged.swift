// Unprivileged.swift - file access as a user who is not root, for tests of
// files that cannot be read, when the suite runs as root (CI does).
//
// Root reads a file of mode 000 (CAP_DAC_OVERRIDE), so a test of EACCES
// needs another user.  Linux keeps a file-system user and group id per
// thread (setfsuid(2), setfsgid(2)); on a thread of its own set to "nobody"
// (65534), the kernel checks every open, stat and rename as nobody's, and
// drops the capabilities that would bypass the modes, for that thread only:
// the EACCES is the kernel's own.  The thread sets them back before it
// ends.  Not root: the current user is not exempt from modes anyway, and
// the body runs as it is.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import SDUIStore

enum Unprivileged {
    /// nobody / nogroup.
    static let id: UInt32 = 65534

    /// setfsuid or setfsgid, looked up at run time (Swift's Glibc module
    /// does not import <sys/fsuid.h>).
    private typealias SetFileSystemID = @convention(c) (UInt32) -> Int32

    /// The C function `name` from the process's libraries.
    private static func function(_ name: String) -> SetFileSystemID {
        guard let symbol = dlsym(nil, name) else { fatalError("no \(name) in this C library") }
        return unsafeBitCast(symbol, to: SetFileSystemID.self)
    }

    /// Whether the tests run as root (then `run` switches ids).
    static var isRoot: Bool { geteuid() == 0 }

    /// Makes nobody the owner of those of `paths` that exist (and of a
    /// folder among them), so that nobody may use them as their owner
    /// would; does nothing when not root.
    static func own(_ dir: URL, _ paths: String...) throws {
        guard isRoot else { return }
        for p in [dir.path] + paths where FileManager.default.fileExists(atPath: p) {
            guard chown(p, id, id) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM) }
        }
    }

    /// Runs `body` with nobody's file access when root (on a thread whose
    /// file-system ids are nobody's), as it is otherwise; returns its result.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        guard isRoot else { return body() }
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let setfsuid = function("setfsuid"), setfsgid = function("setfsgid")
            _ = setfsgid(id)
            _ = setfsuid(id)
            precondition(setfsuid(id) == Int32(id), "setfsuid did not take")
            let value = body()
            _ = setfsuid(0)
            _ = setfsgid(0)
            result.withLock { $0 = value }
            done.signal()
        }
        thread.start()
        done.wait()
        return result.withLock { $0! }
    }
}
