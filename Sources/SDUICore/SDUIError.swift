// SDUIError.swift - the one error type of the client modules.
import Foundation
package import CSDUI

/// An error from SDUIKit: what kind of failure, a message, and where.
///
/// The C core's status and error record are turned into this type in exactly
/// one place, `SDUIError.check(_:_:input:)`.
public struct SDUIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of a failure, matching the C core's status table.
    public enum Category: String, Sendable, CaseIterable {
        /// `io`: a file could not be opened, read or written (``code`` holds
        /// `errno` when the C core reports it); `gzip`: a broken gzip stream;
        /// `json`: text that is not valid JSON; `schema`: valid JSON of the wrong
        /// shape (also a duplicate key); `limit`: a size, depth or count bound
        /// was passed; `oom`: memory could not be allocated.
        case io, gzip, json, schema, limit, oom
        /// What was asked for does not exist (a token, a file, a part of a path).
        case notFound = "not-found"
        /// `argument`: the caller passed something unusable (a malformed key
        /// path, say); `signature`: a signed token (JWS) that is malformed or
        /// does not verify; `sqlite`: the disk cache's database failed (``code``
        /// holds SQLite's extended result code).
        case argument, signature, sqlite
        /// An expression failed: `expr-parse` (it does not parse), `expr-type`
        /// (an operator or function got a value of the wrong type),
        /// `expr-overflow` (integer overflow), `expr-division` (division or
        /// remainder by zero), `expr-value` (a value a function cannot take,
        /// such as a malformed pattern).  ``offset`` is the byte of the failing
        /// sub-expression.
        case exprParse = "expr-parse", exprType = "expr-type", exprOverflow = "expr-overflow"
        case exprDivision = "expr-division", exprValue = "expr-value"
        /// A file the core wrote whose contents no longer check out (a
        /// torn or altered store snapshot: wrong checksum or envelope).
        case corrupt
        /// Swift only: the registry could not be reached (offline, refused,
        /// timed out).  The repository treats it as offline.
        case network
        /// Swift only: the registry answered with an unexpected HTTP status.
        case http
        /// A status the C core reported that this table does not name.
        case unknown
    }

    /// What kind of failure this is.
    public var category: Category
    /// What went wrong, without the position (see `offset`, `line`, `column`).
    public var message: String
    /// The input the error is about: a file path, URL or a name given by the caller.
    public var input: String?
    /// Byte offset in the input the category refers to: the inflated JSON for
    /// json, schema and limit errors on a pack, the compressed bytes for gzip.
    public var offset: Int?
    /// 1-based line and column (in Unicode scalars) in the JSON text.
    public var line: Int?
    /// The 1-based column in the JSON text, counted in Unicode scalars; nil
    /// when the error has no position.
    public var column: Int?
    /// The underlying library's code, when there is one: SQLite's extended
    /// result code for `sqlite` errors, `errno` for `io` errors from the C core.
    public var code: Int?

    /// An error of `category` with `message`; `input` and the position are
    /// nil when not known, and ``code`` starts as nil.
    public init(_ category: Category, _ message: String, input: String? = nil,
                offset: Int? = nil, line: Int? = nil, column: Int? = nil) {
        self.category = category
        self.message = message
        self.input = input
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// `category: input: line L, column C (byte B): message`, the parts that
    /// are known, on one line: the input and the message are written with
    /// ``Swift/String/escapedForDisplay`` (they may quote bytes from outside:
    /// a control character is shown, never acted on by a terminal or a log).
    public var description: String {
        var parts = [category.rawValue]
        if let input { parts.append(input.escapedForDisplay) }
        if let line, let column, line > 0 {
            parts.append("line \(line), column \(column)" + (offset.map { " (byte \($0))" } ?? ""))
        } else if let offset {
            parts.append("byte \(offset)")
        }
        parts.append(message.escapedForDisplay)
        return parts.joined(separator: ": ")
    }
}

/// `localizedDescription` reads like ``SDUIError/description``, the form
/// every message of the library takes.
extension SDUIError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}

extension SDUIError {
    /// Throws the error the C core reported, if any.  The single place where a
    /// C status becomes a Swift error.
    package static func check(_ status: sdui_status, _ err: sdui_error, input: @autoclosure () -> String?) throws {
        guard status != SDUI_OK else { return }
        throw SDUIError(status, err, input: input())
    }

    package init(_ status: sdui_status, _ err: sdui_error, input: String?) {
        let name = String(cString: sdui_status_name(status))
        var record = err
        let message = withUnsafeBytes(of: &record.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        self.init(Category(rawValue: name) ?? .unknown, message, input: input,
                  offset: err.offset >= 0 ? Int(err.offset) : nil,
                  line: err.line > 0 ? Int(err.line) : nil,
                  column: err.column > 0 ? Int(err.column) : nil)
        code = err.code != 0 ? Int(err.code) : nil
    }
}

extension SDUIError {
    /// The error for a value ``JSONValueDecoder`` could not decode into a
    /// model (a screen payload, a block screen, saved flow progress): a
    /// missing member, a wrong type, a null or a value out of range is a
    /// `.schema` error naming its path (`tokens[2].id`, or "the top level");
    /// an `SDUIError` the model's own `init(from:)` threw is kept as it is.
    /// The one mapping of decoding errors for every model; text that is not
    /// JSON never gets here (the core's parser reports it, with its place).
    package static func decoding(_ error: Error, input: String?) -> SDUIError {
        switch error {
        case let e as SDUIError:
            return e
        case DecodingError.keyNotFound(let key, let ctx):
            return SDUIError(.schema, "missing \"\(key.stringValue)\" at \(path(ctx))", input: input)
        case DecodingError.typeMismatch(_, let ctx):
            return SDUIError(.schema, "wrong type at \(path(ctx)): \(ctx.debugDescription)", input: input)
        case DecodingError.valueNotFound(_, let ctx):
            return SDUIError(.schema, "null at \(path(ctx))", input: input)
        case DecodingError.dataCorrupted(let ctx):
            return SDUIError(.schema, "bad value at \(path(ctx)): \(ctx.debugDescription)", input: input)
        default:
            return SDUIError(.schema, "\(error)", input: input)
        }
    }

    /// A decoding path as members and indexes: `tokens[2].id`.
    private static func path(_ ctx: DecodingError.Context) -> String {
        let p = ctx.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return p.isEmpty ? "the top level" : String(p.drop(while: { $0 == "." }))
    }
}
