// RunningRegistryTests.swift - a server running in a task: its port and address, and stopping it.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RunningRegistryTests {
    @Test func theBaseURLNamesTheHostAndPort() async throws {
        let store = try await SQLiteRegistryStore(path: Fixtures.temporaryDirectory().appendingPathComponent("r.db").path)
        let server = RegistryServer(store: store)
        let idle = Task<Void, Error> {}
        #expect(RunningRegistry(server: server, task: idle, host: "127.0.0.1", port: 8080).baseURL.absoluteString
                == "http://127.0.0.1:8080/")
        #expect(RunningRegistry(server: server, task: idle, host: "::1", port: 9000).baseURL.absoluteString
                == "http://[::1]:9000/")
        #expect(RunningRegistry(server: server, task: idle, host: "[::1]", port: 9000).baseURL.absoluteString
                == "http://[::1]:9000/")
        #expect(RunningRegistry(server: server, task: idle, host: "localhost", port: 1).port == 1)
        try await store.close()
    }

    @Test func aStartedServerAnswersOnItsPortUntilStopped() async throws {
        try await withStore(.sqlite) { store in
            let r = try await startServer(store)
            #expect(r.port > 0 && r.baseURL.absoluteString == "http://127.0.0.1:\(r.port)/")
            #expect(await HTTPProbe.raw(port: r.port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n") == 200)
            await r.stop()
            #expect(await HTTPProbe.raw(port: r.port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                        timeout: 2) == nil)
        }
    }
}
#endif
