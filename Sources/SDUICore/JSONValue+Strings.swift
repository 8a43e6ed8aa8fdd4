// JSONValue+Strings.swift - the one rule for writing text inside a quoted string.

extension JSONValue {
    /// `s` as a JSON string literal, quotes included (see ``escaped(_:quote:)``).
    /// Used wherever JSON is written by hand (a JWS header, a path in a message).
    public static func literal(_ s: String) -> String {
        "\"" + escaped(s, quote: "\"") + "\""
    }

    /// `s` written to sit between two `quote` characters, by JSON's escapes:
    /// `quote` and `\` escaped, backspace, form feed, newline, return and tab
    /// as `\b`, `\f`, `\n`, `\r`, `\t`, other control characters as
    /// `\uXXXX` (uppercase hex), everything else as it is.  JSON string
    /// literals use `"`; a ``KeyPath``'s quoted names use `'`.
    static func escaped(_ s: String, quote: Unicode.Scalar) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case quote: out += "\\" + String(quote)
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
