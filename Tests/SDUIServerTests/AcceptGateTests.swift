// AcceptGateTests.swift - the connection cap: connections past it wait in the backlog until one closes.
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
    /// Blocking TCP connections to 127.0.0.1 that stay open, run off the
    /// cooperative pool the server under test uses.
    enum Connection {
        static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
            await withCheckedContinuation { c in DispatchQueue.global().async { c.resume(returning: work()) } }
        }

        static func open(port: Int) -> Int32 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return -1 }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if ok != 0 { close(fd); return -1 }
            return fd
        }

        static func sendHealth(_ fd: Int32) {
            let request = Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            _ = request.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// The status of the next answer on `fd`, or nil when none comes within `seconds`.
        static func status(_ fd: Int32, within seconds: Int) async -> Int? {
            await offPool {
                var tv = timeval(tv_sec: seconds, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                var received = [UInt8]()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while !received.contains(UInt8(ascii: "\n")) {
                    let n = recv(fd, &buffer, buffer.count, 0)
                    if n <= 0 { return nil }
                    received += buffer[0..<n]
                }
                let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self).split(separator: " ")
                return line.count >= 2 ? Int(line[1]) : nil
            }
        }
    }

    @Test func atTheCapANewConnectionWaitsUntilOneCloses() async throws {
        try await withStore(.sqlite) { store in
            let r = try await startServer(store) { $0.maxConnections = 2 }
            // Two connections take both places; each is served, and stays open.
            let held = [Connection.open(port: r.port), Connection.open(port: r.port)]
            #expect(held.allSatisfy { $0 >= 0 })
            for fd in held {
                Connection.sendHealth(fd)
                #expect(await Connection.status(fd, within: 10) == 200)
            }
            // A third waits in the listen backlog: connected, but not served.
            let waiting = Connection.open(port: r.port)
            #expect(waiting >= 0)
            Connection.sendHealth(waiting)
            #expect(await Connection.status(waiting, within: 1) == nil, "a connection past the cap was served")
            // One place frees up: the waiting connection is accepted and served.
            close(held[0])
            #expect(await Connection.status(waiting, within: 10) == 200)
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
