// StoreChange.swift - what one mutation or one transaction did to a store.
import Foundation
import SDUICore

/// Everything one mutation, or one transaction, did to a store: its
/// patches in the order they were applied (live expressions' writes
/// included).  Observers receive a change after it is complete, never in
/// the middle of a transaction.
public struct StoreChange: Equatable, Hashable, Sendable {
    /// The scenario of the store (its scope's scenario id, or "" for a
    /// store not tied to a scenario).
    public let scenarioID: String
    /// The patches, in order.
    public let patches: [StorePatch]
    /// The transaction's id; nil for a single mutation outside one.
    public let transactionID: UUID?

    /// A change.
    public init(scenarioID: String, patches: [StorePatch], transactionID: UUID?) {
        self.scenarioID = scenarioID
        self.patches = patches
        self.transactionID = transactionID
    }

    /// The patches' key paths, parsed, each once, in order: what a render
    /// hands to `ScreenResolver.update(_:changed:)`.
    public var keyPaths: [KeyPath] {
        var seen = Set<KeyPath>()
        return patches.compactMap { p in
            guard let k = try? KeyPath(p.keyPath), seen.insert(k).inserted else { return nil }
            return k
        }
    }
}
