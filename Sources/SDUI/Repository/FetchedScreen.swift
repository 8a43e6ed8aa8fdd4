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

    /// The experiments the registry drew it with (`X-SDUI-Experiments`,
    /// sent when the request carried the user's attributes); empty otherwise.
    public var experiments: [ServedVariation]

    /// A fetched screen from its decoded payload, exact body and `ETag`, and
    /// the experiments it was drawn with.
    public init(payload: ScreenPayload, json: Data, etag: String?, experiments: [ServedVariation] = []) {
        self.payload = payload
        self.json = json
        self.etag = etag
        self.experiments = experiments
    }
}
