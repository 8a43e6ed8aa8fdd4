// StringFinding.swift - one problem a check of string catalogs found.

/// One finding of ``StringCatalog/check(usedKeys:)``, `sdui strings check`
/// and the registry's import report.
public struct StringFinding: Sendable, Hashable, Codable {
    /// What kind of problem.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A key of the default catalog that a locale's chain lacks.
        case missing
        /// A key no screen, block or flow refers to.
        case unused
        /// A key referred to that no catalog has.
        case undefined
        /// A locale's text names other `{arguments}` than the default's.
        case arguments
        /// A plural entry lacks a form its locale's rules select.
        case plural
        /// A key a locale has and the default catalog does not.
        case orphan
    }

    /// The kind.
    public var kind: Kind
    /// The locale (nil for unused and undefined keys).
    public var locale: String?
    /// The key.
    public var key: String
    /// What is wrong, as a sentence.
    public var message: String
}
