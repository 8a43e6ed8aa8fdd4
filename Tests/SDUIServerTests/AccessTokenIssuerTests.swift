// AccessTokenIssuerTests.swift - bearer access tokens: their claims, and at most one hour of life.
#if Server
import Foundation
import SDUI
import SDUIServer
import Testing

@Suite struct AccessTokenIssuerTests {
    static let signer = try! TokenSigner(hs256Secret: Data(repeating: 3, count: 32))

    @Test func aTokenCarriesSubIatAndExp() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let token = try AccessTokenIssuer(signer: Self.signer).issue(subject: "app", lifetime: 600, now: now)
        let claims = try TokenVerifier(key: Self.signer.verificationKey).verify(compact: token)
        #expect(String(decoding: claims, as: UTF8.self) == #"{"exp":1700000600,"iat":1700000000,"sub":"app"}"#)
    }

    @Test func lifetimesOverAnHourOrNotPositiveAreRefused() throws {
        let issuer = AccessTokenIssuer(signer: Self.signer)
        _ = try issuer.issue(subject: "app", lifetime: AccessTokenIssuer.maxLifetime)
        for lifetime in [0, -1, 3601, .infinity, .nan] as [TimeInterval] {
            let e = #expect(throws: RegistryError.self, "\(lifetime)") { try issuer.issue(subject: "app", lifetime: lifetime) }
            #expect(e?.code == .invalid && e?.subject == "app", "\(lifetime)")
        }
    }
}
#endif
