// Store.swift - an app's stores, one per scope.

/// An app's scenario data: one ``KeyValueStore`` per ``Scope``.
public protocol Store: AnyObject, Sendable {
    /// The app the data belongs to (a bundle id, say).
    var appID: String { get }
    /// The store of `scope`; the same instance each time for the same scope.
    func named(_ scope: Scope) -> KeyValueStore
}
