// RequestHeadGateTests.swift - request bodies refused in the pipeline, the connection closed.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RequestHeadGateTests: RegistryServerFixtures {
    @Test func requestBodiesAreRefusedAndTheConnectionClosed() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let r = try await startServer(store)
            // A chunked body that never ends: 413 at once, and the connection closed.
            let slow = "GET /design-tokens?ids=plain HTTP/1.1\r\nHost: x\r\nX-Primitives: Text@1\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
            let a = await HTTPProbe.rawUntilClosed(port: r.port, slow, timeout: 5)
            #expect(a.status == 413 && a.closed)
            let sized = "POST /screens/home HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\npartial"
            let b = await HTTPProbe.rawUntilClosed(port: r.port, sized, timeout: 5)
            #expect(b.status == 413 && b.closed)
            #expect(try await get(r, "design-tokens?ids=plain").status == 200)
            await r.stop()
        }
    }
}
#endif
