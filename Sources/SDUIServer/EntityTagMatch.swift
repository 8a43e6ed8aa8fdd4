// EntityTagMatch.swift - If-None-Match as RFC 9110 §13.1.2 compares it.
#if Server
import Foundation

/// Whether an `If-None-Match` value matches a current ETag: `*` matches any
/// current representation; otherwise the value is a comma-separated list
/// of entity tags, strong (`"x"`) or weak (`W/"x"`), compared weakly (the
/// opaque parts must be equal).  Malformed members match nothing.
enum EntityTagMatch {
    static func matches(_ header: String, current etag: String) -> Bool {
        let current = opaque(Substring(etag))
        var rest = Substring(header)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if rest.isEmpty { return false }
            if rest.first == "*" { return true }
            if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { return false }
            let tag = rest[rest.startIndex...close]
            if opaque(tag) == current { return true }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// `"x"` or `W/"x"` → `x`.
    static func opaque(_ tag: Substring) -> Substring {
        var t = tag
        if t.hasPrefix("W/") { t = t.dropFirst(2) }
        if t.count >= 2, t.first == "\"", t.last == "\"" { return t.dropFirst().dropLast() }
        return t
    }
}
#endif
