// StoredCatalog.swift - one version of a locale's string catalog as a registry stores it.
import Foundation

/// A published string catalog: the JSON object of one locale's strings
/// (`strings/<locale>.json`, schemas/string-catalog.json), versioned like a
/// token: a changed catalog is stored as the next version of its locale,
/// and the newest version is what `GET /strings` serves.
public struct StoredCatalog: Sendable, Equatable {
    /// The locale's canonical BCP 47 tag (`de-CH`).
    public var locale: String
    /// The version: 1, 2, … per locale; assigned by the store (0 in a
    /// record not yet written).
    public var version: Int
    /// The catalog's JSON object.
    public var json: Data
    /// Whether this locale is the registry's default: the last locale of
    /// every fallback chain.  The newest catalog marked default wins.
    public var isDefault: Bool
    /// The registry sequence number of the write that stored it; assigned
    /// by the store (0 in a record not yet written).
    public var seq: Int64

    /// A catalog record.  Leave `version` and `seq` at 0 when publishing:
    /// the store assigns them.
    public init(locale: String, json: Data, isDefault: Bool = false, version: Int = 0, seq: Int64 = 0) {
        self.locale = locale
        self.version = version
        self.json = json
        self.isDefault = isDefault
        self.seq = seq
    }
}
