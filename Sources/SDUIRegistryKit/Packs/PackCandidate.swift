// PackCandidate.swift - one token the pack planner may put in the pack.
import Foundation
import SDUI

/// One token the planner may put in the pack.
public struct PackCandidate: Sendable, Equatable {
    public var id: String
    public var version: Int
    public var json: Data

    public init(id: String, version: Int, json: Data) {
        self.id = id
        self.version = version
        self.json = json
    }
}
