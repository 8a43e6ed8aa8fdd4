// AcceptGateTests.swift - the connection cap: connections past it wait in the backlog until one closes.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct AcceptGateTests {
    @Test func atTheCapANewConnectionWaitsUntilOneCloses() async throws {
        try await withStore(.sqlite) { store in
            let r = try await startServer(store) { $0.maxConnections = 2 }
            // Two connections take both places; each is served, and stays open.
            let held = [HTTPProbe.connect(port: r.port), HTTPProbe.connect(port: r.port)]
            #expect(held.allSatisfy { $0 >= 0 })
            for fd in held {
                HTTPProbe.sendHealth(fd)
                #expect(await HTTPProbe.status(fd, within: 30) == 200)
            }
            // A third waits in the listen backlog: connected, but not served.
            let waiting = HTTPProbe.connect(port: r.port)
            #expect(waiting >= 0)
            HTTPProbe.sendHealth(waiting)
            #expect(await HTTPProbe.status(waiting, within: 1) == nil, "a connection past the cap was served")
            // One place frees up: the waiting connection is accepted and served.
            close(held[0])
            #expect(await HTTPProbe.status(waiting, within: 30) == 200)
            close(held[1])
            close(waiting)
            await r.stop()
        }
    }

    /// Only running out of descriptors or memory pauses accepting; other
    /// accept errors are passed on.
    @Test func outOfResourcesErrors() {
        for code in [EMFILE, ENFILE, ENOBUFS, ENOMEM] { #expect(AcceptGate.outOfResources(code), "\(code)") }
        for code in [ECONNABORTED, EINVAL, EBADF, EAGAIN] { #expect(!AcceptGate.outOfResources(code), "\(code)") }
    }
}
#endif
