// StringFolder.swift - a folder of string catalogs, strings/<locale>.json,
// read into one set for the CLI's commands.
#if Server
import Foundation
import SDUI
import SDUICore

/// Reads a folder of catalogs (`<locale>.json`, named by the canonical tag).
package enum StringFolder {
    /// The catalogs of `dir` by canonical locale, as their files hold them.
    ///
    /// - Throws: ``SDUIError`` naming the file whose name is not a canonical
    ///   locale tag, or a file that cannot be read.
    package static func files(_ dir: URL) throws -> [String: Data] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDir), isDir.boolValue else {
            throw SDUIError(.notFound, "no such folder", input: dir.path)
        }
        var out: [String: Data] = [:]
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        for name in names {
            let stem = String(name.dropLast(5))
            let tag = try LocaleTag(stem).identifier
            guard tag == stem else {
                throw SDUIError(.argument, "name the file by the canonical tag: \(tag).json", input: name)
            }
            out[tag] = try FileInput.read(dir.appendingPathComponent(name).path, limit: FileInput.documentLimit)
        }
        return out
    }

    /// The set of `dir`'s catalogs with `defaultLocale`.
    ///
    /// - Throws: ``SDUIError`` naming the catalog, JSON path and byte of a
    ///   fault, or when the default locale has no catalog.
    package static func catalog(_ dir: URL, defaultLocale: String) throws -> StringCatalog {
        try catalog(try files(dir), defaultLocale: defaultLocale, source: dir.path)
    }

    /// The set of catalogs already read (``files(_:)``) with `defaultLocale`;
    /// `source` names the folder in errors.
    package static func catalog(_ files: [String: Data], defaultLocale: String, source: String) throws -> StringCatalog {
        let fallback = try LocaleTag(defaultLocale).identifier
        guard files[fallback] != nil else {
            throw SDUIError(.notFound, "no catalog of the default locale \(fallback) (\(fallback).json)", input: source)
        }
        return try StringCatalog(defaultLocale: fallback, catalogs: files, source: source)
    }
}
#endif
