// AccessTokenVerifier.swift - checks the bearer access tokens of API requests.
#if Server
import Foundation
import SDUI

/// Checks `Authorization: Bearer <jwt>` headers.
public struct AccessTokenVerifier: Sendable {
    /// Checks the tokens' signatures.
    public let verifier: TokenVerifier
    /// Clock skew allowed on `iat`, `nbf` and `exp`, in seconds.
    public var leeway: TimeInterval = 30
    /// The clock the time claims are checked against (default: the system
    /// clock); tests set their own.
    public var now: @Sendable () -> Date = { Date() }

    /// A verifier checking signatures with `verifier`, with 30 s of leeway and
    /// the system clock.
    public init(verifier: TokenVerifier) { self.verifier = verifier }

    /// Why a request was refused (the `error_description` of the 401).
    public struct Failure: Error, Sendable, Equatable {
        /// Why, in words: `missing bearer token`, `token expired`, `bad token
        /// signature`…
        public var reason: String
    }

    /// The subject of a valid token, or the reason it is not.
    public func check(authorization: String?) -> Result<String, Failure> {
        guard let authorization else { return .failure(Failure(reason: "missing bearer token")) }
        // credentials = auth-scheme [ 1*SP token68 ] (RFC 9110 §11.4): the
        // scheme is case-insensitive, and any number of spaces may follow it.
        guard let space = authorization.firstIndex(of: " ") else {
            return .failure(Failure(reason: "expected Authorization: Bearer <token>"))
        }
        let scheme = authorization[..<space]
        let token = authorization[space...].drop { $0 == " " }
        guard scheme.lowercased() == "bearer", !token.isEmpty, !token.contains(" ") else {
            return .failure(Failure(reason: "expected Authorization: Bearer <token>"))
        }
        let payload: Data
        do {
            payload = try verifier.verify(compact: String(token), source: "Authorization")
        } catch {
            return .failure(Failure(reason: "bad token signature"))
        }
        guard let claims = try? JSONDecoder().decode([String: JSONValue].self, from: payload) else {
            return .failure(Failure(reason: "token claims are not a JSON object"))
        }
        let t = now().timeIntervalSince1970
        guard let exp = claims["exp"]?.doubleValue else { return .failure(Failure(reason: "token has no exp")) }
        guard exp > t - leeway else { return .failure(Failure(reason: "token expired")) }
        let iat = claims["iat"]?.doubleValue ?? t
        guard iat <= t + leeway else { return .failure(Failure(reason: "token issued in the future")) }
        if let nbf = claims["nbf"]?.doubleValue, nbf > t + leeway {
            return .failure(Failure(reason: "token not valid yet"))
        }
        guard exp - iat <= AccessTokenIssuer.maxLifetime, exp - t <= AccessTokenIssuer.maxLifetime + leeway else {
            return .failure(Failure(reason: "token lives longer than one hour"))
        }
        return .success(claims["sub"]?.stringValue ?? "")
    }
}
#endif
