// RequestHeadGate.swift - refuses, in the channel pipeline, requests the registry will not read (bodies, HTTP/1.1 without one Host) and requests that arrive too slowly.
#if Server
import NIOCore
import NIOHTTP1

/// Sits between the HTTP/1 decoder and Hummingbird and refuses, before any
/// route sees them:
///
/// - a request whose head announces a body (a `Content-Length` above 0,
///   or any `Transfer-Encoding`) with a method its path does not take:
///   405 with `Allow`, as the router answers the same method without a
///   body (``RegistryRoutes``);
/// - a request whose head announces a body (`Content-Length` above the
///   limit, or any `Transfer-Encoding`): 413.  The API reads no body but
///   that of `POST /events`; reading on to find the next request would
///   let a slow endless chunked body hold a connection (and reset its idle
///   timer) forever;
/// - an HTTP/1.1 request without a `Host` header, or with more than one:
///   400 (RFC 9112 §3.2).  HTTP/1.0 requests need none;
/// - a request that does not arrive in time: 408.  The idle timeout alone
///   cannot stop a client that sends one byte a second, since every byte
///   resets it, so a request is timed from its first byte to its end (the
///   decoder's `.end` part), head and body alike (``ReadLimits``): it
///   must be complete within ``ReadLimits/timeout``, and once
///   ``ReadLimits/grace`` has passed it must have come at an average of at
///   least ``ReadLimits/minBytesPerSecond``.  The bytes are counted by a
///   ``RequestBytesTap`` at the front of the pipeline, before the decoder,
///   since a head still arriving has reached no handler after it.
///
/// The refusal answers in order.  A client may pipeline: two GETs and the
/// refused request can come in one packet, and Hummingbird answers the
/// GETs later, from a task.  So the gate counts the requests it passed on
/// and the answers written back through it (each ends with an `.end`
/// part), holds the refusal until every earlier answer has been written,
/// then writes it with `Connection: close` and closes the connection.
/// Everything the client sent after the refused head is dropped.
///
/// A request whose body is too slow has already been passed on: its
/// refusal waits for the answers before it, is written in place of its
/// own answer (which Hummingbird, still waiting for the body, has not
/// written), and anything Hummingbird writes after it is dropped.  Were
/// its answer already written (a route may answer before reading the
/// body), the connection is only closed.  While earlier answers are still
/// being written the clock does not run: the server, not the client, is
/// what the request then waits for, and the clock starts again when they
/// are written.
///
/// It works on NIOHTTP1's parts, not HTTPTypes', because only these still
/// carry the HTTP version and every `Host` field; ``RegistryChildChannel``
/// puts it in front of Hummingbird's HTTP1-to-HTTPTypes codec.  Runs on
/// the connection's event loop only.
final class RequestHeadGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A request refused here: what to answer.
    struct Refusal: Equatable {
        var status: HTTPResponseStatus
        var code: String
        var message: String
        /// The `Allow` header of a 405.
        var allow: String? = nil
    }

    /// How long a request may take to arrive, and how slowly.
    struct ReadLimits: Sendable {
        /// The whole request within this long of its first byte.
        var timeout: TimeAmount
        /// After ``grace``, at least this many bytes a second on average
        /// since the first byte; 0: no rate check.
        var minBytesPerSecond: Int
        /// How long a request runs before the rate is checked.
        var grace: TimeAmount

        /// What ``RegistryServerConfiguration`` asks for.
        init(_ c: RegistryServerConfiguration) {
            self.init(timeout: TimeAmount(c.requestTimeout), minBytesPerSecond: c.minRequestBytesPerSecond,
                      grace: TimeAmount(c.requestRateGrace))
        }

        init(timeout: TimeAmount, minBytesPerSecond: Int, grace: TimeAmount) {
            self.timeout = timeout
            self.minBytesPerSecond = max(0, minBytesPerSecond)
            self.grace = grace
        }

        /// The refusal of a request that has taken `elapsed` for `bytes`
        /// bytes so far, or nil while it is within the limits.
        func refusal(elapsed: TimeAmount, bytes: Int) -> Refusal? {
            if elapsed >= timeout {
                return Refusal(status: .requestTimeout, code: "request-timeout",
                               message: "the request did not arrive in full within \(Self.seconds(timeout)) s "
                                   + "(\(bytes) bytes came)")
            }
            guard minBytesPerSecond > 0, elapsed > grace else { return nil }
            // Bytes owed: the minimum rate over the time since the grace ended.
            let owed = Double(minBytesPerSecond) * Double((elapsed - grace).nanoseconds) / 1e9
            guard Double(bytes) < owed else { return nil }
            let rate = Double(bytes) / (Double(elapsed.nanoseconds) / 1e9)
            return Refusal(status: .requestTimeout, code: "request-too-slow",
                           message: "the request arrived at \(Int(rate)) bytes/s; after the first \(Self.seconds(grace)) s "
                               + "the minimum is \(minBytesPerSecond) bytes/s")
        }

        /// How long until the next look at a request that has taken `elapsed`.
        func nextCheck(after elapsed: TimeAmount) -> TimeAmount {
            let quarter = TimeAmount.nanoseconds(timeout.nanoseconds / 4)
            let step = max(TimeAmount.milliseconds(50), min(TimeAmount.seconds(1), quarter))
            return max(TimeAmount.milliseconds(1), min(step, timeout - elapsed))
        }

        static func seconds(_ t: TimeAmount) -> String {
            let s = Double(t.nanoseconds) / 1e9
            return s == s.rounded() ? String(Int(s)) : String(s)
        }
    }

    let maxBodyBytes: Int
    let limits: ReadLimits
    /// Requests passed on whose answer has not been written to its end.
    private var unanswered = 0
    /// Set at the refused head: from then on every inbound part is dropped,
    /// and the refusal is written once the answers before it are.
    private var refusal: Refusal?
    /// The refused request was passed on before it was refused (its body
    /// was too slow): it has its own place among the answers.
    private var refusalWasPassed = false
    private var refusalWritten = false
    /// The request being read: when its clock started and the bytes that came.
    private var reading: (since: NIODeadline, bytes: Int)?
    /// The request being read has had its head passed on (its `.end` not yet).
    private var readingPassed = false
    private var check: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(maxBodyBytes: Int, limits: ReadLimits) {
        self.maxBodyBytes = maxBodyBytes
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        context.fireChannelInactive()
    }

    /// Answers not yet written for requests before the one being read.
    private var earlierUnanswered: Int { unanswered - (readingPassed ? 1 : 0) }

    /// `count` bytes came from the client (``RequestBytesTap``): the first
    /// of a request starts its clock.
    func bytesArrived(_ count: Int) {
        guard refusal == nil, let context else { return }
        if reading == nil {
            reading = (.now(), 0)
            schedule(context: context, in: limits.nextCheck(after: .zero))
        }
        reading?.bytes += count
    }

    private func schedule(context: ChannelHandlerContext, in delay: TimeAmount) {
        check?.cancel()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(in: delay) {
            let (gate, context) = bound.value
            gate.check = nil
            gate.checkProgress(context: context)
        }
    }

    /// Refuses the request being read when it is late or slow; otherwise
    /// looks again later.
    private func checkProgress(context: ChannelHandlerContext) {
        guard refusal == nil, let r = reading, context.channel.isActive else { return }
        let now = NIODeadline.now()
        if earlierUnanswered > 0 {
            // Waiting on the server: the clock starts when the answers before are written.
            reading = (now, r.bytes)
            schedule(context: context, in: limits.nextCheck(after: .zero))
            return
        }
        let elapsed = now - r.since
        if let late = limits.refusal(elapsed: elapsed, bytes: r.bytes) {
            refuse(late, passed: readingPassed, context: context)
        } else {
            schedule(context: context, in: limits.nextCheck(after: elapsed))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refusal != nil { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let refused = Self.refusal(of: head, maxBodyBytes: maxBodyBytes) {
                refuse(refused, passed: false, context: context)
                return
            }
            unanswered += 1
            readingPassed = true
            if reading == nil {   // its bytes were counted for the request before it
                reading = (.now(), 0)
                schedule(context: context, in: limits.nextCheck(after: .zero))
            }
        case .body:
            break
        case .end:
            // Read in full: its clock stops.
            reading = nil
            readingPassed = false
            check?.cancel()
            check = nil
        }
        context.fireChannelRead(data)
    }

    /// Refuses the request being read; the refusal goes out once the
    /// answers before it are written.
    private func refuse(_ refused: Refusal, passed: Bool, context: ChannelHandlerContext) {
        refusal = refused
        refusalWasPassed = passed
        reading = nil
        check?.cancel()
        check = nil
        writeRefusalIfDue(context: context)
    }

    /// Writes the refusal when every answer before it is written; closes
    /// the connection without one when the refused request has been
    /// answered already.
    private func writeRefusalIfDue(context: ChannelHandlerContext) {
        guard refusal != nil, !refusalWritten else { return }
        if refusalWasPassed {
            if unanswered == 1 {
                writeRefusal(context: context)
            } else if unanswered == 0 {
                refusalWritten = true
                context.close(promise: nil)
            }
        } else if unanswered == 0 {
            writeRefusal(context: context)
        }
    }

    /// After the refused head, what follows it is not parsed for anyone:
    /// a parse error in it is not passed on (it would make Hummingbird
    /// write a second answer).
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if refusal != nil, error is HTTPParserError { return }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if refusalWritten {
            // Hummingbird's late answer to a request refused in its place.
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        let ends: Bool
        if case .end = unwrapOutboundIn(data) { ends = true } else { ends = false }
        context.write(data, promise: promise)
        guard ends else { return }
        let waited = earlierUnanswered > 0
        // Hummingbird also answers what never reached it as a request (a
        // parse error's 400), so the count does not go below zero.
        unanswered = max(0, unanswered - 1)
        if refusal != nil {
            writeRefusalIfDue(context: context)
        } else if waited, earlierUnanswered == 0, reading != nil {
            // Nothing before the request being read is left unanswered: its clock starts now.
            reading?.since = .now()
        }
    }

    /// Writes the refusal after whatever was written before it, flushes,
    /// and closes the connection once it is sent.
    private func writeRefusal(context: ChannelHandlerContext) {
        guard let refusal, !refusalWritten else { return }
        let body = RegistryServer.errorBody(refusal.code, refusal.message)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        if let allow = refusal.allow { headers.add(name: "Allow", value: allow) }
        headers.add(name: "Content-Length", value: String(body.count))
        let head = HTTPResponseHead(version: .http1_1, status: refusal.status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let channel = context.channel   // Sendable, unlike the context
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        refusalWritten = true
    }

    /// Why `head` is refused, or nil.
    ///
    /// A body is refused by what the request asks for: on a path that does
    /// not take the request's method it is 405, the answer the method gets
    /// without a body; where the method is taken, a body over the limit is
    /// 413 (every route but `POST /events` takes none).  A path the registry
    /// does not serve (the router's 404) takes no body either: 413.
    static func refusal(of head: HTTPRequestHead, maxBodyBytes configured: Int) -> Refusal? {
        if head.version.major == 1, head.version.minor >= 1 {
            let hosts = head.headers["Host"].count
            if hosts != 1 {
                return Refusal(status: .badRequest, code: "bad-host",
                               message: "an HTTP/1.1 request carries exactly one Host header (RFC 9112 §3.2); "
                                   + "this one has \(hosts == 0 ? "none" : String(hosts))")
            }
        }
        let chunked = !head.headers["Transfer-Encoding"].isEmpty
        // The decoder has already refused a malformed or contradictory Content-Length.
        let length = head.headers["Content-Length"].compactMap { Int($0) }.max() ?? 0
        guard chunked || length > 0 else { return nil }
        let route = RegistryRoutes.route(forTarget: head.uri)
        if let route, !route.takes(head.method.rawValue) {
            return Refusal(status: .methodNotAllowed, code: "method-not-allowed", message: route.notAllowedMessage,
                           allow: route.allow)
        }
        // POST /events is the one route that takes a body (an event batch).
        let maxBodyBytes = route?.path == "events" ? max(configured, RegistryServer.maxEventsBodyBytes) : configured
        if chunked, maxBodyBytes == 0 {
            return Refusal(status: .payloadTooLarge, code: "body-too-large",
                           message: "this route takes no request body (only POST /events does)")
        }
        if length > maxBodyBytes {
            return Refusal(status: .payloadTooLarge, code: "body-too-large",
                           message: "a body of \(length) bytes; the limit is \(maxBodyBytes)")
        }
        return nil
    }
}

/// First in a connection's pipeline, before the HTTP/1 decoder: tells its
/// ``RequestHeadGate`` how many bytes each read brought, so a request is
/// timed from its first byte, also while its head is still incomplete.
/// Runs on the connection's event loop only, as the gate does.
final class RequestBytesTap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let gate: RequestHeadGate

    init(gate: RequestHeadGate) { self.gate = gate }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        gate.bytesArrived(unwrapInboundIn(data).readableBytes)
        context.fireChannelRead(data)
    }
}
#endif
