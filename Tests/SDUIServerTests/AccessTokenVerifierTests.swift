// AccessTokenVerifierTests.swift - Authorization headers checked: scheme, signature, claims and clock.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import Testing

@Suite struct AccessTokenVerifierTests {
    static let signer = try! TokenSigner(hs256Secret: Data(repeating: 4, count: 32))
    static let now = 1_700_000_000

    var verifier: AccessTokenVerifier {
        var v = AccessTokenVerifier(verifier: try! TokenVerifier(key: Self.signer.verificationKey))
        v.now = { Date(timeIntervalSince1970: TimeInterval(Self.now)) }
        return v
    }

    func bearer(_ claims: String) throws -> String { "Bearer " + (try Self.signer.sign(claims)) }

    func refused(_ reason: String) -> Result<String, AccessTokenVerifier.Failure> { .failure(.init(reason: reason)) }

    @Test func aValidTokenGivesItsSubject() throws {
        let t = Self.now
        let header = try bearer(#"{"sub":"app","iat":\#(t),"exp":\#(t + 600)}"#)
        #expect(verifier.check(authorization: header) == .success("app"))
        // The scheme is case-insensitive and may be followed by several spaces.
        let token = header.dropFirst("Bearer ".count)
        #expect(verifier.check(authorization: "bearer    \(token)") == .success("app"))
        // No sub is an empty subject; the clock allows 30 s of skew.
        #expect(verifier.check(authorization: try bearer(#"{"exp":\#(t - 29)}"#)) == .success(""))
    }

    @Test func malformedHeadersAndBadSignaturesAreRefused() throws {
        let t = Self.now
        #expect(verifier.check(authorization: nil) == refused("missing bearer token"))
        for header in ["Bearer", "Basic dXNlcjpwYXNz", "Bearer ", "Bearer a b", "Token abc"] {
            #expect(verifier.check(authorization: header) == refused("expected Authorization: Bearer <token>"), "\(header)")
        }
        #expect(verifier.check(authorization: "Bearer garbage") == refused("bad token signature"))
        let other = try TokenSigner(hs256Secret: Data(repeating: 5, count: 32)).sign(#"{"exp":\#(t + 60)}"#)
        #expect(verifier.check(authorization: "Bearer \(other)") == refused("bad token signature"))
        #expect(verifier.check(authorization: try bearer("[1]")) == refused("token claims are not a JSON object"))
    }

    @Test func claimsAreCheckedAgainstTheClock() throws {
        let t = Self.now
        let cases: [(String, String)] = [
            (#"{"sub":"x"}"#, "token has no exp"),
            (#"{"exp":\#(t - 31)}"#, "token expired"),
            (#"{"iat":\#(t + 31),"exp":\#(t + 600)}"#, "token issued in the future"),
            (#"{"nbf":\#(t + 60),"exp":\#(t + 600)}"#, "token not valid yet"),
            (#"{"iat":\#(t),"exp":\#(t + 3601)}"#, "token lives longer than one hour"),
            (#"{"iat":\#(t - 7200),"exp":\#(t + 3640)}"#, "token lives longer than one hour"),
        ]
        for (claims, reason) in cases {
            #expect(verifier.check(authorization: try bearer(claims)) == refused(reason), "\(claims)")
        }
    }
}
#endif
