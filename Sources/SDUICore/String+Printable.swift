// String+Printable.swift - text from outside made safe to print on one line
// of a terminal or a log.
//
// A message built from input (a file name, a key, a URL, a token id, a
// server's answer) can carry bytes a terminal acts on: ESC starts sequences
// that move the cursor, recolour, retitle the window or, in some terminals,
// write files; a line feed forges a second log line; bidirectional controls
// reorder what the reader sees.  So every message the library and the CLI
// print passes its input-derived parts through one rule, here.

extension String {
    /// The string with every character a terminal or a line-based log would
    /// act on written as a visible escape, so it prints as one inert line:
    ///
    /// - line feed, carriage return and tab as `\n`, `\r` and `\t` (a
    ///   backslash itself is kept: paths and patterns are full of them, and
    ///   no terminal acts on one, so the text is for reading, not parsing back);
    /// - every other C0 control (U+0000-U+001F), DEL (U+007F) and C1 control
    ///   (U+0080-U+009F) as `\u{XX}`;
    /// - the bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E,
    ///   U+2066-U+2069) and the line and paragraph separators (U+2028,
    ///   U+2029) as `\u{XXXX}`.
    ///
    /// Everything else, other non-ASCII text included, is kept.  A string
    /// with nothing to escape is returned unchanged (no copy).
    public var escapedForDisplay: String {
        guard unicodeScalars.contains(where: Self.needsEscape) else { return self }
        var out = String.UnicodeScalarView()
        for u in unicodeScalars {
            guard Self.needsEscape(u) else {
                out.append(u)
                continue
            }
            let text: String
            switch u {
            case "\n": text = "\\n"
            case "\r": text = "\\r"
            case "\t": text = "\\t"
            default:
                let hex = String(u.value, radix: 16, uppercase: true)
                text = "\\u{" + String(repeating: "0", count: max(0, (u.value < 0x100 ? 2 : 4) - hex.count)) + hex + "}"
            }
            out.append(contentsOf: text.unicodeScalars)
        }
        return String(out)
    }

    /// Whether the display rule writes `u` as an escape.
    private static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        default: return false
        }
    }
}
