// AcceptLanguage.swift - the locales a client prefers, as the
// Accept-Language header carries them, and the choice among catalogs.
import Foundation

/// An `Accept-Language` list: locale tags in the order the client prefers
/// them (RFC 9110 §12.5.4: by quality, then as written; `q=0` and `*` are
/// left out, as are ranges that are not locale tags).  At most 32 ranges
/// of a header of at most 4 KB are read: a longer header's rest is ignored.
public struct AcceptLanguage: Sendable, Hashable {
    /// The canonical tags, most preferred first, each once.
    public let locales: [String]

    /// The list of `locales` (an app's chosen locale first, then the
    /// device's); tags that are not tags are left out.
    public init(_ locales: [String]) {
        var seen = Set<String>()
        self.locales = locales.compactMap { try? LocaleTag($0).identifier }.filter { seen.insert($0).inserted }
    }

    /// The list a header gives.
    public init(header: String) {
        var ranges: [(tag: String, q: Double, at: Int)] = []
        for (i, part) in header.utf8.prefix(4096).split(separator: UInt8(ascii: ",")).prefix(32).enumerated() {
            let fields = String(decoding: part, as: UTF8.self).split(separator: ";")
            guard let first = fields.first else { continue }
            let tag = first.trimmingCharacters(in: .whitespaces)
            var q = 1.0
            for f in fields.dropFirst() {
                let kv = f.trimmingCharacters(in: .whitespaces)
                if kv.hasPrefix("q=") || kv.hasPrefix("Q=") { q = Double(kv.dropFirst(2)) ?? 0 }
            }
            guard q > 0, q <= 1, tag != "*" else { continue }
            ranges.append((tag, q, i))
        }
        ranges.sort { $0.q != $1.q ? $0.q > $1.q : $0.at < $1.at }
        self.init(ranges.map(\.tag))
    }

    /// The header's text: `de-CH, de;q=0.9, en;q=0.8` (qualities falling by
    /// 0.1, down to 0.1).
    public var header: String {
        locales.enumerated().map { i, tag in
            i == 0 ? tag : "\(tag);q=0.\(max(1, 10 - i))"
        }.joined(separator: ", ")
    }

    /// The first preferred locale whose chain reaches one of `available`
    /// (`de-CH` when the catalogs have `de`), or nil.
    public func best(among available: Set<String>) -> String? {
        for tag in locales {
            guard let t = try? LocaleTag(tag) else { continue }
            if t.chain.contains(where: available.contains) { return t.identifier }
        }
        return nil
    }
}
