// JSONValue+Strings.swift - the one rule for writing a string as a JSON string literal.

extension JSONValue {
    /// `s` as a JSON string literal, quotes included: `"` and `\` escaped,
    /// newline, return and tab as `\n`, `\r`, `\t`, other control
    /// characters as `\u00XX`, everything else as it is (UTF-8).  Used
    /// wherever JSON is written by hand (a JWS header, a path in a message).
    public static func literal(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
