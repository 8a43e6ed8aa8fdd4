// AccessTokenIssuer.swift - issues the bearer access tokens the registry API takes.
#if Server
import Foundation
import SDUI

/// Short-lived bearer tokens: a JWT (JWS compact, HS256 or EdDSA, through
/// `TokenSigner`/`TokenVerifier`) with `sub`, `iat` and `exp`.  Access
/// tokens expire within one hour, so a token that claims a longer life is
/// refused, as is one without `exp`.
public struct AccessTokenIssuer: Sendable {
    /// Signs the tokens' claims (HS256 or EdDSA).
    public let signer: TokenSigner
    /// The longest life a token may have, in seconds: one hour.
    public static let maxLifetime: TimeInterval = 3600

    /// An issuer that signs with `signer`.
    public init(signer: TokenSigner) { self.signer = signer }

    /// A token for `subject` valid for `lifetime` seconds (at most one hour).
    ///
    /// `iat` is `now` in whole seconds and `exp` is `iat` plus `lifetime`;
    /// the answer is the compact JWS.
    ///
    /// - Throws: `RegistryError` `.invalid` when `lifetime` is not above 0
    ///   and at most ``maxLifetime``; the signer's error when signing fails.
    public func issue(subject: String, lifetime: TimeInterval = 3600, now: Date = Date()) throws -> String {
        guard lifetime > 0, lifetime <= Self.maxLifetime else {
            throw RegistryError(.invalid, "an access token lives at most \(Int(Self.maxLifetime)) s", subject: subject)
        }
        let iat = Int(now.timeIntervalSince1970)
        let claims: [String: JSONValue] = ["sub": .string(subject), "iat": .int(Int64(iat)),
                                            "exp": .int(Int64(iat + Int(lifetime)))]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try signer.sign(try encoder.encode(claims))
    }
}

#endif
