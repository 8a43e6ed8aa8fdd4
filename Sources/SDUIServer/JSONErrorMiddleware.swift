// JSONErrorMiddleware.swift - every error answer is JSON, also the router's own.
#if Server
import Foundation
import HTTPTypes
import Hummingbird

/// Turns an error thrown below it (the router's 404 for an unknown path, a
/// handler's `HTTPError`) into the registry's JSON error answer,
/// `{"error": code, "message": …}` with `Cache-Control: no-store`, as the
/// OpenAPI document says every error is.  Other errors become a 500 with
/// the same shape and no detail (the log has it).
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Runs the rest of the chain; a thrown error becomes its JSON answer.
    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let e as HTTPError {
            let code = e.status == .notFound ? "not-found" : e.status.code < 500 ? "bad-request" : "internal"
            let message = e.body ?? (e.status == .notFound ? "no such resource: \(EchoedInput.quoted(request.uri.path))"
                                                           : e.status.reasonPhrase)
            return RegistryServer.error(e.status, code, message)
        } catch let e as HTTPResponseError {
            return RegistryServer.error(e.status, e.status.code < 500 ? "bad-request" : "internal", e.status.reasonPhrase)
        }
    }
}
#endif
