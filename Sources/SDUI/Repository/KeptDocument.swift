// KeptDocument.swift - one rule for the documents an app revalidates with
// the registry and keeps in its disk cache as they came (the experiment
// list, the string catalogs): the request carries the kept copy's ETag; a
// 200 is kept, replacing it; a 304 confirms it; when the registry cannot be
// reached or answers badly, the kept copy serves.  What the app shipped
// (a pack) comes after that, and is each source's own.
import Foundation

/// A document the registry serves with an ETag, which the app keeps in its
/// disk cache exactly as it came.
protocol KeptDocument: Sendable {
    /// The document as it came.
    var json: Data { get }
    /// Its ETag, when the registry gave one.
    var etag: String? { get }
    /// Reads a kept copy back; `source` names it in errors.
    init(kept json: Data, etag: String?, source: String) throws
}

/// A document kept in the disk cache under one row, and its revalidation
/// with the registry.
///
/// The row is a screen row whose id is a path (`/experiments`,
/// `/strings/de-CH`), which no screen id can be: a registry id has no `/`.
struct KeptCopy<Document: KeptDocument>: Sendable {
    /// Where a document came from.
    enum Origin: Sendable {
        /// The registry answered 200, or 304 for the kept copy.
        case registry
        /// The kept copy, the registry not answering.
        case diskCache
    }

    /// What ``revalidate(now:fetch:)`` found.
    struct Found: Sendable {
        /// The document, or nil when neither the registry nor the disk
        /// cache had one.
        var document: Document?
        /// Where it came from (nil with no document).
        var origin: Origin?
        /// Why a better source was not used.
        var problems: [String]
    }

    /// The disk-cache row.
    let key: String
    /// The disk cache (nil: nothing is kept).
    let disk: DiskCache?
    /// What the document is called in problems ("list", "catalogs").
    let noun: String

    /// Revalidates the kept copy: `fetch` asks the registry with an ETag
    /// (or none) and returns the new document, or nil for a 304; a nil
    /// `fetch` is an app offline by design.  Never throws: each failure is
    /// a problem, and the next source is tried.
    func revalidate(now: Date,
                    fetch: ((_ ifNoneMatch: String?) async throws -> Document?)?) async -> Found {
        var problems: [String] = []
        var kept: Document?
        if let disk {
            do {
                if let row = try disk.screen(key, now: now) {
                    kept = try Document(kept: row.payload, etag: row.etag.isEmpty ? nil : row.etag,
                                        source: "\(disk.path): \(key)")
                }
            } catch {
                problems.append("the kept \(noun) cannot be used: \(error)")
            }
        }
        if let fetch {
            do {
                if let fetched = try await fetch(kept?.etag) {
                    if let disk {
                        do {
                            try await disk.writeScreen(DiskCache.Screen(id: key, etag: fetched.etag ?? "",
                                                                         payload: fetched.json, fetchedAt: now),
                                                       now: now)
                        } catch {
                            problems.append("the \(noun) could not be kept: \(error)")
                        }
                    }
                    return Found(document: fetched, origin: .registry, problems: problems)
                }
                if let kept { return Found(document: kept, origin: .registry, problems: problems) }
                problems.append("the registry answered 304, but nothing is kept")
            } catch {
                problems.append("the registry's \(noun) cannot be had: \(error)")
            }
        }
        if let kept { return Found(document: kept, origin: .diskCache, problems: problems) }
        return Found(document: nil, origin: nil, problems: problems)
    }
}
