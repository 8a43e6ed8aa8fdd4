// StoredToken.swift - one published version of a token, as a registry stores it.
import Foundation

/// One published version of a token: a row of
/// `design_tokens(id, version, json, primitive_version)`.
public struct StoredToken: Sendable, Equatable {
    /// The token's id.
    public var id: String
    /// The token's version; a published (id, version) never changes.
    public var version: Int
    /// The token's exact JSON text, as served and hashed for its ETag.
    public var json: Data
    /// The root's primitive version.  Nested nodes have their own;
    /// the server checks the whole tree.
    public var primitiveVersion: Int
    /// Publication order across the registry (assigned by the store).
    public var seq: Int64

    /// A token record.  Leave `seq` at 0 when publishing: the store assigns
    /// it.
    public init(id: String, version: Int, json: Data, primitiveVersion: Int, seq: Int64 = 0) {
        self.id = id
        self.version = version
        self.json = json
        self.primitiveVersion = primitiveVersion
        self.seq = seq
    }
}
