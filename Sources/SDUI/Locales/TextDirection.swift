// TextDirection.swift - which way a locale's text and rows run.

/// The writing direction of a locale (``LocaleTag/direction``); a render
/// tree's root carries it as the prop `direction` (`ltr`, `rtl`), and
/// rows, leading and trailing edges follow it.
public enum TextDirection: String, Sendable, Hashable, Codable {
    case leftToRight = "ltr"
    case rightToLeft = "rtl"
}
