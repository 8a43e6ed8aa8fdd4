// RefuseBodiesHandler.swift - closes connections that send a request body to a body-less API.
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The registry's API reads no request bodies.  A request whose head
/// announces one (`Content-Length` above the limit, or any
/// `Transfer-Encoding`) is answered 413 here, in the channel pipeline, and
/// the connection is closed: otherwise the server would keep reading the
/// body to find the next request, and a slow endless chunked body could
/// hold a connection (and reset its idle timer) forever.
/// (Removable: Hummingbird takes extra handlers of that kind.)
final class RefuseBodiesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    let maxBodyBytes: Int
    /// Set once a request was refused: everything after it is dropped.
    private var refused = false

    init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        if case .head(let head) = unwrapInboundIn(data), let why = refusal(head) {
            refused = true
            let body = RegistryServer.errorBody("body-too-large", why)
            var response = HTTPResponse(status: .contentTooLarge)
            response.headerFields[.contentType] = "application/json; charset=utf-8"
            response.headerFields[.cacheControl] = "no-store"
            response.headerFields[.connection] = "close"
            response.headerFields[.contentLength] = String(body.count)
            context.write(wrapOutboundOut(.head(response)), promise: nil)
            context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
            let channel = context.channel   // Sendable, unlike the context
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }

    /// Why `head` is refused, or nil.
    private func refusal(_ head: HTTPRequest) -> String? {
        if head.headerFields[.transferEncoding] != nil, maxBodyBytes == 0 { return "this API takes no request body" }
        if let length = head.headerFields[.contentLength].flatMap({ Int($0) }), length > maxBodyBytes {
            return "a body of \(length) bytes; the limit is \(maxBodyBytes)"
        }
        return nil
    }
}
