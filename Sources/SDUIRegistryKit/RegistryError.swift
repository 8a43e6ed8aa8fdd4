// RegistryError.swift - the one error type of the registry server module.
import Foundation
import SDUI

/// A registry failure: a code, what it was about, and a message.
///
/// Store errors (SQLite, PostgreSQL) are converted here, in ``wrap(_:_:)``,
/// and nowhere else; errors from the SDUI module keep their own type.
public struct RegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The store could not be opened, read or written.
        case store
        /// A published version would change: an (id, version) is immutable.
        case conflict
        /// Input that breaks a rule: bad id, bad token, §10 violation.
        case invalid
        case notFound = "not-found"
        /// A pack build gate: budget, size delta, schema.
        case gate
    }

    public var code: Code
    /// The input at fault: a token id, a file, a database.
    public var subject: String?
    public var message: String

    public init(_ code: Code, _ message: String, subject: String? = nil) {
        self.code = code
        self.message = message
        self.subject = subject
    }

    public var description: String {
        "\(code.rawValue): " + (subject.map { "\($0): " } ?? "") + message
    }

    /// Runs a store operation; any error that is not already a registry
    /// error becomes a `.store` error naming `subject`.
    /// `body` runs in the caller's isolation (a store actor's, say).
    static func wrap<T>(_ subject: String, isolation: isolated (any Actor)? = #isolation,
                        _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let e as RegistryError {
            throw e
        } catch let e as SDUIError {
            throw e
        } catch {
            throw RegistryError(.store, String(reflecting: error), subject: subject)
        }
    }
}

/// The id grammar of the registry's HTTP API, for tokens and screens alike:
/// 1 to 128 characters of `A–Z a–z 0–9 _ - . :`, not starting with `.` and
/// without `..`.  Import refuses any other id, so every stored id can be
/// asked for.
public enum RegistryID {
    public static let maxLength = 128

    public static func isValid<S: StringProtocol>(_ id: S) -> Bool {
        let u = id.utf8
        guard !u.isEmpty, u.count <= maxLength, u.first != UInt8(ascii: ".") else { return false }
        var previousDot = false
        for b in u {
            let ok = (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || (b >= 0x30 && b <= 0x39)
                || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: ":")
            guard ok, !(previousDot && b == UInt8(ascii: ".")) else { return false }
            previousDot = b == UInt8(ascii: ".")
        }
        return true
    }
}

/// Request input shown back in an error message or a log line.
///
/// A request can carry kilobytes (an `ids` query, an X-Primitives header) and
/// characters a terminal acts on (a percent-encoded ESC or NUL in an id).
/// Whatever is echoed goes through here: ``quoted(_:)`` writes it as a JSON
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
