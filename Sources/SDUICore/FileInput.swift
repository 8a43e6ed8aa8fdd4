// FileInput.swift - reads a file or standard input with a size bound checked
// before the bytes are held, and errors that name the real cause.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole inputs (a token, a screen, a theme, a pack) without trusting
/// their size:
///
/// - a regular file larger than `limit` is refused from its size, before a
///   byte is read;
/// - a pipe, a FIFO or standard input (`-`) is read in chunks and refused as
///   soon as it passes `limit`;
/// - a directory is "is a directory"; a device, a socket or anything else
///   that is not a regular file or a pipe (`/dev/zero`) is "not a regular
///   file"; other failures carry the system's reason ("no such file or
///   directory", "permission denied").
///
/// Size errors are `.limit`, the others `.io`; each names the path.
public enum FileInput {
    /// The bound for JSON documents a person hands to the tools: screens,
    /// themes, block screens, usage files (16 MiB).
    public static let documentLimit = 16 << 20

    /// The bytes of `path` (`-` for standard input), at most `limit` of them.
    public static func read(_ path: String, limit: Int) throws -> Data {
        precondition(limit >= 0)
        if path == "-" { return try readStream(STDIN_FILENO, name: "standard input", limit: limit) }
        // The kind of file first, without opening it: a device is never
        // opened; a FIFO is opened to wait for its writer, as `cat` would.
        var st = stat()
        if stat(path, &st) == 0 { try check(st, path, limit: limit) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError(path, errno) }
        defer { close(fd) }
        guard fstat(fd, &st) == 0 else { throw ioError(path, errno) }
        try check(st, path, limit: limit)
        return try readStream(fd, name: path, limit: limit)
    }

    /// Refuses what cannot be read as a document: too large, a directory,
    /// anything but a regular file or a FIFO.
    private static func check(_ st: stat, _ path: String, limit: Int) throws {
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            if Int64(st.st_size) > Int64(limit) {
                throw SDUIError(.limit, "file is \(st.st_size) bytes; the limit is \(limit)", input: path)
            }
        case S_IFDIR:
            throw SDUIError(.io, "cannot read: is a directory", input: path)
        case S_IFIFO:
            break
        default:
            throw SDUIError(.io, "cannot read: not a regular file", input: path)
        }
    }

    /// Reads `fd` to its end, refusing more than `limit` bytes.
    private static func readStream(_ fd: Int32, name: String, limit: Int) throws -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { sysRead(fd, $0.baseAddress, $0.count) }
            if n == 0 { return data }
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError(name, errno)
            }
            guard data.count + n <= limit else {
                throw SDUIError(.limit, "input is over the limit of \(limit) bytes", input: name)
            }
            data.append(contentsOf: chunk[0..<n])
        }
    }

    /// An `.io` error with the system's reason for `code`.
    static func ioError(_ path: String, _ code: Int32) -> SDUIError {
        let reason: String
        switch code {
        case EISDIR: reason = "is a directory"
        case ENOENT: reason = "no such file or directory"
        case EACCES, EPERM: reason = "permission denied"
        default: reason = String(cString: strerror(code))
        }
        return SDUIError(.io, "cannot read: \(reason)", input: path)
    }
}

/// `read(2)`, named apart from Swift's own `read` members.
@inline(__always)
private func sysRead(_ fd: Int32, _ buf: UnsafeMutableRawPointer?, _ n: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.read(fd, buf, n)
    #elseif canImport(Musl)
    return Musl.read(fd, buf, n)
    #else
    return Glibc.read(fd, buf, n)
    #endif
}
