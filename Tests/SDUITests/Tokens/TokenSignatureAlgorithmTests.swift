// TokenSignatureAlgorithmTests.swift - the fixed list of JWS algorithms and their signature sizes.
@testable import SDUI
import Testing

@Suite struct TokenSignatureAlgorithmTests {
    @Test func onlyHS256AndEdDSAAreOnTheList() {
        #expect(TokenSignatureAlgorithm.allCases == [.hs256, .eddsa])
        #expect(TokenSignatureAlgorithm.allCases.map(\.description) == ["HS256", "EdDSA"])
        for other in ["none", "hs256", "HS512", "RS256", "ES256", "Ed25519", ""] {
            #expect(TokenSignatureAlgorithm(rawValue: other) == nil, "\(other)")
        }
    }

    @Test func signatureLengths() {
        #expect(TokenSignatureAlgorithm.hs256.signatureLength == 32)
        #expect(TokenSignatureAlgorithm.eddsa.signatureLength == 64)
    }
}
