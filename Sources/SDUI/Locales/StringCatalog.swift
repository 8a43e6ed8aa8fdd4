// StringCatalog.swift - a set of string catalogs, one per locale, looked up
// by the C core along one fallback chain (include/sdui/catalog.h).
internal import CSDUI
import Foundation
import SDUICore

/// The string catalogs of an app or a registry: one JSON object per
/// locale (`strings/<locale>.json`), and a default locale that ends every
/// fallback chain.  A lookup (``text(_:locale:arguments:)``) tries the
/// locale (`de-CH`), its parents (`de`), the default locale, and gives the
/// key itself, flagged missing, when none has it; a plural entry's form is
/// chosen by the argument `count` with the CLDR rules of the locale the
/// text came from.  The C core does all of it, so every platform shows the
/// same text.
///
/// Thread-safe: the C set is built in `init` and only read afterwards
/// (lookups and checks are read-only in the core), so the class is
/// `@unchecked Sendable`.
public final class StringCatalog: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The default locale, canonical.
    public let defaultLocale: String
    /// The locales that have a catalog, sorted.
    public let locales: [String]

    /// A set of `catalogs` (locale tag → the catalog's JSON) whose default
    /// locale is `defaultLocale`.  `source` names the input in errors.
    ///
    /// - Throws: ``SDUIError`` naming the locale, the JSON path and the byte
    ///   of the first catalog that is not sound; nothing is kept then.
    public init(defaultLocale: String, catalogs: [String: Data], source: String = "catalogs",
                maxCatalogBytes: Int = 0) throws {
        var err = sdui_error()
        var out: OpaquePointer?
        let status = defaultLocale.withCBytes { p, n in sdui_strings_new(p, n, maxCatalogBytes, &out, &err) }
        try SDUIError.check(status, err, input: source)
        let h = out!
        for locale in catalogs.keys.sorted() {
            let json = catalogs[locale]!
            let st = locale.withCBytes { lp, ln in
                json.withUnsafeBytes { raw in
                    sdui_strings_add(h, lp, ln, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, &err)
                }
            }
            guard st == SDUI_OK else {
                sdui_strings_free(h)
                throw SDUIError(st, err, input: "\(source): \(locale)")
            }
        }
        handle = h
        let d = Self.describe(h)
        self.defaultLocale = d.0
        locales = d.1
    }

    /// A set from a bundle, `{"default": tag, "catalogs": {tag: {…}}}`: what
    /// `GET /strings` answers, a pack's `strings` member and the disk cache
    /// keep.
    ///
    /// - Throws: ``SDUIError`` naming `source`, the JSON path and the byte.
    public init(bundle: Data, source: String, maxCatalogBytes: Int = 0) throws {
        var err = sdui_error()
        var out: OpaquePointer?
        let status = bundle.withUnsafeBytes { raw in
            sdui_strings_open_bundle(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count,
                                     maxCatalogBytes, &out, &err)
        }
        try SDUIError.check(status, err, input: source)
        handle = out!
        let d = Self.describe(out!)
        self.defaultLocale = d.0
        locales = d.1
    }

    deinit { sdui_strings_free(handle) }

    /// The default locale and the locales of a built set.
    private static func describe(_ h: OpaquePointer) -> (String, [String]) {
        let locales = (0..<sdui_strings_locale_count(h)).compactMap { sdui_strings_locale_at(h, $0).map { String(cString: $0) } }
        return (String(cString: sdui_strings_default_locale(h)), locales)
    }

    /// The text of `key` in `locale` with `arguments` put in (``StringLookup``
    /// says where it came from and whether it is missing: a missing key is
    /// not an error, its text is the key).
    ///
    /// - Throws: ``SDUIError`` `.argument` when `locale` is not a tag or
    ///   there are more than 64 arguments.
    public func text(_ key: String, locale: String, arguments: [String: StringArgument] = [:]) throws -> StringLookup {
        let names = arguments.keys.sorted()
        var texts: [Data] = []
        for name in names { texts.append(Data(name.utf8)); if case .text(let t) = arguments[name]! { texts.append(Data(t.utf8)) } else { texts.append(Data()) } }
        var err = sdui_error()
        var out: UnsafeMutablePointer<CChar>?
        var len = 0
        var result = sdui_strings_result()
        let status = withCBytes(texts) { ptrs, lens in
            var args: [sdui_strings_arg] = []
            args.reserveCapacity(names.count)
            for (i, name) in names.enumerated() {
                var a = sdui_strings_arg()
                a.name = ptrs[2 * i]
                a.name_len = lens[2 * i]
                if case .number(let x) = arguments[name]! {
                    a.is_number = 1
                    a.number = x
                } else {
                    a.text = ptrs[2 * i + 1]
                    a.text_len = lens[2 * i + 1]
                }
                args.append(a)
            }
            return locale.withCBytes { lp, ln in
                key.withCBytes { kp, kn in
                    args.withUnsafeBufferPointer { ab in
                        sdui_strings_format(handle, lp, ln, kp, kn, ab.baseAddress, ab.count, &out, &len, &result, &err)
                    }
                }
            }
        }
        try SDUIError.check(status, err, input: "locale \(JSONValue.string(locale).jsonText)")
        defer { sdui_free(out) }
        return StringLookup(text: String(cBytes: out, count: len),
                            locale: result.locale.map { String(cString: $0) },
                            isMissing: result.missing != 0, fellBack: result.fell_back != 0,
                            category: result.plural != 0 ? PluralCategory(cValue: result.category) : nil,
                            formMissing: result.form_missing != 0, countMissing: result.count_missing != 0,
                            unknownArguments: Int(result.unknown_args))
    }

    /// Whether exactly `locale`'s catalog (no fallback) has `key`.
    public func has(_ key: String, locale: String) -> Bool {
        locale.withCBytes { lp, ln in key.withCBytes { kp, kn in sdui_strings_has(handle, lp, ln, kp, kn) != 0 } }
    }

    /// What is wrong with the catalogs (``StringFinding``): keys missing
    /// per locale, argument mismatches, plural forms a locale needs but
    /// lacks, keys only a locale has; with `usedKeys` (the keys screens,
    /// blocks and flows refer to), also unused and undefined keys.
    public func check(usedKeys: [String]? = nil) throws -> [StringFinding] {
        final class Sink { var findings: [StringFinding] = [] }
        let sink = Sink()
        let used = (usedKeys ?? []).map { Data($0.utf8) }
        var err = sdui_error()
        let status = withCBytes(used) { ptrs, lens in
            withExtendedLifetime(sink) {
                let ctx = Unmanaged.passUnretained(sink).toOpaque()
                return sdui_strings_check(handle, ptrs.map { UnsafePointer($0) }, lens, usedKeys == nil ? 0 : used.count, { ctx, f in
                    let sink = Unmanaged<Sink>.fromOpaque(ctx!).takeUnretainedValue()
                    let f = f!.pointee
                    sink.findings.append(StringFinding(
                        kind: StringFinding.Kind(rawValue: String(cString: sdui_strings_finding_name(f.kind))) ?? .missing,
                        locale: f.locale.map { String(cString: $0) }, key: String(cString: f.key),
                        message: String(cString: f.message)))
                    return 0
                }, ctx, &err)
            }
        }
        try SDUIError.check(status, err, input: "catalogs")
        return sink.findings
    }
}
