// RegistryChildChannel.swift - each accepted connection's pipeline: Hummingbird's HTTP/1 channel with the request gate in front.
#if Server
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's ``HTTP1Channel`` with a ``RequestHeadGate`` between the
/// HTTP/1 decoder and the codec that turns NIOHTTP1 parts into HTTPTypes
/// ones, and its ``RequestBytesTap`` first of all, where the bytes arrive.
/// Hummingbird's own extra handlers go after that codec, where the HTTP
/// version and repeated `Host` fields are already gone, so the gate is
/// inserted here, once Hummingbird has built the pipeline.
struct RegistryChildChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let maxBodyBytes: Int
    let limits: RequestHeadGate.ReadLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let maxBodyBytes = maxBodyBytes, limits = limits
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let codec = try channel.pipeline.syncOperations.handler(type: HTTP1ToHTTPServerCodec.self)
            let gate = RequestHeadGate(maxBodyBytes: maxBodyBytes, limits: limits)
            try channel.pipeline.syncOperations.addHandler(gate, position: .before(codec))
            try channel.pipeline.syncOperations.addHandler(RequestBytesTap(gate: gate), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
#endif
