// ServedStrings.swift - the string catalogs a registry serves: the newest
// version of each locale's, and the bundles GET /strings answers.
#if Server
import Foundation
import SDUI
import SDUICore
import SDUIRegistryKit

/// The registry's string catalogs in memory: the newest stored version of
/// each locale's catalog (each checked by the C core when it is applied;
/// a row that does not parse is left out and logged), and the default
/// locale (the newest row marked default).
///
/// `GET /strings/{locale}` and `GET /strings` (negotiated from
/// `Accept-Language`) answer a bundle, `{"locale": tag, "default": tag,
/// "catalogs": {tag: {…}}}`, holding the catalogs of the locale's chain and
/// of the default locale's chain that the registry has: one request gives
/// a client everything its lookups fall back along.
struct ServedStrings: Sendable {
    /// The newest catalog of each locale.
    private(set) var catalogs: [String: StoredCatalog] = [:]
    /// The default locale (nil until a catalog marked default is stored).
    private(set) var defaultLocale: String?
    /// The sequence number of the row that set the default.
    private var defaultSeq: Int64 = -1
    /// Bundles already written, by locale (at most ``maxCachedBundles``;
    /// emptied when full): a new box whenever a catalog changes, so a
    /// snapshot never serves another's bundle.
    private var cache = Locked<[String: (json: Data, etag: String)]>([:])
    /// The most bundles kept: a request may name any tag.
    static let maxCachedBundles = 256

    /// Takes a stored row: checks it with the C core and keeps it when it
    /// is newer than the locale's kept version.
    mutating func apply(_ row: StoredCatalog) throws {
        _ = try StringCatalog(defaultLocale: row.locale, catalogs: [row.locale: row.json],
                              source: "catalog \(row.locale) v\(row.version)")
        if let kept = catalogs[row.locale], kept.version > row.version { return }
        catalogs[row.locale] = row
        cache = Locked([:])
        if row.isDefault, row.seq > defaultSeq {
            defaultLocale = row.locale
            defaultSeq = row.seq
        }
    }

    /// The locales that have a catalog.
    var locales: Set<String> { Set(catalogs.keys) }

    /// The bundle for `locale` (canonical), or nil when the registry has no
    /// catalogs.  Its ETag names its bytes.
    func bundle(for locale: String) -> (json: Data, etag: String)? {
        guard !catalogs.isEmpty else { return nil }
        if let hit = cache.withLock({ $0[locale] }) { return hit }
        let fallback = defaultLocale ?? catalogs.keys.min()!
        let json = StringBundleWriter.bundle(catalogs: catalogs.mapValues(\.json), defaultLocale: fallback,
                                             for: [locale], locale: locale)
        let made = (json: json, etag: ETag.of(json: json))
        cache.withLock { kept in
            if kept.count >= Self.maxCachedBundles { kept.removeAll(keepingCapacity: true) }
            kept[locale] = made
        }
        return made
    }
}
#endif
