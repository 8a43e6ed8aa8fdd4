// RegistryError.swift - the one error type of the registry side: server, stores, importer, pack builder.
import Foundation
import SDUI

/// A registry failure: a code, what it was about, and a message.
///
/// Store errors (SQLite, PostgreSQL) are converted here, in `wrap(_:_:)`,
/// and nowhere else; errors from the SDUI module keep their own type.
public struct RegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of registry failure; the raw value is the code's text
    /// (`not-found` for ``notFound``), the first word of ``description``.
    public enum Code: String, Sendable {
        /// The store could not be opened, read or written.
        case store
        /// A published version would change: an (id, version) is immutable.
        case conflict
        /// Input that breaks a rule: bad id, bad token, token JSON over 32 KB,
        /// an image URL that is not HTTPS on the configured CDN.
        case invalid
        /// What was asked for does not exist: a screen, a file or folder, a token
        /// a screen uses.
        case notFound = "not-found"
        /// A pack build gate: budget, size delta, schema.
        case gate
    }

    /// What kind of failure this is.
    public var code: Code
    /// The input at fault: a token id, a file, a database.
    public var subject: String?
    /// What went wrong, in words.
    public var message: String

    /// An error of `code` with `message`, about `subject` (nil: no particular
    /// input).
    public init(_ code: Code, _ message: String, subject: String? = nil) {
        self.code = code
        self.message = message
        self.subject = subject
    }

    /// `code: subject: message`, or `code: message` without a subject, on
    /// one line: subject and message are written with
    /// `escapedForDisplay` (they may quote bytes from outside).
    public var description: String {
        "\(code.rawValue): " + (subject.map { "\($0.escapedForDisplay): " } ?? "") + message.escapedForDisplay
    }

    /// Runs a store operation; any error that is not already a registry
    /// error becomes a `.store` error naming `subject`.
    /// `body` runs in the caller's isolation (a store actor's, say).
    package static func wrap<T>(_ subject: String, isolation: isolated (any Actor)? = #isolation,
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
