// RawHTTPServer.swift - a hostile HTTP server on 127.0.0.1 for client tests:
// it answers every request with bytes a test scripts (lying lengths, endless
// chunked bodies, one byte at a time), which a well-behaved framework refuses
// to send.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Listens on 127.0.0.1 (a free port) and answers each connection with
/// `answer`, run on its own thread after the request head has been read.
/// Every answer stops by itself: when the peer closes, or after `maxBytes`
/// bytes or `maxSeconds` seconds, whichever comes first.
public final class RawHTTPServer: @unchecked Sendable {
    /// What the server writes after reading a request.
    public enum Answer: Sendable {
        /// A head announcing `contentLength` bytes, then spaces for as long as the peer reads.
        case announce(contentLength: Int64)
        /// A chunked head, then 64 KiB chunks of spaces for as long as the peer reads.
        case endlessChunked
        /// A 200 head with `Content-Length: length`, then the body one byte
        /// every `interval` seconds.
        case drip(length: Int, interval: Double)
        /// A 200 with this body, announced with its true length or sent
        /// chunked (no length known until the end).
        case fixed(Data, chunked: Bool)
        /// This status line's code with this body (its true length announced).
        case status(Int, Data)
        /// A 200 with this body (its true length announced), sent only once
        /// a test calls ``release()``: until then the request holds its
        /// connection, however long the machine takes to get to the next step.
        case held(Data)
    }

    public let port: Int
    private let fd: Int32
    private let answer: Answer
    private let maxBytes: Int
    private let maxSeconds: Double
    private let pace: Double
    // Guarded by `lock`: written by the connection threads, read by tests.
    private let lock = NSLock()
    private var sentBytes = 0
    private var stopped = false
    private var heads = 0
    private var targets: [String] = []
    private var open = 0
    private var answering = 0
    private var mostAnswering = 0
    private var released = false

    /// Starts listening; throws when no socket can be bound.
    public init(answer: Answer, maxBytes: Int = 256 << 20, maxSeconds: Double = 60, pace: Double = 0) throws {
        self.pace = pace
        self.answer = answer
        self.maxBytes = maxBytes
        self.maxSeconds = maxSeconds
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw POSIXError(.EMFILE) }
        var one: Int32 = 1
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(s, $0, len) == 0 && listen(s, 16) == 0 && getsockname(s, $0, &len) == 0
            }
        }
        guard ok else { close(s); throw POSIXError(.EADDRINUSE) }
        fd = s
        port = Int(UInt16(bigEndian: addr.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The base URL of the server.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Body bytes written so far over all connections.
    public var bytesSent: Int { lock.withLock { sentBytes } }

    /// Request heads read so far over all connections: the requests a
    /// client actually sent.
    public var requestsRead: Int { lock.withLock { heads } }

    /// The request targets (`/r1`) of the heads read so far, in order.
    public var targetsRead: [String] { lock.withLock { targets } }

    /// Connections open now.
    public var openConnections: Int { lock.withLock { open } }

    /// The most requests ever answered at once: counted from the head read
    /// until just before the answer's last bytes are written, so a client
    /// cannot have seen an answer end while it still counts.
    public var mostAnsweredAtOnce: Int { lock.withLock { mostAnswering } }

    /// Lets every `.held` answer go, now and from now on.
    public func release() { lock.withLock { released = true } }
    private var isReleased: Bool { lock.withLock { released } }

    /// Marks the end of one answer (before its last write).
    private func answerEnds() { lock.withLock { answering -= 1 } }

    /// Stops accepting; open answers end at their next write.  Once only:
    /// a second close could hit a descriptor number reused meanwhile.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    deinit { stop() }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            let c = accept(fd, nil, nil)
            if c < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(c, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            Thread.detachNewThread { [self] in serve(c) }
        }
    }

    /// Reads the request head (and whatever of a body came with it), then
    /// writes the scripted answer.
    private func serve(_ c: Int32) {
        lock.withLock { open += 1 }
        defer {
            close(c)
            lock.withLock { open -= 1 }
        }
        var head = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 4096)
        // The head ends at the first blank line; a body may follow in the same read.
        while head.firstRange(of: Array("\r\n\r\n".utf8)) == nil, head.count < 65_536 {
            let n = recv(c, &buf, buf.count, 0)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return }
            head += buf[0..<n]
        }
        var ended = false
        let line = String(decoding: head.prefix(while: { $0 != 13 && $0 != 10 }), as: UTF8.self)
        let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        lock.withLock {
            heads += 1
            targets.append(target)
            answering += 1
            mostAnswering = max(mostAnswering, answering)
        }
        defer { if !ended { answerEnds() } }
        let start = Date()
        switch answer {
        case .announce(let length):
            guard write(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n") else { return }
            let spaces = [UInt8](repeating: 0x20, count: 65_536)
            while keepGoing(start), write(c, spaces) {}
        case .endlessChunked:
            guard write(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n") else { return }
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x20, count: 65_536) + Array("\r\n".utf8)
            while keepGoing(start), write(c, chunk) { if pace > 0 { Thread.sleep(forTimeInterval: pace) } }
        case .fixed(let body, let chunked):
            ended = true
            answerEnds()
            if chunked {
                let size = String(body.count, radix: 16)
                _ = write(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n")
                    && write(c, [UInt8](body)) && write(c, "\r\n0\r\n\r\n")
            } else {
                _ = write(c, "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n") && write(c, [UInt8](body))
            }
        case .status(let code, let body):
            _ = write(c, "HTTP/1.1 \(code) Status\r\nContent-Length: \(body.count)\r\n\r\n") && write(c, [UInt8](body))
        case .held(let body):
            while !isReleased, keepGoing(start) { Thread.sleep(forTimeInterval: 0.01) }
            guard write(c, "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n") else { return }
            ended = true
            answerEnds()
            _ = write(c, [UInt8](body))
        case .drip(let length, let interval):
            guard write(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n") else { return }
            for i in 0..<length where keepGoing(start) {
                Thread.sleep(forTimeInterval: interval)
                if i == length - 1 {
                    ended = true
                    answerEnds()
                }
                if !write(c, [0x20]) { return }
            }
        }
    }

    private func keepGoing(_ start: Date) -> Bool {
        !isStopped && bytesSent < maxBytes && Date().timeIntervalSince(start) < maxSeconds
    }

    private func write(_ c: Int32, _ text: String) -> Bool { write(c, Array(text.utf8), counted: false) }

    /// Writes all of `bytes`; false when the peer has gone.
    private func write(_ c: Int32, _ bytes: [UInt8], counted: Bool = true) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBufferPointer { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL_OR_ZERO)) }
            if n <= 0 { return false }
            off += n
            if counted { lock.withLock { sentBytes += n } }
        }
        return true
    }
}

// Linux: no SIGPIPE per send; Darwin: per socket (SO_NOSIGPIPE above).
#if canImport(Glibc)
private let MSG_NOSIGNAL_OR_ZERO = Int(MSG_NOSIGNAL)
#else
private let MSG_NOSIGNAL_OR_ZERO = 0
#endif
