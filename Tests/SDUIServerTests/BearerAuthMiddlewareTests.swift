// BearerAuthMiddlewareTests.swift - bearer access tokens on the API routes: 401 and WWW-Authenticate for every refusal.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct BearerAuthMiddlewareTests: RegistryServerFixtures {
    @Test func signedTokensVerifyAndAuthIsRequired() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let signer = try TokenSigner(hs256Secret: Data(repeating: 7, count: 32))
            let access = TokenSigner.generateEd25519(kid: "k1")
            let clock = ManualClock(Date())
            var verifier = AccessTokenVerifier(verifier: try TokenVerifier(key: access.verificationKey))
            verifier.now = { clock.now }
            let r = try await startServer(store) { c in
                c.signer = signer
                c.access = verifier
            }
            let issuer = AccessTokenIssuer(signer: access)
            let good = try issuer.issue(subject: "app", lifetime: 600, now: clock.now)
            let ok = try await get(r, "design-tokens?ids=plain", ["X-Primitives": Self.modern, "Authorization": "Bearer \(good)"])
            #expect(ok.status == 200)
            #expect(ok.header("Cache-Control") == "max-age=86400, private")
            let element = try HTTPRegistryTransport.elements(of: ok.body, source: "t")[0]
            let json = try TokenVerifier(key: signer.verificationKey).verify(compact: element)
            #expect(ok.header("ETag") == ETag.batch([ETag.of(json: json)]))
            // The repository verifies what the server signed.
            var config = TokenRepository.Configuration()
            config.verifier = try TokenVerifier(key: signer.verificationKey)
            let repo = TokenRepository(memory: try TokenCache(),
                                       transport: HTTPRegistryTransport(baseURL: r.baseURL, primitives: Self.modern, bearerToken: good, timeout: 30),
                                       configuration: config)
            #expect(await repo.get("card").token?.version == 2)

            let other = TokenSigner.generateEd25519(kid: "k1")
            let refusals: [(String?, String)] = [
                (nil, "missing bearer token"),
                ("Basic dXNlcjpwYXNz", "expected Authorization: Bearer"),
                ("Bearer garbage", "bad token signature"),
                ("Bearer " + (try AccessTokenIssuer(signer: other).issue(subject: "x", now: clock.now)), "bad token signature"),
                ("Bearer " + (try issuer.issue(subject: "x", lifetime: 60, now: clock.now.addingTimeInterval(-3600))), "token expired"),
                ("Bearer " + (try other.sign(#"{"sub":"x","iat":\#(Int(clock.now.timeIntervalSince1970)),"exp":\#(Int(clock.now.timeIntervalSince1970) + 7200)}"#)),
                 "bad token signature"),
                ("Bearer " + (try access.sign(#"{"sub":"x","iat":\#(Int(clock.now.timeIntervalSince1970)),"exp":\#(Int(clock.now.timeIntervalSince1970) + 7200)}"#)),
                 "longer than one hour"),
                ("Bearer " + (try access.sign(#"{"sub":"x"}"#)), "no exp"),
            ]
            for (auth, reason) in refusals {
                var headers = ["X-Primitives": Self.modern]
                headers["Authorization"] = auth
                let a = try await get(r, "design-tokens?ids=plain", headers)
                #expect(a.status == 401, "\(reason)")
                #expect(a.header("WWW-Authenticate")?.hasPrefix("Bearer error=\"invalid_token\"") == true)
                #expect((a.json?["message"] as? String)?.contains(reason) == true, "\(reason): \(a.text)")
                #expect(a.header("Cache-Control") == "no-store")
            }
            // The same token expires as the clock moves past exp.
            clock.advance(601 + 30)
            #expect(try await get(r, "screens/home", ["X-Primitives": Self.modern, "Authorization": "Bearer \(good)"]).status == 401)
            // Health and metrics stay open.
            #expect(try await get(r, "health", [:]).status == 200)
            #expect(try await get(r, "metrics", [:]).status == 200)
            #expect(throws: RegistryError.self) { try issuer.issue(subject: "x", lifetime: 3601) }
            await r.stop()
        }
    }
}
#endif
