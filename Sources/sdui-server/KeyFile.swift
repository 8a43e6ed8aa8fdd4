// KeyFile.swift - reads signing and verification keys from files.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUIServer

/// Reads a key file.  A file holding a JSON object is a JWK and nothing
/// else: `{"kty": "oct", "k": …}` (HS256) or `{"kty": "OKP", "crv":
/// "Ed25519", "d": …}` to sign (`x` alone verifies).  Any other file is the
/// raw bytes of an HS256 secret (at least 32).  So a JWK that does not
/// parse as one is an error, never a secret made of its text.
enum KeyFile {
    static func read(_ path: String) throws -> Data {
        try FileInput.read(path, limit: 64 << 10)
    }

    /// A JWK member's bytes (strict base64url, as JWS uses it).
    static func base64url(_ s: String, _ path: String) throws -> Data {
        do {
            return try Base64URL.decode(Substring(s), part: "JWK member")
        } catch let e as SDUIError {
            throw SDUIError(.argument, e.message, input: path)
        }
    }

    /// The file as a JWK when it is JSON; nil when it is not JSON at all.
    static func jwk(_ data: Data, _ path: String) throws -> [String: JSONValue]? {
        guard data.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) == UInt8(ascii: "{") else {
            return nil
        }
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: data) else {
            throw SDUIError(.argument, "the key file starts like JSON but is not a JWK object", input: path)
        }
        return object
    }

    static func signer(_ path: String) throws -> TokenSigner {
        let data = try read(path)
        guard let jwk = try jwk(data, path) else { return try TokenSigner(hs256Secret: data) }
        let kid = jwk["kid"]?.stringValue
        switch (jwk["kty"]?.stringValue, jwk["crv"]?.stringValue) {
        case ("oct"?, _):
            guard let k = jwk["k"]?.stringValue else { throw SDUIError(.argument, "an oct JWK needs \"k\"", input: path) }
            return try TokenSigner(hs256Secret: try base64url(k, path), kid: kid)
        case ("OKP"?, "Ed25519"?):
            guard let d = jwk["d"]?.stringValue else {
                throw SDUIError(.argument, "this Ed25519 JWK has no private \"d\": it can verify, not sign", input: path)
            }
            return try TokenSigner(ed25519PrivateKey: try base64url(d, path), kid: kid)
        default:
            throw SDUIError(.argument, "a JWK must be kty oct (HS256) or OKP with crv Ed25519", input: path)
        }
    }

    static func verifier(_ path: String) throws -> TokenVerifier {
        let data = try read(path)
        guard let jwk = try jwk(data, path) else { return try TokenVerifier(key: .hs256(secret: data)) }
        if jwk["d"] != nil { return try TokenVerifier(key: try signer(path).verificationKey) }
        do {
            return try TokenVerifier(key: TokenVerifier.Key(jwk: data))
        } catch let e as SDUIError {
            throw SDUIError(.argument, e.message, input: path)
        }
    }
}
#endif
