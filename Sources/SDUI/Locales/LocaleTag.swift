// LocaleTag.swift - a BCP 47 locale as the C core's CLDR tables read it:
// its canonical form, its fallback chain, its direction, its plural rules
// and its number formats.
internal import CSDUI
import Foundation
import SDUICore

/// A locale tag in canonical form (`de_ch` → `de-CH`), with what the C
/// core's CLDR tables say about it (include/sdui/locale.h).  Every answer
/// comes from those tables, never from the host's locale settings, so an
/// app, the registry and the CLI write the same text.
public struct LocaleTag: Sendable, Hashable, CustomStringConvertible {
    /// The canonical tag.
    public let identifier: String

    /// The longest canonical tag, in bytes (35).
    public static let maxCanonicalBytes = Int(SDUI_LOCALE_TAG_MAX) - 1

    /// The tag of `text`, canonicalized.  Extensions and private use
    /// (`de-CH-u-nu-latn`, `en-GB-u-fw-mon-mu-celsius` as Android writes a
    /// user's regional preferences, `en-x-app`) are read past and left out:
    /// `identifier` is `de-CH`, `en-GB`, `en`.
    ///
    /// - Throws: ``SDUIError`` `.argument` naming the tag and the byte where
    ///   it stops being one.
    public init(_ text: String) throws {
        var out = [CChar](repeating: 0, count: Int(SDUI_LOCALE_TAG_MAX))
        var err = sdui_error()
        let status = text.withCBytes { p, n in sdui_locale_canonical(p, n, &out, &err) }
        try SDUIError.check(status, err, input: "locale \(JSONValue.string(text).jsonText)")
        identifier = String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The canonical tag.
    public var description: String { identifier }

    /// The CLDR release of the tables.
    public static var cldrVersion: String { String(cString: sdui_locale_cldr_version()) }

    /// Every locale the tables hold, sorted.
    public static var tableLocales: [String] {
        (0..<sdui_locale_count()).compactMap { sdui_locale_at($0).map { String(cString: $0) } }
    }

    /// The tag, then its CLDR parents (`es-MX`, `es-419`, `es`), root left out.
    public var chain: [String] {
        var buf = [CChar](repeating: 0, count: Int(SDUI_LOCALE_CHAIN_MAX) * Int(SDUI_LOCALE_TAG_MAX))
        var count = 0
        var err = sdui_error()
        let status = identifier.withCBytes { p, n in
            buf.withUnsafeMutableBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: (CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar,
                                                      CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar,
                                                      CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar,
                                                      CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar).self,
                                                 capacity: Int(SDUI_LOCALE_CHAIN_MAX)) { rows in
                    sdui_locale_chain(p, n, rows, &count, &err)
                }
            }
        }
        guard status == SDUI_OK else { return [identifier] }   // a canonical tag always has a chain
        let width = Int(SDUI_LOCALE_TAG_MAX)
        return (0..<count).map { i in
            String(decoding: buf[(i * width)..<((i + 1) * width)].prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The locale of the tables whose data this tag uses, or `root`.
    public var dataLocale: String {
        identifier.withCBytes { p, n in String(cString: sdui_locale_data_locale(p, n)) }
    }

    /// The direction the locale is written in.
    public var direction: TextDirection {
        identifier.withCBytes { p, n in sdui_locale_direction(p, n) } == SDUI_DIRECTION_RTL ? .rightToLeft : .leftToRight
    }

    /// The categories the locale's cardinal (or ordinal) rules can select,
    /// in CLDR's order.
    public func pluralCategories(ordinal: Bool = false) -> [PluralCategory] {
        let mask = identifier.withCBytes { p, n in sdui_locale_plural_categories(p, n, ordinal ? 1 : 0) }
        return PluralCategory.allCases.filter { mask & (1 << $0.index) != 0 }
    }

    /// The plural category of the number written `number` (decimal text:
    /// `"1"` and `"1.0"` may differ).
    ///
    /// - Throws: ``SDUIError`` `.argument` when `number` is not decimal text.
    public func pluralCategory(of number: String, ordinal: Bool = false) throws -> PluralCategory {
        var out = SDUI_PLURAL_OTHER
        var err = sdui_error()
        let status = identifier.withCBytes { tp, tn in
            number.withCBytes { np, nn in sdui_locale_plural(tp, tn, np, nn, ordinal ? 1 : 0, &out, &err) }
        }
        try SDUIError.check(status, err, input: "number \(JSONValue.string(number).jsonText)")
        return PluralCategory(cValue: out)
    }

    /// `x` in the locale's decimal format; `fractionDigits` nil: the
    /// pattern's (at most 3, trailing zeros dropped).
    ///
    /// - Throws: ``SDUIError`` `.argument` for a NaN or infinite `x` or more than 20 digits.
    public func format(number x: Double, fractionDigits: Int? = nil) throws -> String {
        try Self.text { buf, cap, len, err in
            identifier.withCBytes { p, n in
                sdui_locale_format_number(p, n, x, Int32(clamping: fractionDigits ?? -1), buf, cap, len, err)
            }
        }
    }

    /// `x` in the locale's percent format (0.25 is 25 %).
    ///
    /// - Throws: ``SDUIError`` `.argument` for a NaN or infinite `x`.
    public func format(percent x: Double) throws -> String {
        try Self.text { buf, cap, len, err in
            identifier.withCBytes { p, n in sdui_locale_format_percent(p, n, x, buf, cap, len, err) }
        }
    }

    /// `x` of the ISO 4217 currency `code` in the locale's currency format.
    ///
    /// - Throws: ``SDUIError`` `.argument` for a NaN or infinite `x` or a
    ///   code that is not three letters.
    public func format(currency x: Double, code: String) throws -> String {
        try Self.text { buf, cap, len, err in
            identifier.withCBytes { p, n in
                code.withCBytes { cp, cn in sdui_locale_format_currency(p, n, x, cp, cn, buf, cap, len, err) }
            }
        }
    }

    /// Runs one of the core's formatters into a buffer that always suffices.
    private static func text(_ body: (UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<Int>,
                                      UnsafeMutablePointer<sdui_error>) -> sdui_status) throws -> String {
        var buf = [CChar](repeating: 0, count: Int(SDUI_LOCALE_TEXT_MAX))
        var len = 0
        var err = sdui_error()
        let status = buf.withUnsafeMutableBufferPointer { b in body(b.baseAddress!, b.count, &len, &err) }
        try SDUIError.check(status, err, input: nil)
        return buf.withUnsafeBufferPointer { String(decoding: UnsafeRawBufferPointer($0).prefix(len), as: UTF8.self) }
    }
}
