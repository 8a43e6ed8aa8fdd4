// HTTPProbe.swift - plain HTTP requests the server tests make: through URLSession, or as raw bytes.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP answer as a test looks at it.
public struct HTTPAnswer: Sendable {
    public var status: Int
    /// Header fields with lowercased names.
    public var headers: [String: String]
    public var body: Data

    public var text: String { String(decoding: body, as: UTF8.self) }
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
    /// The body as a JSON object (nil when it is not one).
    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
}

public enum HTTPProbe {
    /// `GET url` (or `method`) with `headers`, through URLSession (no caching).
    public static func get(_ url: URL, headers: [String: String] = [:], method: String = "GET") async throws -> HTTPAnswer {
        var r = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 30)
        r.httpMethod = method
        for (k, v) in headers { r.setValue(v, forHTTPHeaderField: k) }
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: r)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (k, v) in http.allHeaderFields { fields[String(describing: k).lowercased()] = String(describing: v) }
        return HTTPAnswer(status: http.statusCode, headers: fields, body: data)
    }

    /// Sends `request` as raw bytes to 127.0.0.1:`port` and returns the
    /// status code of the answer, or nil when the server closed the
    /// connection without one.  For requests URLSession would rewrite
    /// (`..`, raw `%00`, oversized headers).  The blocking socket work runs
    /// on a Dispatch thread, off Swift's cooperative pool, which the server
    /// under test needs.
    public static func raw(port: Int, _ request: String, timeout: Int = 30) async -> Int? {
        await offPool { exchange(port: port, request, timeout: timeout, untilClosed: false).status }
    }

    /// Runs blocking `work` on a Dispatch thread and awaits its result.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    /// Sends `request` and reads until the server closes the connection or
    /// `timeout` seconds pass: the status of the answer, and whether the
    /// server closed the connection.
    public static func rawUntilClosed(port: Int, _ request: String, timeout: Int = 5) async -> (status: Int?, closed: Bool) {
        let r = await offPool { exchange(port: port, request, timeout: timeout, untilClosed: true) }
        return (r.status, r.closed)
    }

    /// Everything the server sent for `request` until it closed the
    /// connection (or `timeout` seconds passed), as text.
    public static func rawResponse(port: Int, _ request: String, timeout: Int = 5) async -> String {
        await offPool { exchange(port: port, request, timeout: timeout, untilClosed: true).text }
    }

    /// A TCP socket connected to 127.0.0.1:`port`, or -1.  Connecting
    /// completes once the kernel has queued the connection, whether or not
    /// the server accepted it.  With `receiveTimeout` (seconds), a read
    /// waits at most that long.  The caller closes it.
    public static func connect(port: Int, receiveTimeout: Int? = nil) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        if let receiveTimeout {
            var tv = timeval(tv_sec: receiveTimeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        // A signal (another test's child exiting) may interrupt connect;
        // the connection goes on being made, so wait for it to finish.
        if ok != 0, errno != EINTR || !finishConnect(fd) { close(fd); return -1 }
        return fd
    }

    /// Waits for an interrupted connect on `fd` to finish: whether it did.
    private static func finishConnect(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while true {
            let r = poll(&p, 1, 30_000)
            if r < 0, errno == EINTR { continue }
            guard r == 1 else { return false }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0
        }
    }

    /// One `recv` on `fd` that waits at most `seconds` for a byte: the count
    /// read, 0 when the peer closed, -1 on a timeout (errno ETIMEDOUT) or an
    /// error (errno says which).  A signal
    /// does not cut the wait short: the test process runs child processes,
    /// and a read with SO_RCVTIMEO is not restarted after their SIGCHLD
    /// (it fails with EINTR, which read as "no answer" before).
    public static func receive(_ fd: Int32, _ buffer: inout [UInt8], seconds: Int) -> Int {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { errno = ETIMEDOUT; return -1 }
            let ms = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, ms)
            if ready < 0, errno == EINTR { continue }
            if ready < 0 { return -1 }
            if ready == 0 { continue }
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n < 0, errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
            return n
        }
    }

    /// Sends `GET /health` on a connected socket.
    public static func sendHealth(_ fd: Int32) {
        let request = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The status code of the next answer on `fd`, or nil when none comes
    /// within `seconds` (or the connection closes).  Waits off the
    /// cooperative pool.
    public static func status(_ fd: Int32, within seconds: Int) async -> Int? {
        await offPool {
            var received = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !received.contains(UInt8(ascii: "\n")) {
                let n = receive(fd, &buffer, seconds: seconds)
                if n <= 0 { return nil }
                received += buffer[0..<n]
            }
            let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self).split(separator: " ")
            return line.count >= 2 ? Int(line[1]) : nil
        }
    }

    /// Sends `bytes` in one go and returns what the server sent until it
    /// closed the connection (or `timeout` seconds passed without a byte, or
    /// 4 MiB came), and whether it closed.  With `firstLine`, stops at the
    /// end of the status line.  For tests that look at raw answers, such as
    /// pipelined ones.  Blocking: call it off the cooperative pool.
    public static func roundTrip(port: Int, _ bytes: [UInt8], timeout: Int,
                                 firstLine: Bool = false) -> (data: Data, closed: Bool) {
        let fd = connect(port: port)
        guard fd >= 0 else { return (Data(), false) }
        defer { close(fd) }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            sent += n
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < 4 << 20 {
            let n = receive(fd, &buffer, seconds: timeout)
            if n == 0 { return (received, true) }
            if n < 0 { return (received, false) }
            received.append(contentsOf: buffer[0..<n])
            if firstLine, received.contains(UInt8(ascii: "\n")) { break }
        }
        return (received, false)
    }

    static func exchange(port: Int, _ request: String, timeout: Int,
                         untilClosed: Bool) -> (status: Int?, closed: Bool, text: String) {
        let (head, closed) = roundTrip(port: port, Array(request.utf8), timeout: timeout, firstLine: !untilClosed)
        let line = String(decoding: head.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        let text = String(decoding: head, as: UTF8.self)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return (nil, closed, text) }
        return (Int(parts[1]), closed, text)
    }
}
