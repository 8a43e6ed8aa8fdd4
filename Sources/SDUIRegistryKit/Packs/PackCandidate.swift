// PackCandidate.swift - one token the pack planner may put in the pack.
import Foundation
import SDUI

/// One token the planner may put in the pack.
public struct PackCandidate: Sendable, Equatable {
    /// The token's id.
    public var id: String
    /// The token's version.
    public var version: Int
    /// The token's JSON document; the planner checks and minifies it.
    public var json: Data

    /// A candidate from its id, version and JSON (checked only when a pack is
    /// built).
    public init(id: String, version: Int, json: Data) {
        self.id = id
        self.version = version
        self.json = json
    }
}
