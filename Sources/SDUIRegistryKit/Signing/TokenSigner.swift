// TokenSigner.swift - produces JWS compact signatures on token JSON (the registry, tests).
//
// Token JSON arrives signed and the client verifies it before
// anything is cached.  Only the compact serialization is accepted, with a
// fixed allow-list of two algorithms: HS256 (RFC 7518 §3.2) and EdDSA over
// Ed25519 (RFC 8037).  The cryptography is swift-crypto's; this file only
// checks the envelope and picks the key.
import Foundation
internal import Crypto
import SDUI
import SDUICore

/// Produces JWS compact serializations of token JSON, for tests and for the
/// registry server.
///
/// The header is deterministic: `{"alg":"HS256"}` or `{"alg":"EdDSA"}`, with
/// `,"kid":"…"` added when the signer has a kid, and nothing else.
public struct TokenSigner: Sendable {
    /// The algorithm of every signature this signer makes.
    public let algorithm: TokenSignatureAlgorithm
    /// The kid written into every header, if any.
    public let kid: String?
    /// Limits applied to the payload: `maxTokenBytes` bounds what is signed,
    /// so a signer never makes a token that clients would refuse for size.
    public let limits: PackLimits
    /// The key that verifies this signer's tokens: the same secret for
    /// HS256, the public key for EdDSA; with the same kid.
    public let verificationKey: TokenVerifier.Key
    /// The secret (HS256) or the 32-byte private key seed (EdDSA).
    private let secret: [UInt8]

    /// An HS256 signer.  Throws an `argument` error for secrets shorter than
    /// `TokenVerifier.Key.minimumHS256SecretBytes`.
    public init(hs256Secret: Data, kid: String? = nil, limits: PackLimits = .default) throws {
        let key = try TokenVerifier.Key.hs256(secret: hs256Secret, kid: kid)
        self.init(key: key, limits: limits, secret: key.bytes)
    }

    /// An EdDSA signer from an Ed25519 private key in its raw 32-byte form
    /// (the JWK `d` member).  Throws an `argument` error for any other length.
    public init(ed25519PrivateKey: Data, kid: String? = nil, limits: PackLimits = .default) throws {
        let key: Curve25519.Signing.PrivateKey
        do {
            key = try Curve25519.Signing.PrivateKey(rawRepresentation: ed25519PrivateKey)
        } catch {
            throw SDUIError(.argument, "Ed25519 private key must be 32 bytes, got \(ed25519PrivateKey.count)",
                            input: kid)
        }
        self.init(ed25519: key, kid: kid, limits: limits)
    }

    /// An EdDSA signer with a fresh random Ed25519 key.
    public static func generateEd25519(kid: String? = nil, limits: PackLimits = .default) -> TokenSigner {
        TokenSigner(ed25519: Curve25519.Signing.PrivateKey(), kid: kid, limits: limits)
    }

    private init(ed25519 key: Curve25519.Signing.PrivateKey, kid: String?, limits: PackLimits) {
        let publicKey = TokenVerifier.Key(algorithm: .eddsa, kid: kid, bytes: [UInt8](key.publicKey.rawRepresentation))
        self.init(key: publicKey, limits: limits, secret: [UInt8](key.rawRepresentation))
    }

    private init(key: TokenVerifier.Key, limits: PackLimits, secret: [UInt8]) {
        self.algorithm = key.algorithm
        self.kid = key.kid
        self.limits = limits
        self.verificationKey = key
        self.secret = secret
    }

    /// The protected header this signer writes, as JSON text.
    public var headerJSON: String {
        var s = #"{"alg":"\#(algorithm.rawValue)""#
        if let kid { s += #","kid":\#(JSONValue.literal(kid))"# }
        return s + "}"
    }

    /// The compact serialization of `payload` (the token JSON) signed with
    /// this signer's key.  Throws a `limit` error when the payload is over
    /// `limits.maxTokenBytes`.
    public func sign(_ payload: Data) throws -> String {
        guard payload.count <= limits.maxTokenBytes else {
            throw SDUIError(.limit, "payload is \(payload.count) bytes; the token limit is \(limits.maxTokenBytes)")
        }
        return try sign(payload, protectedHeader: headerJSON)
    }

    /// Signs `payload` under any protected header text, however wrong: the
    /// tests use it to make correctly signed tokens that break a header rule.
    package func sign(_ payload: Data, protectedHeader: String) throws -> String {
        let signingInput = Base64URL.encode(Data(protectedHeader.utf8)) + "." + Base64URL.encode(payload)
        let signature: Data
        switch algorithm {
        case .hs256:
            let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: secret))
            signature = Data(mac)
        case .eddsa:
            do {
                let key = try Curve25519.Signing.PrivateKey(rawRepresentation: secret)
                signature = try key.signature(for: Data(signingInput.utf8))
            } catch {
                throw SDUIError(.signature, "Ed25519 signing failed: \(error)")
            }
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Signs a payload given as text.
    public func sign(_ payload: String) throws -> String {
        try sign(Data(payload.utf8))
    }
}
