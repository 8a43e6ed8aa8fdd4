// EchoedInput.swift - request input shown back in error messages and logs, bounded and escaped.
#if Server
import Foundation

/// Request input shown back in an error message or a log line.
///
/// A request can carry kilobytes (an `ids` query, an X-Primitives header) and
/// characters a terminal acts on (a percent-encoded ESC or NUL in an id).
/// Whatever is echoed goes through here: ``quoted(_:maxBytes:)`` writes it as a JSON
/// string literal with every invisible character escaped (`"\u001b[2J"`),
/// and both functions stop after ``maxBytes`` bytes with an ellipsis, so an
/// error answer stays small whatever the request held.
public enum EchoedInput {
    /// Most bytes of input, after escaping, an echo shows.
    public static let maxBytes = 200

    /// `input` as a JSON string literal (`"…"`): quote, backslash and every
    /// control, format or line-separator character escaped as `\uXXXX` (or
    /// `\n`, `\t`…), cut after `maxBytes` with `…`.  For error messages.
    public static func quoted<S: StringProtocol>(_ input: S, maxBytes: Int = maxBytes) -> String {
        "\"" + visible(input, maxBytes: maxBytes) + "\""
    }

    /// What goes between the quotes of ``quoted(_:maxBytes:)``: for log
    /// lines, where a raw ESC or C1 control would reach an operator's terminal.
    public static func visible<S: StringProtocol>(_ input: S, maxBytes: Int = maxBytes) -> String {
        var out = ""
        var bytes = 0
        for scalar in input.unicodeScalars {
            let piece = escaped(scalar)
            bytes += piece.utf8.count
            if bytes > maxBytes {
                out += "…"
                break
            }
            out += piece
        }
        return out
    }

    /// `input` unquoted, cut after `maxBytes` (at a character boundary) with
    /// `…`: for input that is already known to be printable, such as a
    /// validated id list or an HTTP header value.
    public static func clipped<S: StringProtocol>(_ input: S, maxBytes: Int = maxBytes) -> String {
        guard input.utf8.count > maxBytes else { return String(input) }
        var out = ""
        var bytes = 0
        for c in input {
            bytes += c.utf8.count
            if bytes > maxBytes { break }
            out.append(c)
        }
        return out + "…"
    }

    /// One scalar as it appears inside a JSON string literal.
    static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default: break
        }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            // BMP scalars as one \uXXXX; others as their UTF-16 surrogate pair, as JSON writes them.
            return String(scalar).utf16.map { "\\u" + String(format: "%04x", $0) }.joined()
        default:
            return String(scalar)
        }
    }
}
#endif
