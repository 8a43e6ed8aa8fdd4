// ScreenFetchRequest.swift - one screen request, with the ETag to revalidate.
import Foundation
import SDUICore

/// One screen request: `GET /screens/{id}` (see schemas/openapi.json).
public struct ScreenFetchRequest: Sendable, Equatable {
    /// The id of the screen asked for (percent-encoded into the path).
    public var id: String
    /// When set, sent as `If-None-Match`: the ETag of the payload the
    /// client holds, so an unchanged screen comes back as a 304.
    public var ifNoneMatch: String?

    /// A request for screen `id`, revalidating `ifNoneMatch` when given.
    public init(id: String, ifNoneMatch: String? = nil) {
        self.id = id
        self.ifNoneMatch = ifNoneMatch
    }
}
