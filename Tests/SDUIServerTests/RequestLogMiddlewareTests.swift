// RequestLogMiddlewareTests.swift - one log line per request: method, target, the chosen headers, never Authorization.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RequestLogMiddlewareTests: RegistryServerFixtures {
    @Test func eachRequestIsLoggedOnceWithItsChosenHeaders() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let log = CapturedLog()
            var c = RegistryServerConfiguration()
            c.port = 0
            c.requestLogLevel = .info
            let r = try await RegistryServer(store: store, configuration: c, logger: log.logger).start()
            _ = try await get(r, "design-tokens?ids=plain", ["X-Primitives": Self.modern, "If-None-Match": "\"x\"",
                                                            "Authorization": "Bearer secret-token-value"])
            await r.stop()
            let lines = log.lines.withLockedValue { $0 }.filter { $0.hasPrefix("Request ") }
            #expect(lines.count == 1, "\(lines)")
            let line = try #require(lines.first)
            #expect(line.contains("hb.request.method=GET"))
            #expect(line.contains("hb.request.path=/design-tokens?ids=plain"))
            #expect(line.contains(#"hb.request.headers=[X-Primitives: "\#(Self.modern)", If-None-Match: "\"x\""]"#), "\(line)")
            #expect(!line.contains("secret-token-value") && !line.contains("Authorization"))
        }
    }
}
#endif
