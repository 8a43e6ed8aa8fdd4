// RequestHeadGate.swift - refuses, in the channel pipeline, requests the registry will not read: bodies, and HTTP/1.1 without one Host.
#if Server
import NIOCore
import NIOHTTP1

/// Sits between the HTTP/1 decoder and Hummingbird and refuses two kinds
/// of request before any route sees them:
///
/// - a request whose head announces a body (`Content-Length` above the
///   limit, or any `Transfer-Encoding`): 413.  The API reads no bodies;
///   reading on to find the next request would let a slow endless chunked
///   body hold a connection (and reset its idle timer) forever;
/// - an HTTP/1.1 request without a `Host` header, or with more than one:
///   400 (RFC 9112 §3.2).  HTTP/1.0 requests need none.
///
/// The refusal answers in order.  A client may pipeline: two GETs and the
/// refused request can come in one packet, and Hummingbird answers the
/// GETs later, from a task.  So the gate counts the requests it passed on
/// and the answers written back through it (each ends with an `.end`
/// part), holds the refusal until every earlier answer has been written,
/// then writes it with `Connection: close` and closes the connection.
/// Everything the client sent after the refused head is dropped.
///
/// It works on NIOHTTP1's parts, not HTTPTypes', because only these still
/// carry the HTTP version and every `Host` field; ``RegistryChildChannel``
/// puts it in front of Hummingbird's HTTP1-to-HTTPTypes codec.
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
    }

    let maxBodyBytes: Int
    /// Requests passed on whose answer has not been written to its end.
    private var unanswered = 0
    /// Set at the refused head: from then on every inbound part is dropped,
    /// and the refusal is written once `unanswered` reaches 0.
    private var refusal: Refusal?
    private var refusalWritten = false

    init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refusal != nil { return }
        if case .head(let head) = unwrapInboundIn(data) {
            if let refused = Self.refusal(of: head, maxBodyBytes: maxBodyBytes) {
                refusal = refused
                if unanswered == 0 { writeRefusal(context: context) }
                return
            }
            unanswered += 1
        }
        context.fireChannelRead(data)
    }

    /// After the refused head, what follows it is not parsed for anyone:
    /// a parse error in it is not passed on (it would make Hummingbird
    /// write a second answer).
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if refusal != nil, error is HTTPParserError { return }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ends: Bool
        if case .end = unwrapOutboundIn(data) { ends = true } else { ends = false }
        context.write(data, promise: promise)
        guard ends else { return }
        // Hummingbird also answers what never reached it as a request (a
        // parse error's 400), so the count does not go below zero.
        unanswered = max(0, unanswered - 1)
        if unanswered == 0, refusal != nil { writeRefusal(context: context) }
    }

    /// Writes the refusal after whatever was written before it, flushes,
    /// and closes the connection once it is sent.
    private func writeRefusal(context: ChannelHandlerContext) {
        guard let refusal, !refusalWritten else { return }
        refusalWritten = true
        let body = RegistryServer.errorBody(refusal.code, refusal.message)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Content-Length", value: String(body.count))
        let head = HTTPResponseHead(version: .http1_1, status: refusal.status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let channel = context.channel   // Sendable, unlike the context
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Why `head` is refused, or nil.
    static func refusal(of head: HTTPRequestHead, maxBodyBytes configured: Int) -> Refusal? {
        // POST /events is the one route that takes a body (an event batch).
        let path = head.uri.split(separator: "?", maxSplits: 1).first ?? ""
        let maxBodyBytes = head.method == .POST && (path == "/events" || path.hasSuffix("/events"))
            ? max(configured, RegistryServer.maxEventsBodyBytes) : configured
        if head.version.major == 1, head.version.minor >= 1 {
            let hosts = head.headers["Host"].count
            if hosts != 1 {
                return Refusal(status: .badRequest, code: "bad-host",
                               message: "an HTTP/1.1 request carries exactly one Host header (RFC 9112 §3.2); "
                                   + "this one has \(hosts == 0 ? "none" : String(hosts))")
            }
        }
        if !head.headers["Transfer-Encoding"].isEmpty, maxBodyBytes == 0 {
            return Refusal(status: .payloadTooLarge, code: "body-too-large",
                           message: "this route takes no request body (only POST /events does)")
        }
        // The decoder has already refused a malformed or contradictory Content-Length.
        if let length = head.headers["Content-Length"].compactMap({ Int($0) }).max(), length > maxBodyBytes {
            return Refusal(status: .payloadTooLarge, code: "body-too-large",
                           message: "a body of \(length) bytes; the limit is \(maxBodyBytes)")
        }
        return nil
    }
}
#endif
