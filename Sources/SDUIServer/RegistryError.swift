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
