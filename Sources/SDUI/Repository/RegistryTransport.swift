// TokenTransport.swift - how the repository fetches tokens from the registry.
import Foundation
import SDUICore

/// One batched fetch: `GET /design-tokens?ids=a,b,c&v=…` (seed 000 §5.2).
public struct TokenFetchRequest: Sendable, Equatable {
    /// 1 to 50 ids, in the order the answer should list them.
    public var ids: [String]
    /// When set, sent as `If-None-Match`: the batch ETag of tokens the
    /// client already holds (see ``ETag/batch(_:)``), for revalidation.
    public var ifNoneMatch: String?

    public init(ids: [String], ifNoneMatch: String? = nil) {
        self.ids = ids
        self.ifNoneMatch = ifNoneMatch
    }
}

/// What the registry answered.
public enum TokenFetchResponse: Sendable, Equatable {
    /// 200: one element per token found.  Each is either a token JSON
    /// object or, when the registry signs, a compact JWS whose payload is the
    /// token JSON.  `maxAge` comes from `Cache-Control: max-age`.
    /// `refused` holds an error for each element that could not be kept
    /// (nested too deep, say): it fails alone, its neighbours are kept.
    case tokens([Data], maxAge: TimeInterval?, refused: [SDUIError] = [])
    /// 304: what the client holds is current; `maxAge` renews its TTL.
    case notModified(maxAge: TimeInterval?)
}

/// What `GET /screens/{id}` answered (seed 000 §5.1).
public enum ScreenFetchResponse: Sendable, Equatable {
    case screen(ScreenPayload)
    /// 409 Incompatible-Primitives: the client's primitives cannot render
    /// the screen; show `fallbackScreenId` instead when there is one.
    case incompatible(fallbackScreenId: String?, message: String)
}

/// Fetches token batches and screens.  ``HTTPTokenTransport`` talks to a registry over
/// HTTP; tests and apps may supply their own.
///
/// Errors: an ``SDUIError`` of category `.network` means the registry could
/// not be reached (the repository treats it as offline); any other failure
/// (`.http` for a bad status, `.json` for a bad body, …) means it answered
/// but not usefully.
public protocol TokenTransport: Sendable {
    func fetch(_ request: TokenFetchRequest) async throws -> TokenFetchResponse
    /// `GET /screens/{id}`, sending the client's `X-Primitives` (seed C-4).
    func fetchScreen(_ id: String) async throws -> ScreenFetchResponse
}
