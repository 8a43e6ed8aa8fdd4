// FetchedScreen.swift - a screen payload as it arrived: decoded, exact bytes, ETag.
import Foundation
import SDUICore

/// A screen payload as it arrived: decoded, with its exact bytes and ETag
/// (what a screen cache keeps).
public struct FetchedScreen: Sendable, Equatable {
    /// The decoded payload.
    public var payload: ScreenPayload
    /// The body as the registry sent it.
    public var json: Data
    /// The `ETag` header, quotes included; nil when the registry sent none.
    public var etag: String?

    /// A fetched screen from its decoded payload, exact body and `ETag`.
    public init(payload: ScreenPayload, json: Data, etag: String?) {
        self.payload = payload
        self.json = json
        self.etag = etag
    }
}
