// TokenVerifier.swift - verifies JWS (RFC 7515) compact signatures on token JSON.
//
// Token JSON arrives signed and the client verifies it before
// anything is cached.  Only the compact serialization is accepted, with a
// fixed allow-list of two algorithms: HS256 (RFC 7518 §3.2) and EdDSA over
// Ed25519 (RFC 8037).  The cryptography is swift-crypto's; this file only
// checks the envelope and picks the key.
import Foundation
internal import Crypto
import SDUICore

/// Verifies JWS compact serializations of token JSON against configured keys
/// and returns the payload only when the signature holds.
///
/// The rules, each failure an `SDUIError` whose message names the rule:
/// - the text is at most ``maxCompactBytes`` and the payload decodes to at
///   most `limits.maxTokenBytes` bytes (both `limit` errors, checked before
///   anything is decoded or verified);
/// - exactly three parts, each non-empty base64url without padding, in its
///   canonical form;
/// - the protected header is a JSON object whose `alg` is `HS256` or `EdDSA`
///   (`none` in any case and every other value are refused), with no `crit`
///   and no `b64` (RFC 7797's unencoded payloads, refused even when `true`,
///   which would need `crit` anyway); member names given twice count once, the last
///   one, as JSON parsing in Foundation does;
/// - the key is one of the configured keys of that algorithm, chosen by
///   `kid` when the header has one and the configured keys carry kids; keys in
///   the header itself (`jwk`, `jku`, `x5u`, `x5c`) are never used;
/// - the signature verifies (HMAC compared in constant time by swift-crypto).
///
/// All of those are `signature` errors.
public struct TokenVerifier: Sendable {
    /// A verification key: an HS256 shared secret or an Ed25519 public key,
    /// optionally named by a key id (`kid`).
    public struct Key: Sendable, Equatable {
        /// The algorithm this key verifies, and the only one it is used with.
        public let algorithm: TokenSignatureAlgorithm
        /// The key id a JWS header names it by, if any.
        public let kid: String?
        /// The secret (HS256) or the 32-byte public key (EdDSA).
        package let bytes: [UInt8]

        /// Shortest HS256 secret accepted: the hash size (RFC 7518 §3.2).
        public static let minimumHS256SecretBytes = 32

        /// An HS256 shared secret.  Throws an `argument` error for secrets
        /// shorter than ``minimumHS256SecretBytes``.
        public static func hs256(secret: Data, kid: String? = nil) throws -> Key {
            guard secret.count >= minimumHS256SecretBytes else {
                throw SDUIError(.argument, "HS256 secret is \(secret.count) bytes; at least "
                                + "\(minimumHS256SecretBytes) are required (RFC 7518 §3.2)",
                                input: kid)
            }
            return Key(algorithm: .hs256, kid: kid, bytes: [UInt8](secret))
        }

        /// An Ed25519 public key in its raw 32-byte form (the JWK `x`
        /// member).  Throws an `argument` error for any other length.
        public static func ed25519(publicKey: Data, kid: String? = nil) throws -> Key {
            do {
                _ = try Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
            } catch {
                throw SDUIError(.argument, "Ed25519 public key must be 32 bytes, got \(publicKey.count)",
                                input: kid)
            }
            return Key(algorithm: .eddsa, kid: kid, bytes: [UInt8](publicKey))
        }

        /// A key from its JWK (RFC 7517) JSON: `"kty":"oct"` with `k` for
        /// HS256, or `"kty":"OKP"`, `"crv":"Ed25519"` with `x` for EdDSA.
        /// `kid` is taken from the JWK; `alg`, when present, must match the
        /// key type, and `use`, when present, must be `sig`.  A private
        /// member `d` is ignored: only the public part is kept.  Errors are
        /// `argument` errors.
        public init(jwk: Data) throws {
            guard case .object(let object)? = try? JSONValue(json: jwk) else {
                throw SDUIError(.argument, "JWK is not a JSON object")
            }
            func member(_ name: String) throws -> String? {
                guard let value = object[name] else { return nil }
                guard let s = value.stringValue else {
                    throw SDUIError(.argument, "JWK member \"\(name)\" must be a string")
                }
                return s
            }
            func bytes(_ name: String) throws -> Data {
                guard let text = try member(name) else {
                    throw SDUIError(.argument, "JWK has no \"\(name)\" member")
                }
                do {
                    return try Base64URL.decode(Substring(text), part: "JWK \"\(name)\"")
                } catch let e as SDUIError {
                    throw SDUIError(.argument, e.message)
                }
            }
            let kid = try member("kid")
            if let use = try member("use"), use != "sig" {
                throw SDUIError(.argument, "JWK \"use\" is \"\(use)\"; a verification key must be \"sig\"")
            }
            let alg = try member("alg")
            let key: Key
            switch try member("kty") {
            case "oct":
                key = try .hs256(secret: try bytes("k"), kid: kid)
            case "OKP":
                let crv = try member("crv")
                guard crv == "Ed25519" else {
                    throw SDUIError(.argument, "JWK curve \(crv.map { "\"\($0)\"" } ?? "(missing)") "
                                    + "is not supported; only Ed25519 is")
                }
                key = try .ed25519(publicKey: try bytes("x"), kid: kid)
            case let kty:
                throw SDUIError(.argument, "JWK key type \(kty.map { "\"\($0)\"" } ?? "(missing)") "
                                + "is not supported; only \"oct\" (HS256) and \"OKP\" (Ed25519) are")
            }
            if let alg, alg != key.algorithm.rawValue {
                throw SDUIError(.argument, "JWK \"alg\" is \"\(alg)\" but the key is for \(key.algorithm)")
            }
            self = key
        }

        package init(algorithm: TokenSignatureAlgorithm, kid: String?, bytes: [UInt8]) {
            self.algorithm = algorithm
            self.kid = kid
            self.bytes = bytes
        }

        /// Whether `signature` is valid for `input` under this key.
        func isValid(signature: Data, for input: Substring.UTF8View) -> Bool {
            let message = Data(input)
            switch algorithm {
            case .hs256:
                return HMAC<SHA256>.isValidAuthenticationCode(
                    signature, authenticating: message, using: SymmetricKey(data: bytes))
            case .eddsa:
                guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: bytes) else {
                    return false
                }
                return key.isValidSignature(signature, for: message)
            }
        }
    }

    /// Largest compact serialization looked at by default: 64 KiB, twice
    /// the default token limit, which leaves room for base64url's third.
    public static let defaultMaxCompactBytes = 64 << 10

    /// The keys a token may be signed with.
    public let keys: [Key]
    /// Largest compact serialization accepted, in bytes.
    public let maxCompactBytes: Int
    /// Limits applied to the payload: `maxTokenBytes` bounds its decoded size.
    public let limits: PackLimits

    /// A verifier trusting `keys`.  Throws an `argument` error when `keys`
    /// is empty, when two keys share a kid, or when a bound is not positive.
    public init(keys: [Key], limits: PackLimits = .default,
                maxCompactBytes: Int = TokenVerifier.defaultMaxCompactBytes) throws {
        guard !keys.isEmpty else {
            throw SDUIError(.argument, "a token verifier needs at least one key")
        }
        var kids = Set<String>()
        for kid in keys.compactMap(\.kid) where !kids.insert(kid).inserted {
            throw SDUIError(.argument, "two verification keys share the kid \"\(kid)\"", input: kid)
        }
        guard maxCompactBytes > 0, limits.maxTokenBytes > 0 else {
            throw SDUIError(.argument, "JWS size bounds must be positive (maxCompactBytes "
                            + "\(maxCompactBytes), maxTokenBytes \(limits.maxTokenBytes))")
        }
        self.keys = keys
        self.limits = limits
        self.maxCompactBytes = maxCompactBytes
    }

    /// A verifier trusting one key.
    public init(key: Key, limits: PackLimits = .default) throws {
        try self.init(keys: [key], limits: limits)
    }

    /// Verifies a JWS compact serialization and returns its payload bytes
    /// (the token JSON).  `source` names the input in errors (a URL or path).
    /// Throws a `limit` error for oversized input and a `signature` error for
    /// every other rule (see ``TokenVerifier``); nothing is returned unless
    /// the signature verifies.
    public func verify(compact: String, source: String? = nil) throws -> Data {
        try verified(compact: compact, source: source).payload
    }

    /// Verifies a JWS compact serialization given as bytes, as it arrives in
    /// a response body.  The bytes must be the serialization exactly: no
    /// surrounding whitespace or newline.
    public func verify(compact: Data, source: String? = nil) throws -> Data {
        guard compact.count <= maxCompactBytes else {
            throw tooLarge(compact.count, source)
        }
        return try verify(compact: String(decoding: compact, as: UTF8.self), source: source)
    }

    /// What a successful verification established.
    public struct Verified: Sendable, Equatable {
        /// The payload bytes (the token JSON).
        public var payload: Data
        /// The algorithm of the header, the same as the key's.
        public var algorithm: TokenSignatureAlgorithm
        /// The kid of the key that verified the signature, if it has one.
        public var kid: String?
    }

    /// Like `verify(compact:source:)`, and also tells which key
    /// verified the token.
    public func verified(compact: String, source: String? = nil) throws -> Verified {
        func fail(_ message: String) -> SDUIError { SDUIError(.signature, "JWS " + message, input: source) }

        // Sizes first: nothing is decoded or verified beyond the limits.
        let utf8 = compact.utf8
        guard utf8.count <= maxCompactBytes else { throw tooLarge(utf8.count, source) }
        // ASCII only, so that splitting on "." and the signing input agree
        // byte for byte (no grapheme can swallow a dot).
        if let offset = utf8.firstIndex(where: { $0 >= 0x80 }).map({ utf8.distance(from: utf8.startIndex, to: $0) }) {
            throw fail("has a non-ASCII byte at offset \(offset), which is not a base64url character")
        }
        // Split on the bytes (the text is ASCII): no grapheme breaking.
        let parts = compact.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map { Substring($0) }
        guard parts.count == 3 else {
            throw fail("compact serialization must have exactly 3 parts separated by \".\", found \(parts.count)")
        }
        let (headerText, payloadText, signatureText) = (parts[0], parts[1], parts[2])
        let payloadBytes = Base64URL.decodedLength(payloadText.utf8.count)
        guard payloadBytes <= limits.maxTokenBytes else {
            throw SDUIError(.limit, "JWS payload decodes to \(payloadBytes) bytes; the token limit is "
                            + "\(limits.maxTokenBytes)", input: source)
        }
        guard !headerText.isEmpty else { throw fail("protected header is empty") }
        guard !payloadText.isEmpty else { throw fail("payload is empty (detached payloads are not accepted)") }
        guard !signatureText.isEmpty else { throw fail("signature is empty") }

        let headerBytes: Data, payload: Data, signature: Data
        do {
            headerBytes = try Base64URL.decode(headerText, part: "protected header")
            payload = try Base64URL.decode(payloadText, part: "payload")
            signature = try Base64URL.decode(signatureText, part: "signature")
        } catch let e as SDUIError {
            throw fail(e.message)
        }

        // The protected header.
        guard case .object(let header)? = try? JSONValue(json: headerBytes) else {
            throw fail("protected header is not a JSON object")
        }
        guard let algValue = header["alg"] else { throw fail("header has no \"alg\"") }
        guard let alg = algValue.stringValue else { throw fail("header \"alg\" must be a string") }
        if alg.lowercased() == "none" {
            throw fail("alg \"\(alg)\" (an unsecured JWS) is refused")
        }
        guard let algorithm = TokenSignatureAlgorithm(rawValue: alg) else {
            throw fail("alg \"\(alg)\" is not allowed; accepted: "
                       + TokenSignatureAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if header["crit"] != nil {
            throw fail("header has \"crit\"; no JWS extension is understood, so the token is refused")
        }
        if header["b64"] != nil {
            throw fail("header has \"b64\" (unencoded payloads, RFC 7797); it is refused whatever its value")
        }
        var kid: String?
        if let kidValue = header["kid"] {
            guard let s = kidValue.stringValue else { throw fail("header \"kid\" must be a string") }
            kid = s
        }

        // The key: only configured keys of the header's algorithm.
        let candidates = try candidateKeys(algorithm: algorithm, kid: kid, fail: fail)
        guard signature.count == algorithm.signatureLength else {
            throw fail("\(algorithm) signature must be \(algorithm.signatureLength) bytes, got \(signature.count)")
        }
        let signingInput = compact[headerText.startIndex..<payloadText.endIndex].utf8
        for key in candidates where key.isValid(signature: signature, for: signingInput) {
            return Verified(payload: payload, algorithm: algorithm, kid: key.kid)
        }
        if candidates.count == 1 {
            let name = candidates[0].kid.map { " \"\($0)\"" } ?? ""
            throw fail("signature does not verify with the \(algorithm) key\(name)")
        }
        throw fail("signature does not verify with any of the \(candidates.count) \(algorithm) keys")
    }

    /// The configured keys a token of `algorithm` naming `kid` may be checked
    /// with; never a key of another algorithm.
    private func candidateKeys(algorithm: TokenSignatureAlgorithm, kid: String?,
                               fail: (String) -> SDUIError) throws -> [Key] {
        if let kid, keys.contains(where: { $0.kid != nil }) {
            guard let key = keys.first(where: { $0.kid == kid }) else {
                throw fail("kid \"\(kid)\" matches no configured key")
            }
            guard key.algorithm == algorithm else {
                throw fail("kid \"\(kid)\" names an \(key.algorithm) key but the header says \(algorithm); "
                           + "a key is used with its own algorithm only")
            }
            return [key]
        }
        let sameAlgorithm = keys.filter { $0.algorithm == algorithm }
        guard !sameAlgorithm.isEmpty else {
            throw fail("alg is \(algorithm) but no \(algorithm) key is configured; "
                       + "a key is used with its own algorithm only")
        }
        return sameAlgorithm
    }

    private func tooLarge(_ count: Int, _ source: String?) -> SDUIError {
        SDUIError(.limit, "JWS is \(count) bytes; the limit is \(maxCompactBytes)", input: source)
    }
}
