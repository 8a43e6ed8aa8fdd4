// StoreInspector.swift - the store's debugging inspector, in debug builds only.
#if DEBUG
import SDUICore

/// A look inside one store while developing: its values by key path, who
/// observes what, the latest patches, the live expressions, and writes by
/// hand (to watch a screen follow).  Compiled into debug builds only; a
/// release build has no inspector.
///
/// Thread-safe: every read is one call on the store, under its lock.
public struct StoreInspector: Sendable {
    /// The store inspected.
    public let store: ScenarioStore

    /// An inspector of `store`.
    public init(_ store: ScenarioStore) { self.store = store }

    /// Every leaf value with its key path, in key order.
    public var values: [(keyPath: String, value: StoreValue)] {
        StoreValue.leaves(of: store.snapshot()).map { ($0.keyPath.description, $0.value) }
    }

    /// What each active observer watches (`values(cart.total)`,
    /// `changes(cart, user)`), in the order they subscribed.
    public var subscriptions: [String] { store.activeSubscriptions }

    /// The most recent patches, oldest first (at most
    /// ``ScenarioStore/patchLogCapacity``).
    public var recentPatches: [StorePatch] { store.recentPatches }

    /// The live expressions' ids, in the order they run.
    public var liveExpressions: [String] { store.liveExpressionIDs }

    /// A manual write, validated and published like any other.
    @discardableResult
    public func write(_ keyPath: String, _ value: StoreValue) -> ValidationResult {
        store.set(keyPath, value)
    }
}
#endif
