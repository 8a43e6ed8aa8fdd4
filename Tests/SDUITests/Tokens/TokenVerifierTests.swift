// TokenVerifierTests.swift - JWS verification of token JSON.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing
import SDUIRegistryKit

@Suite struct TokenVerifierTests {
    static let secret = Data((0..<32).map { UInt8($0 * 7 + 1) })
    static let otherSecret = Data((0..<48).map { UInt8(255 - $0) })

    func hs256Verifier(kid: String? = nil) throws -> TokenVerifier {
        try TokenVerifier(key: .hs256(secret: Self.secret, kid: kid))
    }

    /// A token under `header` correctly signed with the test HS256 secret.
    func forged(header: String, payload: String = #"{"id":"x"}"#) throws -> String {
        try TokenSigner(hs256Secret: Self.secret).sign(Data(payload.utf8), protectedHeader: header)
    }

    // MARK: Published vectors

    @Test func rfc7515AppendixA1Verifies() throws {
        let key = try TokenVerifier.Key(jwk: Data(JWSVectors.rfc7515JWK.utf8))
        #expect(key.algorithm == .hs256 && key.kid == nil)
        let verifier = try TokenVerifier(key: key)
        let payload = try verifier.verify(compact: JWSVectors.rfc7515Compact)
        #expect(payload == Data(JWSVectors.rfc7515Payload.utf8))
        #expect(try verifier.verify(compact: Data(JWSVectors.rfc7515Compact.utf8)) == payload)
    }

    @Test func rfc8037AppendixA4VerifiesWithTheA1PublicKey() throws {
        let key = try TokenVerifier.Key(jwk: Data(JWSVectors.rfc8037PrivateJWK.utf8))
        #expect(key.algorithm == .eddsa)
        #expect(key == (try TokenVerifier.Key.ed25519(publicKey: B64URL.decode(JWSVectors.rfc8037X))))
        let verified = try TokenVerifier(key: key).verified(compact: JWSVectors.rfc8037Compact)
        #expect(verified.payload == Data(JWSVectors.rfc8037Payload.utf8))
        #expect(verified.algorithm == .eddsa && verified.kid == nil)

        // The private key of A.1 yields the public key of A.1 ...
        let signer = try TokenSigner(ed25519PrivateKey: B64URL.decode(JWSVectors.rfc8037D))
        #expect(signer.verificationKey == key)
        #expect(signer.headerJSON == #"{"alg":"EdDSA"}"#)
        // ... and its signature verifies.  Ed25519 is deterministic (RFC 8032),
        // so BoringSSL reproduces A.4 exactly; CryptoKit on Apple platforms
        // adds randomness, so there only verification is compared.
        let mine = try signer.sign(JWSVectors.rfc8037Payload)
        #expect(try TokenVerifier(key: key).verify(compact: mine) == Data(JWSVectors.rfc8037Payload.utf8))
        #if !canImport(Darwin)
        #expect(mine == JWSVectors.rfc8037Compact)
        #endif
    }

    // MARK: Tampering

    /// Every single-bit flip of the decoded `part` (0 header, 1 payload,
    /// 2 signature), re-encoded, must be refused.
    func everyBitFlipFails(_ compact: String, part: Int, verifier: TokenVerifier,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let bytes = [UInt8](B64URL.decode(parts[part]))
        var refused = 0
        for i in 0..<bytes.count * 8 {
            var flipped = bytes
            flipped[i / 8] ^= UInt8(1 << (i % 8))
            var tampered = parts
            tampered[part] = B64URL.encode(Data(flipped))
            do {
                _ = try verifier.verify(compact: tampered.joined(separator: "."))
                Issue.record("bit \(i) of part \(part) flipped and still verified", sourceLocation: sourceLocation)
            } catch let e as SDUIError where e.category == .signature {
                refused += 1
            } catch {
                Issue.record("bit \(i) of part \(part): unexpected \(error)", sourceLocation: sourceLocation)
            }
        }
        #expect(refused == bytes.count * 8, sourceLocation: sourceLocation)
    }

    @Test func everyBitFlipOfTheRFCVectorsFails() throws {
        let vectors = [
            (JWSVectors.rfc7515Compact, JWSVectors.rfc7515JWK),
            (JWSVectors.rfc7520Compact, JWSVectors.rfc7520JWK),
            (JWSVectors.rfc8037Compact, JWSVectors.rfc8037PrivateJWK),
        ]
        for (compact, jwk) in vectors {
            let verifier = try TokenVerifier(key: .init(jwk: Data(jwk.utf8)))
            for part in 0..<3 {
                everyBitFlipFails(compact, part: part, verifier: verifier)
            }
        }
    }

    @Test func bitFlipsOfASignedTokenFail() throws {
        let token = try String(contentsOf: Fixtures.repositoryRoot
            .appendingPathComponent("Examples/tokens/checkout_line_item.json"), encoding: .utf8)
        let hs = try TokenSigner(hs256Secret: Self.secret, kid: "k1")
        let ed = TokenSigner.generateEd25519(kid: "e1")
        let verifier = try TokenVerifier(keys: [hs.verificationKey, ed.verificationKey])
        for signer in [hs, ed] {
            let compact = try signer.sign(token)
            #expect(try verifier.verify(compact: compact) == Data(token.utf8))
            everyBitFlipFails(compact, part: 0, verifier: verifier)
            everyBitFlipFails(compact, part: 2, verifier: verifier)
            // The payload is larger: flip a sample of its bits in place.
            let parts = compact.split(separator: ".").map(String.init)
            let bytes = [UInt8](B64URL.decode(parts[1]))
            for i in stride(from: 0, to: bytes.count * 8, by: 13) {
                var flipped = bytes
                flipped[i / 8] ^= UInt8(1 << (i % 8))
                let tampered = [parts[0], B64URL.encode(Data(flipped)), parts[2]].joined(separator: ".")
                expectError(.signature) { _ = try verifier.verify(compact: tampered) }
            }
        }
    }

    @Test func aTokenFromAnotherKeyOrSwappedPartsFails() throws {
        let verifier = try hs256Verifier()
        let other = try TokenSigner(hs256Secret: Self.otherSecret).sign(#"{"id":"a"}"#)
        expectRefused(verifier, other, "does not verify")
        let a = try TokenSigner(hs256Secret: Self.secret).sign(#"{"id":"a"}"#).split(separator: ".")
        let b = try TokenSigner(hs256Secret: Self.secret).sign(#"{"id":"b"}"#).split(separator: ".")
        expectRefused(verifier, [a[0], b[1], a[2]].joined(separator: "."), "does not verify")
    }

    // MARK: Algorithms

    @Test func algorithmConfusionIsRefused() throws {
        // The classic attack: HMAC the token with the public key's bytes.
        let ed = try TokenSigner(ed25519PrivateKey: B64URL.decode(JWSVectors.rfc8037D), kid: "ed")
        let publicBytes = B64URL.decode(JWSVectors.rfc8037X)
        #expect(publicBytes.count == 32)
        let edVerifier = try TokenVerifier(key: ed.verificationKey)
        let confused = try TokenSigner(hs256Secret: publicBytes).sign(#"{"id":"x"}"#)
        expectRefused(edVerifier, confused, "no HS256 key is configured")
        let confusedWithKid = try TokenSigner(hs256Secret: publicBytes, kid: "ed").sign(#"{"id":"x"}"#)
        expectRefused(edVerifier, confusedWithKid, "names an EdDSA key but the header says HS256")
        // A verifier that also holds an HS256 key does not try the Ed25519 key with HMAC.
        let both = try TokenVerifier(keys: [ed.verificationKey, .hs256(secret: Self.secret, kid: "hs")])
        expectRefused(both, confused, "does not verify with the HS256 key \"hs\"")
        expectRefused(both, confusedWithKid, "names an EdDSA key")

        // And the other way round: an EdDSA token for an HS256-only verifier.
        let edToken = try ed.sign(#"{"id":"x"}"#)
        expectRefused(try hs256Verifier(), edToken, "no EdDSA key is configured")
        expectRefused(try hs256Verifier(kid: "ed"), edToken, "names an HS256 key but the header says EdDSA")
        #expect(try both.verify(compact: edToken) == Data(#"{"id":"x"}"#.utf8))
    }

    @Test func unsecuredTokensAreRefused() throws {
        let verifier = try hs256Verifier()
        let payload = B64URL.encode(Data(#"{"id":"x"}"#.utf8))
        // The textbook unsecured JWS: alg none, empty signature.
        let none = B64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + payload + "."
        expectRefused(verifier, none, "signature is empty")
        // With some signature bytes, the alg rule itself says no.
        for alg in ["none", "NONE", "None", "nOnE"] {
            expectRefused(verifier, try forged(header: #"{"alg":"\#(alg)"}"#), "alg \"\(alg)\" (an unsecured JWS) is refused")
        }
    }

    @Test(arguments: ["HS512", "HS384", "RS256", "ES256", "PS256", "Ed25519", "hs256", "HS256 ", "eddsa", ""])
    func algorithmsOffTheListAreRefused(alg: String) throws {
        expectRefused(try hs256Verifier(), try forged(header: #"{"alg":"\#(alg)"}"#),
                      "alg \"\(alg)\" is not allowed; accepted: HS256, EdDSA")
    }

    @Test func malformedAlgHeadersAreRefused() throws {
        let verifier = try hs256Verifier()
        expectRefused(verifier, try forged(header: #"{"typ":"JWT"}"#), "header has no \"alg\"")
        expectRefused(verifier, try forged(header: #"{"alg":null}"#), "\"alg\" must be a string")
        expectRefused(verifier, try forged(header: #"{"alg":["HS256"]}"#), "\"alg\" must be a string")
        expectRefused(verifier, try forged(header: #"{"alg":1}"#), "\"alg\" must be a string")
        expectRefused(verifier, try forged(header: #"["HS256"]"#), "not a JSON object")
        expectRefused(verifier, try forged(header: #"{"alg":"HS256""#), "not a JSON object")
        expectRefused(verifier, try forged(header: "alg=HS256"), "not a JSON object")
        let deep = #"{"alg":"HS256","x":"# + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "}"
        expectRefused(verifier, try forged(header: deep), "not a JSON object")
        // Duplicate names: the last one counts, and it is checked.
        expectRefused(verifier, try forged(header: #"{"alg":"HS256","alg":"none"}"#), "unsecured")
    }

    @Test func extensionsAreRefused() throws {
        let verifier = try hs256Verifier()
        // Each token is correctly signed: only the header rule refuses it.
        expectRefused(verifier, try forged(header: #"{"alg":"HS256","crit":["exp"],"exp":1}"#), "\"crit\"")
        expectRefused(verifier, try forged(header: #"{"alg":"HS256","crit":[]}"#), "\"crit\"")
        expectRefused(verifier, try forged(header: #"{"alg":"HS256","b64":false,"crit":["b64"]}"#), "\"crit\"")
        expectRefused(verifier, try forged(header: #"{"alg":"HS256","b64":false}"#), "\"b64\"")
        expectRefused(verifier, try forged(header: #"{"alg":"HS256","b64":true}"#), "\"b64\"")
        // Ordinary members are ignored, including keys offered by the header.
        let jwk = #"{"kty":"oct","k":"\#(B64URL.encode(Self.otherSecret))"}"#
        let fine = try forged(header: #"{"typ":"JWT","cty":"json","alg":"HS256","jwk":\#(jwk),"jku":"https://evil.example.org/k"}"#)
        #expect(try hs256Verifier().verify(compact: fine) == Data(#"{"id":"x"}"#.utf8))
        let withOthersKey = try TokenSigner(hs256Secret: Self.otherSecret)
            .sign(Data(#"{"id":"x"}"#.utf8), protectedHeader: #"{"alg":"HS256","jwk":\#(jwk)}"#)
        expectRefused(verifier, withOthersKey, "does not verify")
    }

    // MARK: Serialization

    @Test func malformedSerializationsAreRefused() throws {
        let verifier = try hs256Verifier()
        let good = try TokenSigner(hs256Secret: Self.secret).sign(#"{"id":"x"}"#)
        #expect(try verifier.verify(compact: good) == Data(#"{"id":"x"}"#.utf8))
        let p = good.split(separator: ".").map(String.init)
        expectRefused(verifier, p[0] + "." + p[1], "exactly 3 parts")
        expectRefused(verifier, good + ".", "exactly 3 parts separated by \".\", found 4")
        expectRefused(verifier, good + "." + p[2], "found 4")
        expectRefused(verifier, p[0] + ".." + p[1] + "." + p[2], "found 4")
        expectRefused(verifier, "", "found 1")
        expectRefused(verifier, "..", "protected header is empty")
        expectRefused(verifier, "." + p[1] + "." + p[2], "protected header is empty")
        expectRefused(verifier, p[0] + ".." + p[2], "payload is empty")
        expectRefused(verifier, p[0] + "." + p[1] + ".", "signature is empty")
        // Padding, in any part.
        expectRefused(verifier, good + "=", "padding")
        expectRefused(verifier, p[0] + "==." + p[1] + "." + p[2], "padding")
        // Characters outside base64url.
        for bad in ["+", "/", " ", "\n", "é", "%41", "\0", "*"] {
            expectRefused(verifier, p[0] + "." + p[1] + "." + bad + p[2], "not a base64url character")
            expectRefused(verifier, p[0] + bad + "." + p[1] + "." + p[2], "not a base64url character")
        }
        expectRefused(verifier, good + "\n", "not a base64url character")
        expectRefused(verifier, " " + good, "not a base64url character")
        // A length no encoding has, and a non-canonical last character.
        expectRefused(verifier, p[0] + "." + p[1] + "." + p[2] + "AA", "a length no encoding has")
        var sig = Array(p[2])
        #expect(p[2].count == 43)  // 32 bytes: the last character carries 2 unused bits
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        sig[42] = alphabet[alphabet.firstIndex(of: sig[42])! ^ 1]
        expectRefused(verifier, p[0] + "." + p[1] + "." + String(sig), "not canonical")
        // A signature of the wrong length.
        let short = B64URL.encode(B64URL.decode(p[2]).dropLast())
        expectRefused(verifier, p[0] + "." + p[1] + "." + short, "HS256 signature must be 32 bytes, got 31")
        let long = B64URL.encode(B64URL.decode(p[2]) + [0])
        expectRefused(verifier, p[0] + "." + p[1] + "." + long, "must be 32 bytes, got 33")
    }

    @Test func errorsNameTheirSource() throws {
        let e = expectError(.signature) {
            _ = try hs256Verifier().verify(compact: "a.b", source: "https://registry.example.com/design-tokens")
        }
        #expect(e?.input == "https://registry.example.com/design-tokens")
        #expect(e?.message.hasPrefix("JWS ") == true)
    }

    // MARK: Sizes

    @Test func oversizedInputIsRefusedBeforeVerification() throws {
        let verifier = try hs256Verifier()
        // Not even a JWS: refused for its size, not its shape.
        let huge = String(repeating: "A", count: TokenVerifier.defaultMaxCompactBytes + 1)
        let e1 = expectError(.limit) { _ = try verifier.verify(compact: huge) }
        #expect(e1?.message.contains("limit is 65536") == true)
        expectError(.limit) { _ = try verifier.verify(compact: Data(huge.utf8)) }

        // A correctly signed payload one byte over the token limit: refused
        // for its size, so the signature was not what stopped it.
        let limit = PackLimits.default.maxTokenBytes
        let roomy = try TokenSigner(hs256Secret: Self.secret, limits: PackLimits(maxTokenBytes: 1 << 20))
        let over = try roomy.sign(Data(repeating: UInt8(ascii: "x"), count: limit + 1))
        let e2 = expectError(.limit) { _ = try verifier.verify(compact: over) }
        #expect(e2?.message.contains("decodes to \(limit + 1) bytes") == true)
        // Garbage in its signature changes nothing: the size rule comes first.
        let garbage = over.prefix(upTo: over.lastIndex(of: ".")!) + ".AAAA"
        expectError(.limit) { _ = try verifier.verify(compact: String(garbage)) }
        // Exactly at the limit is fine.
        let at = try roomy.sign(Data(repeating: UInt8(ascii: "x"), count: limit))
        #expect(try verifier.verify(compact: at).count == limit)
        // A verifier can be given other bounds.
        let tight = try TokenVerifier(keys: [.hs256(secret: Self.secret)], limits: PackLimits(maxTokenBytes: 100),
                                      maxCompactBytes: 1000)
        expectError(.limit) { _ = try tight.verify(compact: try roomy.sign(Data(count: 101))) }
        expectError(.limit) { _ = try tight.verify(compact: String(repeating: "A", count: 1001)) }
        // The signer refuses to make what clients would refuse.
        let e3 = expectError(.limit) { _ = try TokenSigner(hs256Secret: Self.secret).sign(Data(count: limit + 1)) }
        #expect(e3?.message.contains("token limit is \(limit)") == true)
    }

    // MARK: Keys

    @Test func shortHS256KeysAreRefusedAtConfiguration() throws {
        let short = Data(repeating: 0x5a, count: 31)
        let e = expectError(.argument) { _ = try TokenVerifier.Key.hs256(secret: short) }
        #expect(e?.message.contains("31 bytes; at least 32") == true)
        expectError(.argument) { _ = try TokenSigner(hs256Secret: short) }
        expectError(.argument) { _ = try TokenVerifier.Key.hs256(secret: Data()) }
        let jwk = #"{"kty":"oct","k":"\#(B64URL.encode(short))"}"#
        expectError(.argument) { _ = try TokenVerifier.Key(jwk: Data(jwk.utf8)) }
        _ = try TokenVerifier.Key.hs256(secret: Data(repeating: 0x5a, count: 32))
    }

    @Test func badKeysAndConfigurationsAreRefused() throws {
        expectError(.argument) { _ = try TokenVerifier.Key.ed25519(publicKey: Data(count: 31)) }
        expectError(.argument) { _ = try TokenVerifier.Key.ed25519(publicKey: Data(count: 33)) }
        expectError(.argument) { _ = try TokenSigner(ed25519PrivateKey: Data(count: 64)) }
        expectError(.argument) { _ = try TokenVerifier(keys: []) }
        let dup = expectError(.argument) {
            _ = try TokenVerifier(keys: [.hs256(secret: Self.secret, kid: "k"), .hs256(secret: Self.otherSecret, kid: "k")])
        }
        #expect(dup?.message.contains("share the kid \"k\"") == true)
        expectError(.argument) { _ = try TokenVerifier(keys: [.hs256(secret: Self.secret)], maxCompactBytes: 0) }
        let jwks = [
            (#"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#, "\"RSA\" is not supported"),
            (#"{"kty":"OKP","crv":"X25519","x":"\#(JWSVectors.rfc8037X)"}"#, "\"X25519\" is not supported"),
            (#"{"kty":"OKP","x":"\#(JWSVectors.rfc8037X)"}"#, "(missing) is not supported"),
            (#"{"kty":"OKP","crv":"Ed25519","x":"\#(JWSVectors.rfc8037X)","use":"enc"}"#, "must be \"sig\""),
            (#"{"kty":"OKP","crv":"Ed25519","x":"\#(JWSVectors.rfc8037X)","alg":"HS256"}"#, "key is for EdDSA"),
            (#"{"kty":"oct","k":"\#(B64URL.encode(Self.secret))","alg":"HS512"}"#, "key is for HS256"),
            (#"{"kty":"oct","k":"\#(B64URL.encode(Self.secret))="}"#, "padding"),
            (#"{"kty":"oct"}"#, "no \"k\" member"),
            (#"{"kty":"oct","k":7}"#, "must be a string"),
            (#"["kty"]"#, "not a JSON object"),
        ]
        for (jwk, fragment) in jwks {
            let e = expectError(.argument) { _ = try TokenVerifier.Key(jwk: Data(jwk.utf8)) }
            #expect(e?.message.contains(fragment) == true, "\(jwk): \(e.map(String.init(describing:)) ?? "")")
        }
    }

    @Test func keysAreChosenByKid() throws {
        let s1 = try TokenSigner(hs256Secret: Self.secret, kid: "2026-01")
        let s2 = try TokenSigner(hs256Secret: Self.otherSecret, kid: "2026-02")
        let ed = TokenSigner.generateEd25519(kid: "ed-1")
        let verifier = try TokenVerifier(keys: [s1.verificationKey, s2.verificationKey, ed.verificationKey])
        for signer in [s1, s2, ed] {
            let v = try verifier.verified(compact: try signer.sign(#"{"id":"a"}"#))
            #expect(v.kid == signer.kid && v.algorithm == signer.algorithm)
        }
        // An unknown kid is refused even when a key would verify.
        let unknown = try TokenSigner(hs256Secret: Self.secret, kid: "2025-12").sign(#"{"id":"a"}"#)
        expectRefused(verifier, unknown, "kid \"2025-12\" matches no configured key")
        // A kid that names the wrong key does not fall back to the others.
        let mislabelled = try TokenSigner(hs256Secret: Self.secret, kid: "2026-02").sign(#"{"id":"a"}"#)
        expectRefused(verifier, mislabelled, "does not verify with the HS256 key \"2026-02\"")
        // No kid: every key of the algorithm is tried.
        let anonymous = try TokenSigner(hs256Secret: Self.otherSecret).sign(#"{"id":"a"}"#)
        #expect(try verifier.verified(compact: anonymous).kid == "2026-02")
        let stranger = try TokenSigner(hs256Secret: Data(repeating: 1, count: 32)).sign(#"{"id":"a"}"#)
        expectRefused(verifier, stranger, "any of the 2 HS256 keys")
        // Keys without kids: a kid in the header is not needed to pick one.
        let plain = try TokenVerifier(keys: [.hs256(secret: Self.secret)])
        #expect(try plain.verified(compact: try s1.sign(#"{"id":"a"}"#)).kid == nil)
        expectRefused(plain, try forged(header: #"{"alg":"HS256","kid":7}"#), "\"kid\" must be a string")
    }
}
