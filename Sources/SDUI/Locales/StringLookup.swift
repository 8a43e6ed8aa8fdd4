// StringLookup.swift - what a catalog lookup found.

/// The text of a key and where it came from (``StringCatalog/text(_:locale:arguments:)``).
public struct StringLookup: Sendable, Hashable {
    /// The text with its arguments put in; the key itself when missing.
    public var text: String
    /// The locale whose catalog had the key; nil when missing.
    public var locale: String?
    /// No locale of the chain had the key: ``text`` is the key, and a
    /// render reports a `missing_string` issue and event.
    public var isMissing: Bool
    /// The text came from another locale than the one asked for.
    public var fellBack: Bool
    /// The plural category chosen, when the entry was a plural object.
    public var category: PluralCategory?
    /// The entry lacked the category's form, and `other` was used.
    public var formMissing: Bool
    /// A plural entry and no number `count` argument.
    public var countMissing: Bool
    /// `{name}`s with no argument, left as written.
    public var unknownArguments: Int
}
