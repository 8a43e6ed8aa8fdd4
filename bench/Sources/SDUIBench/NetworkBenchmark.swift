// NetworkBenchmark.swift - the network path: 50 tokens through a loopback registry.
#if Server
import Foundation
import Logging
import SDUI
import SDUIServer

/// Measures a cold fetch of 50 tokens from a real registry on 127.0.0.1:
/// one batch request, the answer split, each token verified (when signed),
/// parsed and checked, written to a fresh disk cache and handed out.  Side
/// by side with the same GET alone (the floor: HTTP and the loopback) and
/// with `JSONSerialization` parsing that answer (what a plain client does
/// before it has even looked at a token).
public struct NetworkBenchmark {
    public enum Method: String, CaseIterable, Sendable {
        /// `HTTPClient.get` of the batch URL, the body ignored.
        case httpGet
        /// `JSONSerialization.jsonObject` of the unsigned answer.
        case jsonSerialization
        /// `TokenRepository.get(ids)`, memory and disk empty, no disk cache.
        case coldNoDisk
        /// Same, with a durable disk cache (one fsync'd batch).
        case cold
        /// Same, the registry signs (HS256) and the client verifies.
        case coldSigned
    }

    let directory: URL
    let durable: Bool

    public init(directory: URL, durable: Bool = true) {
        self.directory = directory
        self.durable = durable
    }

    /// 50 generated tokens as the registry stores them.
    static func tokens() -> [StoredToken] {
        var rng = PackGenerator.RNG(state: 4242)
        let gen = PackGenerator()
        return (0..<50).map { i in
            let id = "net-\(i)"
            let json = Data(gen.token(i, id: id, rng: &rng).utf8)
            let t = try? DesignToken(json: json)
            return StoredToken(id: id, version: t?.version ?? 1, json: json, primitiveVersion: t?.primitiveVersion ?? 1)
        }
    }

    /// Median milliseconds of each method over `rounds` rounds.
    public func measure(rounds: Int) async throws -> [Method: Double] {
        let base = directory.appendingPathComponent("sdui-bench-net-\(getpid())")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        var quiet = Logger(label: "sdui.bench")
        quiet.logLevel = .critical

        let store = try await SQLiteRegistryStore(path: base.appendingPathComponent("registry.db").path, logger: quiet)
        return try await store.closing {
            try await store.migrate()
            let tokens = Self.tokens()
            try await store.publish(tokens)
            let secret = Data((0..<32).map { UInt8($0 &* 7 &+ 1) })
            var plainConfig = RegistryServerConfiguration()
            plainConfig.port = 0
            var signedConfig = plainConfig
            signedConfig.signer = try TokenSigner(hs256Secret: secret)
            let plain = try await RegistryServer(store: store, configuration: plainConfig, logger: quiet).start()
            let signed = try await RegistryServer(store: store, configuration: signedConfig, logger: quiet).start()
            let outcome: Result<[Method: Double], Error>
            do {
                outcome = .success(try await run(rounds: rounds, tokens: tokens, plain: plain.baseURL,
                                                  signed: signed.baseURL, signer: signedConfig.signer!, base: base))
            } catch {
                outcome = .failure(error)
            }
            await plain.stop()
            await signed.stop()
            return try outcome.get()
        }
    }

    /// The rounds, against the two running registries.
    private func run(rounds: Int, tokens: [StoredToken], plain: URL, signed: URL, signer: TokenSigner,
                     base: URL) async throws -> [Method: Double] {
        let verifier = try TokenVerifier(key: signer.verificationKey)
        let ids = tokens.map(\.id)
        let primitives = PrimitiveMap.builtIn.headerValue
        let plainTransport = HTTPRegistryTransport(baseURL: plain, primitives: primitives)
        let signedTransport = HTTPRegistryTransport(baseURL: signed, primitives: primitives)

        // The floor: the same request, nothing done with the answer.
        let client = HTTPClient(timeout: 10, maxBodyBytes: 8 << 20)
        var c = URLComponents(url: plain.appendingPathComponent("design-tokens"), resolvingAgainstBaseURL: false)!
        c.queryItems = [URLQueryItem(name: "ids", value: ids.joined(separator: ","))]
        let url = c.url!
        let headers = ["Accept": "application/json", "X-Primitives": primitives]
        let answer = try await client.get(url, headers: headers)
        guard answer.status == 200 else { throw SDUIError(.http, "bench registry answered \(answer.status)") }

        let clock = ContinuousClock()
        var samples: [Method: [Double]] = [:]
        var n = 0
        /// A fresh repository's get(ids): every token must come from the network.
        func cold(_ m: Method, transport: HTTPRegistryTransport, disk: Bool, verify: Bool) async throws {
            n += 1
            var config = TokenRepository.Configuration()
            if verify { config.verifier = verifier }
            let repo: TokenRepository
            if disk {
                let cache = try DiskCache(path: base.appendingPathComponent("cache-\(n).db").path, durable: durable)
                repo = TokenRepository(memory: try TokenCache(), disk: cache, transport: transport, configuration: config)
            } else {
                repo = TokenRepository(memory: try TokenCache(), transport: transport, configuration: config)
            }
            var found: [String: TokenLookup] = [:]
            let d = await clock.measure { found = await repo.get(ids) }
            guard found.values.allSatisfy({ if case .found(_, .network) = $0 { true } else { false } }) else {
                throw SDUIError(.network, "\(m.rawValue): not every token came from the registry")
            }
            samples[m, default: []].append(d.milliseconds)
        }
        for _ in 0..<rounds {
            let d = try await clock.measure { _ = try await client.get(url, headers: headers) }
            samples[.httpGet, default: []].append(d.milliseconds)
            let j = try clock.measure { _ = try JSONSerialization.jsonObject(with: answer.body) }
            samples[.jsonSerialization, default: []].append(j.milliseconds)
            try await cold(.coldNoDisk, transport: plainTransport, disk: false, verify: false)
            try await cold(.cold, transport: plainTransport, disk: true, verify: false)
            try await cold(.coldSigned, transport: signedTransport, disk: true, verify: true)
        }
        return samples.mapValues { FirstPaintBenchmark.median($0) }
    }
}
#endif
