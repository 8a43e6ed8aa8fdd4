// StringBundle.swift - the string catalogs of one locale's chain, as the
// registry serves them, a pack carries them and the disk cache keeps them.
import Foundation

/// A bundle of catalogs, `{"locale": tag, "default": tag, "catalogs":
/// {tag: {…}}}`: the JSON as it came (kept as it is in the disk cache), its
/// ETag, and the catalogs ready for lookups.
public struct StringBundle: Sendable {
    /// The bundle's JSON.
    public var json: Data
    /// Its ETag, when the registry gave one.
    public var etag: String?
    /// The catalogs, built by the C core from ``json``.
    public var catalog: StringCatalog

    /// A bundle from its parts.
    public init(json: Data, etag: String?, catalog: StringCatalog) {
        self.json = json
        self.etag = etag
        self.catalog = catalog
    }
}

/// What `GET /strings` answered.
public enum StringsFetchResult: Sendable {
    /// A 200: the bundle.
    case fetched(StringBundle)
    /// A 304: the bundle the client holds is current.
    case notModified

    /// The bundle a 200 brought; nil for a 304 (``KeptCopy``'s answer).
    var bundle: StringBundle? {
        if case .fetched(let bundle) = self { return bundle }
        return nil
    }
}

extension StringBundle: KeptDocument {
    /// A kept bundle: its catalogs built again by the C core.
    init(kept json: Data, etag: String?, source: String) throws {
        self.init(json: json, etag: etag, catalog: try StringCatalog(bundle: json, source: source))
    }
}
