// FolderPath.swift - the one gate between a name from outside (a URL path,
// a screen id, a watcher's event) and a file of the playground's folder:
// only regular files under the folder, reached without leaving it.
#if Server
import Foundation
import SDUICore

/// A folder the playground serves and watches, and the rule of what inside
/// it may be read.
///
/// A relative path is accepted when each of its components is a plain name
/// (no `.` or `..`, no leading dot, so `.sdui-dev/` and dotfiles stay out,
/// no NUL or backslash), it is not absolute, and the file it names,
/// with every symbolic link followed, is still under the folder's own real
/// path.  Everything else is refused with an `SDUIError` naming the path.
package struct FolderPath: Sendable {
    /// The folder, as given.
    package let url: URL
    /// The folder's real path (symbolic links resolved), without a trailing slash.
    package let realPath: String

    /// The folder at `path`; throws `.notFound` when it is not a folder.
    package init(_ path: String) throws {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else {
            throw SDUIError(.notFound, "no such folder", input: path)
        }
        guard let real = Self.realPath(path) else {
            throw SDUIError(.io, "cannot resolve the folder's real path", input: path)
        }
        url = URL(fileURLWithPath: path)
        realPath = real
    }

    /// The most bytes a relative path may have.
    package static let maxPathBytes = 1024

    /// The file `relative` names inside the folder.
    ///
    /// - Throws: `.argument` for a path that is absolute, climbs (`..`),
    ///   names a hidden entry or is malformed; `.notFound` when there is no
    ///   such regular file, or it resolves outside the folder (a symbolic
    ///   link out of it is treated as absent, so its target is not probed).
    package func file(_ relative: String) throws -> URL {
        let components = try Self.components(relative)
        let url = components.reduce(self.url) { $0.appendingPathComponent($1) }
        guard let real = Self.realPath(url.path), real.hasPrefix(realPath + "/") else {
            throw SDUIError(.notFound, "no such file in the folder", input: relative)
        }
        var st = stat()
        guard stat(real, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw SDUIError(.notFound, "no such file in the folder", input: relative)
        }
        return URL(fileURLWithPath: real)
    }

    /// The subfolder `name` (one plain name) when it is a folder whose real
    /// path is inside this folder (a symbolic link out of it is not
    /// followed); nil otherwise.
    package func subfolder(_ name: String) -> String? {
        guard (try? Self.components(name))?.count == 1,
              let real = Self.realPath(url.appendingPathComponent(name).path), real.hasPrefix(realPath + "/") else { return nil }
        var st = stat()
        guard stat(real, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return real
    }

    /// The components of `relative`, each a plain name.
    package static func components(_ relative: String) throws -> [String] {
        guard !relative.isEmpty, relative.utf8.count <= maxPathBytes else {
            throw SDUIError(.argument, "a path is 1 to \(maxPathBytes) bytes", input: String(relative.prefix(80)))
        }
        guard !relative.hasPrefix("/") else {
            throw SDUIError(.argument, "an absolute path is refused: paths are relative to the folder", input: relative)
        }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for part in parts {
            guard !part.isEmpty, !part.hasPrefix("."), !part.contains("\\"), !part.utf8.contains(0) else {
                throw SDUIError(.argument, "refused: a path's parts are plain names (no '..', no hidden names)",
                                input: relative)
            }
        }
        return parts
    }

    /// The relative path of `absolute` when it is inside the folder (as
    /// given or as its real path), else nil.
    package func relative(_ absolute: String) -> String? {
        for base in [url.path, realPath] where absolute.hasPrefix(base + "/") {
            return String(absolute.dropFirst(base.count + 1))
        }
        return nil
    }

    /// `path` with every symbolic link resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
#endif
