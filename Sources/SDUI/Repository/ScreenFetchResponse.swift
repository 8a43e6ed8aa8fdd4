// ScreenFetchResponse.swift - a screen answer without revalidation (the shape of fetchScreen(_ id:)).
import Foundation
import SDUICore

/// What `GET /screens/{id}` answered, without revalidation: the shape of
/// ``RegistryTransport/fetchScreen(_:)-(String)``.
public enum ScreenFetchResponse: Sendable, Equatable {
    case screen(ScreenPayload)
    /// 409 Incompatible-Primitives: the client's primitives cannot render
    /// the screen; show `fallbackScreenId` instead when there is one.
    case incompatible(fallbackScreenId: String?, message: String)
}
