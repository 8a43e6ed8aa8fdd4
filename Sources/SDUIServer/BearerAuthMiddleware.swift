// BearerAuthMiddleware.swift - bearer-token auth on the API routes.
#if Server
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Requires a valid bearer token: 401 with
/// `WWW-Authenticate: Bearer error="invalid_token"` otherwise.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let verifier: AccessTokenVerifier

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        switch verifier.check(authorization: request.headers[.authorization]) {
        case .success:
            return try await next(request, context)
        case .failure(let f):
            var r = RegistryServer.error(.unauthorized, "unauthorized", f.reason)
            let description = f.reason.replacingOccurrences(of: "\"", with: "'")
            r.headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\", error_description=\"\(description)\""
            return r
        }
    }
}
#endif
