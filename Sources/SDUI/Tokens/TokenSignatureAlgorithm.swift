// TokenSignatureAlgorithm.swift - the JWS algorithms token signatures may use.
//
// Token JSON arrives signed and the client verifies it before
// anything is cached.  Only the compact serialization is accepted, with a
// fixed allow-list of two algorithms: HS256 (RFC 7518 §3.2) and EdDSA over
// Ed25519 (RFC 8037).  The cryptography is swift-crypto's; this file only
// checks the envelope and picks the key.
import Foundation

/// The signature algorithms SDUIKit accepts in a JWS `alg` header.
///
/// The list is fixed on purpose: `none`, the RSA and ECDSA families and the
/// longer HMACs are refused whatever the keys are.
public enum TokenSignatureAlgorithm: String, Sendable, CaseIterable, CustomStringConvertible {
    /// HMAC with SHA-256 and a shared secret of at least 32 bytes.
    case hs256 = "HS256"
    /// Ed25519 signatures (RFC 8037, `"alg":"EdDSA"`, `"crv":"Ed25519"`).
    case eddsa = "EdDSA"

    /// The `alg` value as written in a JWS header.
    public var description: String { rawValue }

    /// Length in bytes of a signature of this algorithm.
    var signatureLength: Int {
        switch self {
        case .hs256: return 32
        case .eddsa: return 64
        }
    }
}
