// TokenFetchRequest.swift - one batched token request.
import Foundation
import SDUICore

/// One batched fetch: `GET /design-tokens?ids=a,b,c&v=…` (see schemas/openapi.json).
public struct TokenFetchRequest: Sendable, Equatable {
    /// 1 to 50 ids, in the order the answer should list them.
    public var ids: [String]
    /// When set, sent as `If-None-Match`: the batch ETag of tokens the
    /// client already holds (see ``ETag/batch(_:)``), for revalidation.
    public var ifNoneMatch: String?

    /// A request for `ids`, revalidating `ifNoneMatch` when given.
    public init(ids: [String], ifNoneMatch: String? = nil) {
        self.ids = ids
        self.ifNoneMatch = ifNoneMatch
    }
}
