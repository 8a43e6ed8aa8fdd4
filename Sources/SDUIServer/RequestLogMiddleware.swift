// RequestLogMiddleware.swift - one structured log line per request.
#if Server
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Logs one line per request at `level`: method, target and the
/// `headers` asked for.  The target and header values are the client's
/// bytes, so they are logged through ``EchoedInput``: control characters
/// as `\u001b`, each value cut after ``maxBytes``.
/// Authorization is never among the headers.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let level: Logger.Level
    let headers: [HTTPField.Name]
    static var maxBytes: Int { 1024 }

    init(_ level: Logger.Level, headers: [HTTPField.Name]) {
        precondition(!headers.contains(.authorization))
        self.level = level
        self.headers = headers
    }

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        context.logger.log(level: level, "Request", metadata: metadata(request))
        return try await next(request, context)
    }

    /// The log line's fields: `hb.request.method`, `hb.request.path` and
    /// `hb.request.headers`, as Hummingbird's own request log names them;
    /// header values quoted, as `[X-Primitives: "Text@4"]`.
    func metadata(_ request: Request) -> Logger.Metadata {
        let fields = headers.compactMap { name -> String? in
            let values = request.headers[values: name]
            guard !values.isEmpty else { return nil }
            return "\(name.rawName): " + EchoedInput.quoted(values.joined(separator: ", "), maxBytes: Self.maxBytes)
        }
        return ["hb.request.method": .string(request.method.rawValue),
                "hb.request.path": .string(EchoedInput.visible(request.uri.description, maxBytes: Self.maxBytes)),
                "hb.request.headers": .string("[" + fields.joined(separator: ", ") + "]")]
    }
}
#endif
