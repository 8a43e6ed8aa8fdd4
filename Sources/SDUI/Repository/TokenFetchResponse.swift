// TokenFetchResponse.swift - what the registry answered to a token request.
import Foundation
import SDUICore

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
