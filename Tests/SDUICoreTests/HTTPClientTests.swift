// HTTPClientTests.swift - the bounded HTTP client against hostile servers on
// 127.0.0.1: lying lengths, endless chunked bodies, a server that drips.
import Foundation
@testable import SDUICore
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

    /// Waits (up to 10 s) until the server has no connection open, then a
    /// little longer, so a request the client still meant to send has had
    /// time to arrive.
    static func settles(_ server: RawHTTPServer) async {
        for _ in 0..<40 where server.openConnections > 0 {
            try? await Task.sleep(for: .milliseconds(250))
        }
        try? await Task.sleep(for: .milliseconds(1500))
    }

    /// Waits (up to 20 s) until `n` requests to `url`'s host wait in line:
    /// a busy machine may start a task seconds after it was made.
    static func inLine(_ client: HTTPClient, _ url: URL, _ n: Int) async -> Bool {
        for _ in 0..<1000 {
            if client.requestsWaiting(for: url) == n { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Two requests hold the client's two connections (the server answers
    /// only when the test lets it); a third waits in line with a long
    /// deadline, a fourth behind it with a short one: the fourth fails
    /// saying it was never sent and that one was ahead of it, the third is
    /// cancelled, and neither is sent later, when the connections free.
    @Test func aRequestThatFailedWhileQueuedIsNeverSent() async throws {
        let server = try RawHTTPServer(answer: .held(Data("{}".utf8)))
        defer { server.stop() }
        let client = HTTPClient(timeout: 60, maxBodyBytes: 1 << 20, maxConnectionsPerHost: 2)
        let slow = (0..<2).map { i in Task { try await client.get(server.baseURL.appendingPathComponent("slow\(i)")) } }
        for _ in 0..<1000 where server.requestsRead < 2 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.requestsRead == 2)
        let first = Task { try await client.get(server.baseURL.appendingPathComponent("late0")) }
        #expect(await Self.inLine(client, server.baseURL, 1))
        let second = Task {
            try await client.get(server.baseURL.appendingPathComponent("late1"), timeout: 0.5)
        }
        let failed = await second.result
        #expect(throws: SDUIError.self) { try failed.get() }
        let message = (failed.failureValue as? SDUIError).map { "\($0)" } ?? ""
        #expect(message == "network: http://127.0.0.1:\(server.port)/late1: not sent: no connection to the host "
                + "came free within 0.5 s (all 2 in use, 1 ahead of it in line)", "\(message)")
        first.cancel()
        let cancelled = await first.result
        #expect(throws: CancellationError.self) { try cancelled.get() }
        #expect(client.requestsWaiting(for: server.baseURL) == 0)
        server.release()
        for t in slow { #expect(try await t.value.status == 200) }
        await Self.settles(server)
        #expect(server.targetsRead.sorted() == ["/slow0", "/slow1"], "a request that had failed to its caller was sent later")
    }

    /// A request alone in line that times out says so, without a count of
    /// others ahead of it; the one that held the connection is unaffected.
    @Test func theFirstInLineSaysNoneWasAhead() async throws {
        let server = try RawHTTPServer(answer: .held(Data("{}".utf8)))
        defer { server.stop() }
        let client = HTTPClient(timeout: 60, maxBodyBytes: 1 << 20, maxConnectionsPerHost: 1)
        let holder = Task { try await client.get(server.baseURL.appendingPathComponent("holder")) }
        for _ in 0..<1000 where server.requestsRead < 1 { try await Task.sleep(for: .milliseconds(20)) }
        let result = await Task { try await client.get(server.baseURL.appendingPathComponent("waiter"), timeout: 0.3) }.result
        let message = (result.failureValue as? SDUIError).map { "\($0)" } ?? "\(result)"
        #expect(message.hasSuffix(": not sent: no connection to the host came free within 0.3 s (all 1 in use)"), "\(message)")
        server.release()
        #expect(try await holder.value.status == 200)
        await Self.settles(server)
        #expect(server.targetsRead == ["/holder"])
    }

    /// Eight requests at once with the default six connections: whatever
    /// the timing (a busy machine spreads their starts), a request whose
    /// error says it was never sent was not sent, then or later.
    @Test func eightAtOnceSendOnlyWhatDidNotFailInLine() async throws {
        let server = try RawHTTPServer(answer: .drip(length: 40, interval: 0.1))
        defer { server.stop() }
        let client = HTTPClient(timeout: 1.5, maxBodyBytes: 1 << 20)
        #expect(client.maxConnectionsPerHost == 6)
        let outcomes = await withTaskGroup(of: (String, String).self) { group in
            for i in 0..<8 {
                group.addTask {
                    do {
                        _ = try await client.get(server.baseURL.appendingPathComponent("r\(i)"))
                        return ("/r\(i)", "answered")
                    } catch {
                        return ("/r\(i)", "\(error)")
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.count == 8)
        #expect(outcomes.values.allSatisfy { $0.hasPrefix("network: ") }, "\(outcomes)")
        await Self.settles(server)
        let unsent = Set(outcomes.filter { $0.value.contains("not sent") }.keys)
        #expect(Set(server.targetsRead).isDisjoint(with: unsent), "\(outcomes) \(server.targetsRead)")
        #expect(server.requestsRead == Set(server.targetsRead).count, "a request was sent twice")
    }

    /// With two connections per host, five slow requests go two at a time
    /// and all succeed: the wait for a connection is part of the deadline,
    /// not a failure.
    @Test func requestsPastTheConnectionLimitWaitTheirTurn() async throws {
        let server = try RawHTTPServer(answer: .drip(length: 4, interval: 0.15))
        defer { server.stop() }
        let client = HTTPClient(timeout: 60, maxBodyBytes: 1 << 20, maxConnectionsPerHost: 2)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<5 {
                let url = server.baseURL.appendingPathComponent("r\(i)")
                group.addTask { try await client.get(url).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == [200, 200, 200, 200, 200])
        #expect(server.requestsRead == 5)
        #expect(server.mostAnsweredAtOnce == 2, "the client had more than its 2 connections on the wire, or never 2")
    }

    /// A caller cancelled while its request waits in line gets
    /// `CancellationError`, and the request is never sent.
    @Test func cancellingAQueuedRequestNeverSendsIt() async throws {
        let server = try RawHTTPServer(answer: .held(Data("{}".utf8)))
        defer { server.stop() }
        let client = HTTPClient(timeout: 60, maxBodyBytes: 1 << 20, maxConnectionsPerHost: 1)
        let first = Task { try await client.get(server.baseURL.appendingPathComponent("first")) }
        for _ in 0..<1000 where server.requestsRead == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.requestsRead == 1)
        let second = Task { try await client.get(server.baseURL.appendingPathComponent("second")) }
        #expect(await Self.inLine(client, server.baseURL, 1))
        second.cancel()
        let result = await second.result
        #expect(throws: CancellationError.self) { try result.get() }
        server.release()
        #expect(try await first.value.status == 200)
        await Self.settles(server)
        #expect(server.targetsRead == ["/first"], "the cancelled request was sent when the connection freed")
    }

    /// Out-of-range settings are kept within bounds, never a trap.
    @Test func settingsAreClamped() {
        #expect(HTTPClient(timeout: 1, maxBodyBytes: 1, maxConnectionsPerHost: 0).maxConnectionsPerHost == 1)
        #expect(HTTPClient(timeout: 1, maxBodyBytes: 1, maxConnectionsPerHost: -3).maxConnectionsPerHost == 1)
        #expect(HTTPClient(timeout: 1, maxBodyBytes: 1, maxConnectionsPerHost: 1000).maxConnectionsPerHost == 64)
        #expect(HTTPClient(timeout: 0, maxBodyBytes: -5).timeout == 0.001)
        #expect(HTTPClient(timeout: .nan, maxBodyBytes: -5).maxBodyBytes == 0)
        #expect(HTTPClient(timeout: .infinity, maxBodyBytes: 1).timeout == 0.001)
        #expect(HTTPClient(timeout: 1e12, maxBodyBytes: 1).timeout == 86_400)
        #expect(HTTPClient(timeout: 10, maxBodyBytes: 1).timeout == 10)
    }
}

extension Result {
    /// The error of a failure; nil for a success.
    fileprivate var failureValue: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
