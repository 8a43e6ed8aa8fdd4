// StringBundleWriter.swift - the bundle of string catalogs that GET
// /strings answers and a pack's "strings" member holds.
import Foundation
import SDUI
import SDUICore

/// Writes a bundle, `{"locale": tag, "default": tag, "catalogs": {tag:
/// {…}}}`, from stored catalogs (JSON the registry or the builder checked),
/// without decoding them: each catalog's bytes are copied as they are.
public enum StringBundleWriter {
    /// The bundle for `locales`: the catalogs of each one's chain
    /// (`de-CH`, `de`) and of the default locale's chain that `catalogs`
    /// has, each once, in that order.  `locale` (the one asked for) is
    /// written when given.
    public static func bundle(catalogs: [String: Data], defaultLocale: String, for locales: [String],
                              locale: String? = nil) -> Data {
        var order: [String] = []
        for tag in locales + [defaultLocale] {
            for t in (try? LocaleTag(tag).chain) ?? [tag] where catalogs[t] != nil && !order.contains(t) {
                order.append(t)
            }
        }
        var json = Data("{".utf8)
        if let locale { json += Data(#""locale":"#.utf8) + Data(JSONValue.string(locale).jsonText.utf8) + Data(",".utf8) }
        json += Data(#""default":"#.utf8) + Data(JSONValue.string(defaultLocale).jsonText.utf8)
            + Data(#","catalogs":{"#.utf8)
        for (i, tag) in order.enumerated() {
            if i > 0 { json.append(UInt8(ascii: ",")) }
            json += Data(JSONValue.string(tag).jsonText.utf8) + Data(":".utf8) + catalogs[tag]!
        }
        json += Data("}}".utf8)
        return json
    }
}
