// HeaderLimitMiddlewareTests.swift - 431 for a request line and headers over the limit.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct HeaderLimitMiddlewareTests: RegistryServerFixtures {
    @Test func headersOverTheLimitAre431() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let r = try await startServer(store) { $0.maxHeaderBytes = 1000 }
            #expect(try await get(r, "design-tokens?ids=plain").status == 200)
            let big = try await get(r, "design-tokens?ids=plain",
                                    ["X-Primitives": Self.modern, "X-Pad": String(repeating: "p", count: 1000)])
            #expect(big.status == 431)
            #expect(big.json?["error"] as? String == "headers-too-large")
            #expect((big.json?["message"] as? String)?.hasSuffix("bytes; the limit is 1000") == true, "\(big.text)")
            // The request line counts too.
            let long = try await get(r, "design-tokens?ids=plain&v=" + String(repeating: "v", count: 1000))
            #expect(long.status == 431)
            await r.stop()
        }
    }
}
#endif
