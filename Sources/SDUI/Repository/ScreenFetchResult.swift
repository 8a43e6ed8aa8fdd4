// ScreenFetchResult.swift - what the registry answered to a screen request.
import Foundation
import SDUICore

/// What `GET /screens/{id}` answered (see schemas/openapi.json).
public enum ScreenFetchResult: Sendable, Equatable {
    /// 200: the payload.
    case fetched(FetchedScreen)
    /// 304: the payload whose ETag was sent is current.
    case notModified
    /// 409 Incompatible-Primitives: the client's primitives cannot render
    /// the screen; show `fallbackScreenId` instead when there is one.
    case incompatible(fallbackScreenId: String?, message: String)
}
