// PostgresURL.swift - a postgres:// URL as libpq reads it: where to connect, and TLS by libpq's sslmode names.
#if Server
import Foundation
import NIOSSL
import PostgresNIO

/// A connection URL, `postgres://user[:password]@host[:port]/database`,
/// with libpq's TLS parameters:
///
/// - `sslmode=disable` (the default): no TLS;
/// - `sslmode=prefer`: TLS when the server offers it, else plain; the
///   certificate is not checked (libpq's `prefer`);
/// - `sslmode=require`: TLS or nothing; the certificate is not checked,
///   unless `sslrootcert` is given, which makes it `verify-ca` (as libpq
///   does when a root file exists);
/// - `sslmode=verify-ca`: TLS, and the certificate must chain to a root in
///   `sslrootcert` (or the system's roots);
/// - `sslmode=verify-full`: as `verify-ca`, and the certificate must also
///   name the host of the URL (a DNS name, or an IP address in its
///   subject alternative names);
/// - `sslrootcert=FILE`: the PEM file of the roots to trust; `system` for
///   the system's roots (the default for the verifying modes).
///
/// `allow` (plain first, TLS only when refused) is not offered: it is
/// refused with a message.  Any other parameter is refused too, so a typo
/// is not silently ignored.
public struct PostgresURL: Sendable, Equatable {
    /// libpq's `sslmode` values this reader takes.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when offered, unverified.
        case prefer
        /// TLS, unverified (verified against `sslrootcert` when given).
        case require
        /// TLS, the chain verified.
        case verifyCA = "verify-ca"
        /// TLS, the chain and the host name verified.
        case verifyFull = "verify-full"
    }

    /// Where the roots to verify against come from.
    public enum RootCertificates: Sendable, Equatable {
        /// The system's trust store.
        case system
        /// A PEM file (`sslrootcert=FILE`).
        case file(String)
    }

    /// The server's host name or IP address.
    public var host: String
    /// Its port (5432 unless the URL says).
    public var port: Int
    /// The role to log in as.
    public var user: String
    /// Its password, when the URL has one.
    public var password: String?
    /// The database (nil: the server's default, the role's name).
    public var database: String?
    /// The TLS mode (``SSLMode/disable`` unless the URL says).
    public var sslMode: SSLMode
    /// The roots, for the modes that verify; nil for those that do not.
    public var roots: RootCertificates?

    /// `host:port/database`: how errors name the database (never the password).
    public var name: String { "\(host):\(port)/\(database ?? "")" }

    /// Reads `url`.
    ///
    /// - Throws: `RegistryError` `.invalid` naming the URL (its password
    ///   hidden) and what is wrong: not a postgres URL, an unknown
    ///   parameter or sslmode, `sslrootcert` with a mode that does not
    ///   verify, a root file that cannot be read or holds no certificate.
    public init(_ url: String) throws {
        guard let c = URLComponents(string: url), ["postgres", "postgresql"].contains(c.scheme ?? ""),
              let host = c.host, !host.isEmpty, let user = c.user else {
            throw RegistryError(.invalid, "expected postgres://user[:password]@host[:port]/database",
                                subject: Self.redacted(url))
        }
        self.host = host
        self.port = c.port ?? 5432
        self.user = user
        self.password = c.password
        let database = c.path.hasPrefix("/") ? String(c.path.dropFirst()) : c.path
        self.database = database.isEmpty ? nil : database
        var mode: SSLMode?
        var rootcert: String?
        func fault(_ message: String) -> RegistryError { RegistryError(.invalid, message, subject: Self.redacted(url)) }
        for item in c.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                if value == "allow" {
                    throw fault("sslmode=allow (plain first, TLS only when refused) is not supported; use prefer or require")
                }
                guard let m = SSLMode(rawValue: value) else {
                    throw fault("sslmode=\(EchoedInput.visible(value)) is not one of "
                                + SSLMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                mode = m
            case "sslrootcert":
                guard !value.isEmpty else { throw fault("sslrootcert needs a file (or system)") }
                rootcert = value
            default:
                throw fault("unsupported URL parameter \(EchoedInput.visible(item.name)); "
                            + "only sslmode (disable, prefer, require, verify-ca, verify-full) and sslrootcert")
            }
        }
        let sslMode = mode ?? .disable
        self.sslMode = sslMode
        switch (sslMode, rootcert) {
        case (.disable, _?), (.prefer, _?):
            throw fault("sslrootcert is used by sslmode=require, verify-ca and verify-full, not \(sslMode.rawValue)")
        case (.disable, nil), (.prefer, nil), (.require, nil):
            roots = nil
        case (_, "system"?):
            roots = .system
        case (_, let file?):
            try Self.checkRoots(file, url: url)
            roots = .file(file)
        case (.verifyCA, nil), (.verifyFull, nil):
            roots = .system
        }
    }

    /// Throws unless `file` can be read and holds at least one PEM certificate.
    static func checkRoots(_ file: String, url: String) throws {
        func fault(_ message: String) -> RegistryError {
            RegistryError(.invalid, "sslrootcert \(EchoedInput.quoted(file)): \(message)", subject: redacted(url))
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw fault(FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file")
        }
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(data)), !certificates.isEmpty else {
            throw fault("holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
    }

    /// How NIOSSL checks the server's certificate in this mode.
    public var certificateVerification: CertificateVerification {
        switch (sslMode, roots) {
        case (.verifyFull, _): return .fullVerification
        case (.verifyCA, _), (.require, _?): return .noHostnameVerification
        default: return .none
        }
    }

    /// The PostgresNIO configuration: where, who, and TLS as the mode says.
    public func clientConfiguration() -> PostgresClient.Configuration {
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        tlsConfiguration.certificateVerification = certificateVerification
        switch roots {
        case .file(let path): tlsConfiguration.trustRoots = .file(path)
        case .system, nil: tlsConfiguration.trustRoots = .default
        }
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(tlsConfiguration)
        case .require, .verifyCA, .verifyFull: tls = .require(tlsConfiguration)
        }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password,
                                            database: database, tls: tls)
    }

    /// The configuration of one direct connection, as
    /// ``clientConfiguration()`` would make it: what
    /// ``PostgresRegistryStore/reachable()`` tries, so a refused login or a
    /// certificate that does not verify is reported as itself.
    ///
    /// - Throws: when NIOSSL cannot make a TLS context of the roots.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        tlsConfiguration.certificateVerification = certificateVerification
        switch roots {
        case .file(let path): tlsConfiguration.trustRoots = .file(path)
        case .system, nil: tlsConfiguration.trustRoots = .default
        }
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration))
        case .require, .verifyCA, .verifyFull: tls = .require(try NIOSSLContext(configuration: tlsConfiguration))
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password,
                                                database: database, tls: tls)
    }

    /// `url` with its password replaced by `***`, for messages.
    static func redacted(_ url: String) -> String {
        guard var c = URLComponents(string: url), c.password != nil else { return EchoedInput.visible(url) }
        c.password = "***"
        return EchoedInput.visible(c.string ?? url)
    }
}
#endif
