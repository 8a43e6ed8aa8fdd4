// HeaderLimitMiddleware.swift - 431 for requests whose header fields are too large.
#if Server
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Refuses a request whose request line and header fields add up to more
/// than `maxHeaderBytes` (431) before any work.  Bodies are refused earlier,
/// in the channel pipeline (``RequestHeadGate``).
struct HeaderLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxHeaderBytes: Int

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        var bytes = request.uri.description.utf8.count
        for field in request.headers { bytes += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        if bytes > maxHeaderBytes {
            return RegistryServer.error(.init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                                        "headers-too-large", "request line and headers are \(bytes) bytes; "
                                        + "the limit is \(maxHeaderBytes)")
        }
        return try await next(request, context)
    }
}
#endif
