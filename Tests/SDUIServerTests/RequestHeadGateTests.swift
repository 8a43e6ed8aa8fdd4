// RequestHeadGateTests.swift - request bodies refused in the pipeline, slow requests answered 408, the connection closed.
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

/// A client that sends a request slowly, a few bytes at a time, over a
/// real socket, and notes what the server did meanwhile.
enum SlowClient {
    /// What came of a slow request.
    struct Outcome: Sendable {
        /// The status of the answer, nil when none came.
        var status: Int?
        /// The answer's `error` member.
        var code: String?
        /// The server closed the connection.
        var closed: Bool
        /// Bytes of the request sent before the server answered or closed.
        var sent: Int
        /// Bytes of the whole request.
        var total: Int
    }

    /// Sends `prefix` at once, then `drip` in pieces of `step` bytes every
    /// `every`, until all is sent or the server answers or closes; then
    /// reads the answer until the server closes (or 10 s pass).  Blocking
    /// work on a Dispatch thread, off the cooperative pool.
    static func drip(port: Int, prefix: String, drip: String, step: Int = 1,
                     every: Duration = .milliseconds(100)) async -> Outcome {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: run(port: port, Array(prefix.utf8), Array(drip.utf8), step, every))
            }
        }
    }

    private static func run(port: Int, _ prefix: [UInt8], _ drip: [UInt8], _ step: Int, _ every: Duration) -> Outcome {
        let total = prefix.count + drip.count
        let fd = HTTPProbe.connect(port: port)
        guard fd >= 0 else { return Outcome(status: nil, code: nil, closed: false, sent: 0, total: total) }
        defer { close(fd) }
        var sent = 0
        func write(_ bytes: ArraySlice<UInt8>) -> Bool {
            let n = bytes.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n }
            return n == bytes.count
        }
        var answered = false
        if write(prefix[...]) {
            var offset = 0
            let waitMs = Int32(every.components.seconds * 1000 + every.components.attoseconds / 1_000_000_000_000_000)
            while offset < drip.count {
                // Anything from the server (an answer, or EOF) ends the dripping.
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, waitMs) > 0 { answered = true; break }
                let end = min(drip.count, offset + step)
                if !write(drip[offset..<end]) { break }
                offset = end
            }
        }
        _ = answered
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var closed = false
        while received.count < 1 << 20 {
            let n = HTTPProbe.receive(fd, &buffer, seconds: 30)
            if n == 0 { closed = true; break }
            if n < 0 { closed = errno == ECONNRESET; break }
            received.append(contentsOf: buffer[0..<n])
        }
        let answer = RawClient.parse(received).first
        return Outcome(status: answer?.status, code: answer?.json?["error"] as? String, closed: closed, sent: sent, total: total)
    }

    /// The head of a `POST /events` whose body is `length` bytes.
    static func eventsHead(length: Int) -> String {
        "POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
    }
}

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
            let sized = "GET /screens/home HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\npartial"
            let b = await HTTPProbe.rawUntilClosed(port: r.port, sized, timeout: 5)
            #expect(b.status == 413 && b.closed)
            #expect(try await get(r, "design-tokens?ids=plain").status == 200)
            await r.stop()
        }
    }

    /// A body dripped below the minimum rate is answered 408 and its
    /// connection closed before the body is complete; one dripped fast
    /// enough but past the total deadline too.
    @Test func aSlowBodyIsAnswered408AndClosed() async throws {
        try await withStore(.sqlite) { store in
            let body = #"{"events":[\#(String(repeating: " ", count: 2000))]}"#
            // 10 bytes/s against a minimum of 200 bytes/s after 1 s.
            let r = try await startServer(store) { c in
                c.requestTimeout = .seconds(20)
                c.minRequestBytesPerSecond = 200
                c.requestRateGrace = .seconds(1)
            }
            let slow = await SlowClient.drip(port: r.port, prefix: SlowClient.eventsHead(length: body.utf8.count), drip: body)
            #expect(slow.status == 408 && slow.code == "request-too-slow" && slow.closed, "\(slow)")
            #expect(slow.sent < slow.total, "the connection was closed before the body was complete: \(slow)")
            // The server still answers.
            #expect(try await get(r, "health").status == 200)
            await r.stop()
            // No rate check: the total deadline alone ends it.
            let t = try await startServer(store) { c in
                c.requestTimeout = .seconds(1)
                c.minRequestBytesPerSecond = 0
            }
            let late = await SlowClient.drip(port: t.port, prefix: SlowClient.eventsHead(length: body.utf8.count), drip: body,
                                             step: 10)
            #expect(late.status == 408 && late.code == "request-timeout" && late.closed, "\(late)")
            #expect(late.sent < late.total, "\(late)")
            await t.stop()
        }
    }

    /// The head is timed too, from its first byte: a head that never
    /// ends is 408, closed.
    @Test func aSlowHeadIsAnswered408AndClosed() async throws {
        try await withStore(.sqlite) { store in
            let r = try await startServer(store) { c in
                c.requestTimeout = .seconds(1)
            }
            let head = "GET /health HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Pad: 1\r\n", count: 300) + "\r\n"
            let slow = await SlowClient.drip(port: r.port, prefix: "G", drip: String(head.dropFirst()), step: 4)
            #expect(slow.status == 408 && slow.code == "request-timeout" && slow.closed, "\(slow)")
            #expect(slow.sent < slow.total, "\(slow)")
            await r.stop()
        }
    }

    /// The clock runs only while a request is being read: a keep-alive
    /// connection idle for longer than the deadline between two requests,
    /// and a body sent at once, are served.
    @Test func idleTimeBetweenRequestsIsNotCounted() async throws {
        try await withStore(.sqlite) { store in
            let r = try await startServer(store) { c in
                c.requestTimeout = .milliseconds(500)
                c.minRequestBytesPerSecond = 100_000
                c.requestRateGrace = .zero
            }
            let fd = HTTPProbe.connect(port: r.port, receiveTimeout: 10)
            #expect(fd >= 0)
            defer { close(fd) }
            HTTPProbe.sendHealth(fd)
            #expect(await HTTPProbe.status(fd, within: 30) == 200)
            try await Task.sleep(for: .milliseconds(1500))
            HTTPProbe.sendHealth(fd)
            #expect(await HTTPProbe.status(fd, within: 30) == 200)
            let events = #"{"events":[{"id":"e1","name":"n","flowId":"f","userId":"u","timestamp":1}]}"#
            let post = "POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + "Content-Length: \(events.utf8.count)\r\n\r\n" + events
            let at = await RawClient.exchange(port: r.port, post)
            #expect(at.answers.first?.status == 200, "\(at.answers.first?.text ?? "")")
            await r.stop()
        }
    }

    /// Twenty connections dripping bodies, with a cap of twenty
    /// connections: each is answered 408 and closed, which frees the slots,
    /// and a `/health` queued behind them is answered.
    @Test func twentySlowPostersDoNotStarveHealth() async throws {
        try await withStore(.sqlite) { store in
            let r = try await startServer(store) { c in
                c.maxConnections = 20
                c.requestTimeout = .seconds(2)
                c.minRequestBytesPerSecond = 0
            }
            let body = String(repeating: " ", count: 600)   // a minute at 10 bytes/s
            let port = r.port
            let posters = (0..<20).map { _ in
                Task { await SlowClient.drip(port: port, prefix: SlowClient.eventsHead(length: body.utf8.count), drip: body) }
            }
            try await Task.sleep(for: .milliseconds(300))   // the posters hold every slot
            let health = HTTPProbe.connect(port: port, receiveTimeout: 30)
            #expect(health >= 0)
            defer { close(health) }
            HTTPProbe.sendHealth(health)
            #expect(await HTTPProbe.status(health, within: 30) == 200, "/health was answered")
            for poster in posters {
                let o = await poster.value
                #expect(o.status == 408 && o.closed && o.sent < o.total, "\(o)")
            }
            await r.stop()
        }
    }

    /// The rate rule itself: bytes owed after the grace, and the deadline.
    @Test func readLimitsRefuseLateAndSlowRequests() {
        let l = RequestHeadGate.ReadLimits(timeout: .seconds(10), minBytesPerSecond: 100, grace: .seconds(2))
        #expect(l.refusal(elapsed: .seconds(1), bytes: 0) == nil)
        #expect(l.refusal(elapsed: .seconds(2), bytes: 0) == nil)
        #expect(l.refusal(elapsed: .seconds(3), bytes: 100) == nil)
        #expect(l.refusal(elapsed: .seconds(3), bytes: 99)?.code == "request-too-slow")
        #expect(l.refusal(elapsed: .seconds(10), bytes: 1 << 20)?.code == "request-timeout")
        let off = RequestHeadGate.ReadLimits(timeout: .seconds(10), minBytesPerSecond: 0, grace: .zero)
        #expect(off.refusal(elapsed: .seconds(9), bytes: 0) == nil)
        #expect(l.nextCheck(after: .seconds(9) + .milliseconds(900)) == .milliseconds(100))
    }
}
#endif
