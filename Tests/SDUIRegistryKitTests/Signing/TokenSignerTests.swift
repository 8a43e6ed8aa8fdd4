// TokenSignerTests.swift - JWS signatures on token JSON: the RFC vector reproduced, kids as JSON, round trips.
import Foundation
import SDUI
@testable import SDUIRegistryKit
import SDUITestSupport
import Testing

@Suite struct TokenSignerTests {
    static let secret = Data((0..<32).map { UInt8($0 * 7 + 1) })

    // MARK: Published vectors

    @Test func rfc7520Section4_4VerifiesAndTheSignerReproducesIt() throws {
        let key = try TokenVerifier.Key(jwk: Data(JWSVectors.rfc7520JWK.utf8))
        #expect(key.algorithm == .hs256 && key.kid == JWSVectors.rfc7520Kid)
        let verified = try TokenVerifier(key: key).verified(compact: JWSVectors.rfc7520Compact)
        #expect(verified.payload == Data(JWSVectors.rfc7520Payload.utf8))
        #expect(verified.algorithm == .hs256 && verified.kid == JWSVectors.rfc7520Kid)

        // The signer's deterministic header is the one of Figure 34.
        let secret = B64URL.decode("hJtXIZ2uSN5kbQfbtTNWbpdmhkV8FJG-Onbc6mxCcYg")
        let signer = try TokenSigner(hs256Secret: secret, kid: JWSVectors.rfc7520Kid)
        #expect(try signer.sign(JWSVectors.rfc7520Payload) == JWSVectors.rfc7520Compact)
        #expect(signer.verificationKey == key)
    }

    @Test func kidsAreWrittenAsJSONStrings() throws {
        for kid in [#"quote " and backslash \ "#, "tab\tnewline\n", "ünïcödé ✓", "\u{1}"] {
            let signer = try TokenSigner(hs256Secret: Self.secret, kid: kid)
            let header = try JSONSerialization.jsonObject(with: Data(signer.headerJSON.utf8)) as? [String: String]
            #expect(header == ["alg": "HS256", "kid": kid])
            let verifier = try TokenVerifier(key: signer.verificationKey)
            #expect(try verifier.verified(compact: try signer.sign("{}")).kid == kid)
        }
    }

    // MARK: Round trips

    @Test func signThenVerifyRoundTripsForBothAlgorithms() throws {
        let hs = try TokenSigner(hs256Secret: Self.secret)
        let ed = TokenSigner.generateEd25519()
        #expect(hs.headerJSON == #"{"alg":"HS256"}"#)
        #expect(ed.headerJSON == #"{"alg":"EdDSA"}"#)
        let dir = Fixtures.repositoryRoot.appendingPathComponent("Examples/tokens")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 40)
        for signer in [hs, ed] {
            let verifier = try TokenVerifier(key: signer.verificationKey)
            for file in files {
                let json = try Data(contentsOf: dir.appendingPathComponent(file))
                let compact = try signer.sign(json)
                #expect(compact.split(separator: ".").count == 3 && !compact.contains("="))
                let payload = try verifier.verify(compact: compact, source: file)
                #expect(payload == json)
                // What was verified is what gets parsed and cached.
                let token = try DesignToken(json: payload, source: file)
                #expect(token.json == json)
            }
        }
        // Another Ed25519 key does not verify it.
        let compact = try ed.sign("{}")
        expectRefused(try TokenVerifier(key: TokenSigner.generateEd25519().verificationKey), compact, "does not verify")
    }
}