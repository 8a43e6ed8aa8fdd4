// HTTPClientTests.swift - the bounded HTTP client against hostile servers on
// 127.0.0.1: lying lengths, endless chunked bodies, a server that drips.
import Foundation
import SDUICore
import SDUITestSupport
import Testing

@Suite struct HTTPClientTests {
    /// Whether the server's writes stop (the client cancelled the transfer)
    /// within 10 s; the server itself would go on for 30 s.  URLSession
    /// cancels on its own work queue, which a busy machine may reach late,
    /// so this waits for it rather than timing it.
    static func stopsBeingRead(_ server: RawHTTPServer) async -> Bool {
        var last = server.bytesSent
        for _ in 0..<40 {
            try? await Task.sleep(for: .milliseconds(250))
            let now = server.bytesSent
            if now == last { return true }
            last = now
        }
        return false
    }

    /// A `Content-Length` over the limit is refused when the head arrives,
    /// and the transfer is cancelled: the server, sending 64 KiB a
    /// millisecond for as long as it is read, stops being read.
    @Test func announcedLengthOverTheLimitIsRefusedAtTheHead() async throws {
        let server = try RawHTTPServer(answer: .announce(contentLength: 4_000_000_000), maxBytes: 4 << 30,
                                   maxSeconds: 30, pace: 0.001)
        defer { server.stop() }
        let client = HTTPClient(timeout: 20, maxBodyBytes: 1 << 20)
        let e = await #expect(throws: SDUIError.self) { _ = try await client.get(server.baseURL) }
        #expect(e?.category == .limit)
        #expect(e?.message.contains("4000000000") == true)
        #expect(e?.input == server.baseURL.absoluteString)
        #expect(await Self.stopsBeingRead(server), "the refused body is still being read")
    }

    /// An endless chunked body is cut as soon as the count passes the limit.
    @Test func endlessChunkedBodyIsCutAtTheLimit() async throws {
        let server = try RawHTTPServer(answer: .endlessChunked, maxBytes: 4 << 30, maxSeconds: 30, pace: 0.001)
        defer { server.stop() }
        let client = HTTPClient(timeout: 20, maxBodyBytes: 1 << 20)
        let e = await #expect(throws: SDUIError.self) { _ = try await client.get(server.baseURL) }
        #expect(e?.category == .limit)
        #expect(e?.message.contains("\(1 << 20)") == true)
        #expect(await Self.stopsBeingRead(server), "the body is still being read past the limit")
    }

    /// The limit is inclusive, with and without a length in the head.
    @Test func aBodyOfExactlyTheLimitIsAccepted() async throws {
        for chunked in [false, true] {
            let body = Data(repeating: UInt8(ascii: "x"), count: 4096)
            let server = try RawHTTPServer(answer: .fixed(body, chunked: chunked))
            defer { server.stop() }
            let ok = try await HTTPClient(timeout: 10, maxBodyBytes: 4096).get(server.baseURL)
            #expect(ok.status == 200)
            #expect(ok.body == body)
            let e = await #expect(throws: SDUIError.self) {
                _ = try await HTTPClient(timeout: 10, maxBodyBytes: 4095).get(server.baseURL)
            }
            #expect(e?.category == .limit, "chunked: \(chunked)")
        }
    }

    /// The timeout is a deadline for the whole request: a server that sends
    /// a byte every half second never looks idle, and is still cut off.
    @Test func aDrippingServerHitsTheTotalDeadline() async throws {
        let server = try RawHTTPServer(answer: .drip(length: 60, interval: 0.5))
        defer { server.stop() }
        let client = HTTPClient(timeout: 2, maxBodyBytes: 1 << 20)
        let e = await #expect(throws: SDUIError.self) { _ = try await client.get(server.baseURL) }
        #expect(e?.category == .network)
        #expect(e?.message.contains("within 2 s") == true)
        #expect(server.bytesSent < 60, "the whole dripped body arrived: the deadline did not hold")
    }

    /// Cancelling the caller's task cancels the transfer.
    @Test func cancellationStopsTheTransfer() async throws {
        let server = try RawHTTPServer(answer: .drip(length: 60, interval: 0.2))
        defer { server.stop() }
        let client = HTTPClient(timeout: 30, maxBodyBytes: 1 << 20)
        let task = Task { try await client.get(server.baseURL) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    /// Out-of-range settings are kept within bounds, never a trap.
    @Test func settingsAreClamped() {
        #expect(HTTPClient(timeout: 0, maxBodyBytes: -5).timeout == 0.001)
        #expect(HTTPClient(timeout: .nan, maxBodyBytes: -5).maxBodyBytes == 0)
        #expect(HTTPClient(timeout: .infinity, maxBodyBytes: 1).timeout == 0.001)
        #expect(HTTPClient(timeout: 1e12, maxBodyBytes: 1).timeout == 86_400)
        #expect(HTTPClient(timeout: 10, maxBodyBytes: 1).timeout == 10)
    }
}
