// RegistryTransport.swift - how the client fetches tokens and screens from the registry.
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

/// One screen request: `GET /screens/{id}` (seed 000 §5.1).
public struct ScreenFetchRequest: Sendable, Equatable {
    public var id: String
    /// When set, sent as `If-None-Match`: the ETag of the payload the
    /// client holds, so an unchanged screen comes back as a 304.
    public var ifNoneMatch: String?

    public init(id: String, ifNoneMatch: String? = nil) {
        self.id = id
        self.ifNoneMatch = ifNoneMatch
    }
}

/// A screen payload as it arrived: decoded, with its exact bytes and ETag
/// (what a screen cache keeps).
public struct FetchedScreen: Sendable, Equatable {
    public var payload: ScreenPayload
    /// The body as the registry sent it.
    public var json: Data
    /// The `ETag` header, quotes included; nil when the registry sent none.
    public var etag: String?

    public init(payload: ScreenPayload, json: Data, etag: String?) {
        self.payload = payload
        self.json = json
        self.etag = etag
    }
}

/// What `GET /screens/{id}` answered (seed 000 §5.1).
public enum ScreenFetchResult: Sendable, Equatable {
    /// 200: the payload.
    case fetched(FetchedScreen)
    /// 304: the payload whose ETag was sent is current.
    case notModified
    /// 409 Incompatible-Primitives: the client's primitives cannot render
    /// the screen; show `fallbackScreenId` instead when there is one.
    case incompatible(fallbackScreenId: String?, message: String)
}

/// What `GET /screens/{id}` answered, without revalidation: the shape of
/// ``RegistryTransport/fetchScreen(_:)-(String)``.
public enum ScreenFetchResponse: Sendable, Equatable {
    case screen(ScreenPayload)
    /// 409 Incompatible-Primitives: the client's primitives cannot render
    /// the screen; show `fallbackScreenId` instead when there is one.
    case incompatible(fallbackScreenId: String?, message: String)
}

/// Fetches token batches and screens.  ``HTTPRegistryTransport`` talks to a registry over
/// HTTP; tests and apps may supply their own.
///
/// Errors: an ``SDUIError`` of category `.network` means the registry could
/// not be reached (the repository treats it as offline); any other failure
/// (`.http` for a bad status, `.json` for a bad body, …) means it answered
/// but not usefully.
public protocol RegistryTransport: Sendable {
    func fetch(_ request: TokenFetchRequest) async throws -> TokenFetchResponse
    /// `GET /screens/{id}`, sending the client's `X-Primitives` (seed C-4)
    /// and `If-None-Match` when the request has an ETag.
    func fetchScreen(_ request: ScreenFetchRequest) async throws -> ScreenFetchResult
}

extension RegistryTransport {
    /// `GET /screens/{id}` without revalidation.
    public func fetchScreen(_ id: String) async throws -> ScreenFetchResponse {
        switch try await fetchScreen(ScreenFetchRequest(id: id)) {
        case .fetched(let f): return .screen(f.payload)
        case .incompatible(let fallback, let message): return .incompatible(fallbackScreenId: fallback, message: message)
        case .notModified:
            throw SDUIError(.http, "HTTP 304 for a screen the client did not ask to revalidate", input: id)
        }
    }
}

/// The protocol's name before it also fetched screens.
@available(*, deprecated, renamed: "RegistryTransport")
public typealias TokenTransport = RegistryTransport
