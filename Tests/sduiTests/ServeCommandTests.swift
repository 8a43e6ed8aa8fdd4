// ServeCommandTests.swift - `sdui serve` and `sdui registry` as a user runs them.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

/// A running `sdui serve`, its port, and its stderr so far.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    let port: Int

    /// Starts `sdui serve ARGS --port 0` and waits for its "listening" line.
    init(_ args: [String]) throws {
        process.executableURL = sduiExecutable()
        process.arguments = ["serve", "--port", "0"] + args
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var seen = ""
        while !seen.contains("sdui serve: listening on http://127.0.0.1:") || !seen.hasSuffix("\n") {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        guard let r = seen.range(of: "sdui serve: listening on http://127.0.0.1:"),
              let p = Int(seen[r.upperBound...].prefix { $0.isNumber }) else {
            process.terminate()
            throw SDUIError(.io, "sdui serve did not start: \(seen)")
        }
        port = p
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// SIGTERM, then the exit status.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite(.serialized) struct ServeCommandTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")

    @Test func importListServeAndTokens() async throws {
        let dir = Fixtures.temporaryDirectory()
        let db = dir.appendingPathComponent("r.db").path
        let imported = try await sdui(["registry", "import", examples.path, "--db", db])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out.contains("published 47 new token version(s), 0 already there; 8 screen(s)"))
        let list = try await sdui(["registry", "list", "--db", db, "--json"])
        let doc = try JSONSerialization.jsonObject(with: Data(list.out.utf8)) as? [String: Any]
        #expect((doc?["tokens"] as? [Any])?.count == 47 && (doc?["screens"] as? [Any])?.count == 8)
        #expect(try await sdui(["registry", "list", "--db", db]).out.contains("checkout (fallback checkout_offline)"))

        let key = dir.appendingPathComponent("access.key")
        try Data(repeating: 42, count: 32).write(to: key)
        let jwt = try await sdui(["registry", "token", "--access-key", key.path, "--subject", "ci", "--ttl", "600"])
        #expect(jwt.status == 0)
        let bearer = jwt.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeProcess(["--db", db, "--access-key", key.path])
        let base = server.baseURL
        let ok = try await HTTPProbe.get(URL(string: "design-tokens?ids=promo_banner,login_title", relativeTo: base)!.absoluteURL,
                                         headers: ["X-Primitives": PrimitiveMap.builtIn.headerValue, "Authorization": "Bearer \(bearer)"])
        #expect(ok.status == 200 && ok.header("ETag") != nil)
        let screen = try await HTTPProbe.get(URL(string: "screens/checkout", relativeTo: base)!.absoluteURL,
                                             headers: ["X-Primitives": PrimitiveMap.builtIn.headerValue])
        #expect(screen.status == 401)
        #expect(try await HTTPProbe.get(URL(string: "health", relativeTo: base)!.absoluteURL).status == 200)
        #expect(server.stop() == 0)
        #expect(try await sdui(["registry", "token", "--access-key", key.path, "--ttl", "7200"]).status == 1)
    }

    @Test func badImportsAndStoresExitOne() async throws {
        let dir = Fixtures.temporaryDirectory()
        try Data(Fixtures.token("img", primitive: "AsyncImage", props: #"{"url":"http://cdn.sdui.example.com/x.png"}"#).utf8)
            .write(to: dir.appendingPathComponent("img.json"))
        let r = try await sdui(["registry", "import", dir.path, "--db", dir.appendingPathComponent("r.db").path])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("error: invalid: \(dir.path): 1 problem(s):"), "\(r.err)")
        #expect(r.err.contains("img (img.json): image-url: props.url"))
        #expect(try await sdui(["registry", "list"]).status != 0)
        let pg = try await sdui(["registry", "list", "--postgres", "postgres://x:y@127.0.0.1:1/none"])
        #expect(pg.status == 1 && pg.err.hasPrefix("error: store: 127.0.0.1:1/none: no answer from PostgreSQL"), "\(pg.err)")
    }

    @Test func packBuildFromTheRegistryWithBudgetManifestGateAndFallback() async throws {
        let dir = Fixtures.temporaryDirectory()
        let db = dir.appendingPathComponent("r.db").path
        #expect(try await sdui(["registry", "import", examples.path, "--db", db]).status == 0)
        let out = dir.appendingPathComponent("core.json.gz").path
        let fallback = dir.appendingPathComponent("fallback.json.gz").path
        let r = try await sdui(["pack", "build", "--db", db, "--out", out, "--usage", examples.appendingPathComponent("usage.json").path,
                          "--budget", "3000", "--fallback-screens", "checkout,login", "--fallback-out", fallback])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("of 47 tokens"))
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + ".manifest.json"))) as? [String: Any]
        let entries = manifest?["tokens"] as? [[String: Any]] ?? []
        #expect(!entries.isEmpty && entries.count < 47)
        #expect((manifest?["packBytes"] as? Int ?? 9999) <= 3000)
        #expect(entries.first?["id"] as? String == "onboarding_cta" || (entries.first?["usage"] as? Int ?? 0) >= 39000)
        let pack = try CorePack(contentsOf: URL(fileURLWithPath: out))
        #expect(pack.count == entries.count)
        let fb = try FallbackPack(contentsOf: URL(fileURLWithPath: fallback))
        #expect(fb.screen(for: "checkout")?.id == "checkout_offline" && fb.screen(for: "login")?.id == "login_offline")
        // The delta gate: the full pack against the small one.
        let big = try await sdui(["pack", "build", "--db", db, "--out", dir.appendingPathComponent("big.gz").path,
                            "--previous", out, "--max-delta", "1000"])
        #expect(big.status == 1 && big.err.contains("gate"), "\(big.err)")
    }

    @Test func ed25519SigningAndPackBuildFromARunningRegistry() async throws {
        let dir = Fixtures.temporaryDirectory()
        let db = dir.appendingPathComponent("r.db").path
        #expect(try await sdui(["registry", "import", examples.path, "--db", db]).status == 0)
        let seed = Data((0..<32).map { UInt8($0 * 7 % 256) })
        let b64url = Base64URL.encode
        let jwk = dir.appendingPathComponent("signing.jwk")
        try Data(#"{"kty":"OKP","crv":"Ed25519","kid":"reg-1","d":"\#(b64url(seed))"}"#.utf8).write(to: jwk)
        let signed = try ServeProcess(["--db", db, "--signing-key", jwk.path])
        let a = try await HTTPProbe.get(URL(string: "design-tokens?ids=login_title", relativeTo: signed.baseURL)!.absoluteURL,
                                        headers: ["X-Primitives": PrimitiveMap.builtIn.headerValue])
        let element = try HTTPTokenTransport.elements(of: a.body, source: "t")[0]
        let verifier = try TokenVerifier(key: TokenSigner(ed25519PrivateKey: seed, kid: "reg-1").verificationKey)
        let verified = try verifier.verified(compact: String(decoding: element, as: UTF8.self))
        #expect(verified.algorithm == .eddsa && verified.kid == "reg-1")
        #expect(try DesignToken(json: verified.payload).id == "login_title")
        #expect(signed.stop() == 0)

        // Pack build from the HTTP API of a running registry, ids from the usage file.
        let plain = try ServeProcess(["--db", db])
        let out = dir.appendingPathComponent("http.json.gz").path
        let r = try await sdui(["pack", "build", "--registry-url", plain.baseURL.absoluteString, "--out", out,
                                "--usage", examples.appendingPathComponent("usage.json").path, "--budget", "600000"])
        #expect(r.status == 0, "\(r.err)")
        #expect(try CorePack(contentsOf: URL(fileURLWithPath: out)).count == 47)
        let noUsage = try await sdui(["pack", "build", "--registry-url", plain.baseURL.absoluteString, "--out", out])
        #expect(noUsage.status == 1 && noUsage.err.contains("needs --usage"))
        #expect(plain.stop() == 0)
    }

    @Test func jwkKeyFilesAreKeysNeverSecrets() async throws {
        let dir = Fixtures.temporaryDirectory()
        let db = dir.appendingPathComponent("r.db").path
        #expect(try await sdui(["registry", "import", examples.path, "--db", db]).status == 0)
        let seed = Data((0..<32).map { UInt8(255 - $0) })
        let b64url = Base64URL.encode
        let x = Data(try TokenSigner(ed25519PrivateKey: seed).verificationKey.bytes)
        // As WebCrypto writes them: non-string members (ext, key_ops) included.
        let priv = dir.appendingPathComponent("priv.jwk"), pub = dir.appendingPathComponent("pub.jwk")
        try Data(#"{"kty":"OKP","crv":"Ed25519","d":"\#(b64url(seed))","x":"\#(b64url(x))","ext":true,"key_ops":["sign"]}"#.utf8).write(to: priv)
        let pubText = #"{"kty":"OKP","crv":"Ed25519","x":"\#(b64url(x))","ext":true,"key_ops":["verify"]}"#
        try Data(pubText.utf8).write(to: pub)
        let token = try await sdui(["registry", "token", "--access-key", priv.path])
        #expect(token.status == 0, "\(token.err)")
        let cannotSign = try await sdui(["registry", "token", "--access-key", pub.path])
        #expect(cannotSign.status == 1 && cannotSign.err.contains("can verify, not sign"), "\(cannotSign.err)")
        let server = try ServeProcess(["--db", db, "--access-key", pub.path])
        func status(_ bearer: String) async throws -> Int {
            try await HTTPProbe.get(URL(string: "design-tokens?ids=login_title", relativeTo: server.baseURL)!.absoluteURL,
                                    headers: ["X-Primitives": PrimitiveMap.builtIn.headerValue, "Authorization": "Bearer \(bearer)"]).status
        }
        #expect(try await status(token.out.trimmingCharacters(in: .whitespacesAndNewlines)) == 200)
        // A token forged with the public file's text as an HS256 secret is refused.
        let forged = try AccessTokenForgery.hs256(secret: Data(pubText.utf8))
        #expect(try await status(forged) == 401)
        #expect(server.stop() == 0)
    }

    @Test func demoRunsOnlineWarmAndOffline() async throws {
        let out = Fixtures.temporaryDirectory().path
        let first = try await sdui(["demo", "--examples", examples.path, "--out", out, "--fresh"])
        #expect(first.status == 0, "\(first.err)")
        for phase in ["1. online", "2. online again, with an empty memory cache", "3. offline, warm disk cache", "4. offline, a new device"] {
            #expect(first.out.contains(phase), "\(phase)")
        }
        #expect(first.out.contains("→ checkout_offline") && first.out.contains("→ login_offline"))
        #expect(first.out.contains("token_cache_hit_ratio over 55 lookups: 1.00"))
        for name in ["checkout.html", "offline-checkout.html", "team_page.html"] {
            #expect(FileManager.default.fileExists(atPath: out + "/previews/" + name), "\(name)")
        }
        // A second run starts with the disk cache of the first.
        let second = try await sdui(["demo", "--examples", examples.path, "--out", out])
        #expect(second.status == 0)
        let phase1 = second.out.components(separatedBy: "2. online again")[0]
        #expect(phase1.contains("(disk cache kept from an earlier run)"))
        #expect(phase1.contains("token_cache_hit_ratio over 55 lookups: 1.00"), "\(phase1)")
    }
}

/// An HS256 access token made with an arbitrary secret, as an attacker would.
enum AccessTokenForgery {
    static func hs256(secret: Data) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        return try TokenSigner(hs256Secret: secret).sign(#"{"sub":"x","iat":\#(now),"exp":\#(now + 600)}"#)
    }
}
