// TokenRepositoryFixtures.swift - repositories wired to a loopback registry and a fresh disk file, for the repository suites.
import Foundation
import MetricsTestKit
import SDUI
import SDUITestSupport

/// Builders shared by the TokenRepository and batching suites.
protocol TokenRepositoryFixtures {}

extension TokenRepositoryFixtures {
    /// A repository wired to a fresh disk file and the given registry.
    static func repository(_ registry: LoopbackRegistry?, pack: CorePack? = nil, disk path: String? = nil,
                           clock: ManualClock = ManualClock(), window: Duration = .milliseconds(5),
                           verifier: TokenVerifier? = nil, policy: ImageURLPolicy? = nil,
                           transport: (any RegistryTransport)? = nil,
                           metrics: TestMetrics? = nil) throws -> (TokenRepository, DiskCache) {
        let disk = try DiskCache(path: path ?? Fixtures.temporaryDirectory().appendingPathComponent("t.db").path,
                                 durable: false)
        var c = TokenRepository.Configuration()
        c.coalescingWindow = window
        c.now = { clock.now }
        c.verifier = verifier
        c.imagePolicy = policy
        c.metricsFactory = metrics
        let t = transport ?? registry.map { HTTPRegistryTransport(baseURL: $0.baseURL, primitives: "Column@3,Text@4",
                                                               bearerToken: "secret-token", timeout: 30) }
        return (TokenRepository(pack: pack, memory: try TokenCache(), disk: disk, transport: t, configuration: c), disk)
    }

    static func tokens(_ ids: [String], version: Int = 1) -> [String: Data] {
        Dictionary(uniqueKeysWithValues: ids.map { ($0, Data(Fixtures.token($0, version: version).utf8)) })
    }

    func source(_ l: TokenLookup?) -> TokenSource? {
        if case .found(_, let s)? = l { return s }
        return nil
    }
}
