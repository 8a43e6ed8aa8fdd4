// BackendAdapter.swift - how a backend scope talks to its server: pull the
// namespace's values, push queued patches; conflicts resolve last-writer-wins.
import Foundation

/// One queued change of a backend scope, as pushed.
public struct BackendPatch: Codable, Equatable, Hashable, Sendable {
    /// The patch's id: a server that sees it twice applies it once.
    public var id: UUID
    /// What was done.
    public var op: StorePatch.Op
    /// Where, in canonical key path form.
    public var keyPath: String
    /// The value written (nil for a removal).
    public var value: StoreValue?
    /// When the change was made, in milliseconds since 1970 (last writer wins).
    public var timestamp: Int64

    /// A patch.
    public init(id: UUID = UUID(), op: StorePatch.Op, keyPath: String, value: StoreValue?, timestamp: Int64) {
        self.id = id
        self.op = op
        self.keyPath = keyPath
        self.value = value
        self.timestamp = timestamp
    }
}

/// A namespace's values on the server, with when each key path was last written.
public struct BackendSnapshot: Equatable, Sendable {
    /// The top-level values.
    public var values: [String: StoreValue]
    /// When each written key path was last written, in ms since 1970.
    public var updatedAt: [String: Int64]

    /// A snapshot.
    public init(values: [String: StoreValue], updatedAt: [String: Int64] = [:]) {
        self.values = values
        self.updatedAt = updatedAt
    }
}

/// A pushed patch that lost: the server holds a later write of its key path.
public struct BackendConflict: Equatable, Sendable {
    /// The patch that lost (it is dropped from the queue).
    public var patch: BackendPatch
    /// The value the server keeps (nil: removed), now also the local value.
    public var serverValue: StoreValue?
    /// When the server's value was written, in ms since 1970.
    public var serverTimestamp: Int64

    /// A conflict.
    public init(patch: BackendPatch, serverValue: StoreValue?, serverTimestamp: Int64) {
        self.patch = patch
        self.serverValue = serverValue
        self.serverTimestamp = serverTimestamp
    }
}

/// What the server did with a push.
public struct BackendPushResult: Equatable, Sendable {
    /// The ids of the patches it applied (or had applied before).
    public var accepted: [UUID]
    /// The patches that lost to a later write.
    public var conflicts: [BackendConflict]

    /// A result.
    public init(accepted: [UUID], conflicts: [BackendConflict] = []) {
        self.accepted = accepted
        self.conflicts = conflicts
    }
}

/// The remote side of backend scopes.  ``HTTPBackendAdapter`` speaks HTTP;
/// tests and apps may provide their own.
///
/// Rules a server keeps: a patch applies when its timestamp is not older
/// than the last write of its key path (and of any path it intersects);
/// otherwise it is a conflict and the server's value stands.  A patch id
/// seen before is accepted again without applying it twice.
public protocol BackendAdapter: Sendable {
    /// The values of `namespace` (and `scenarioID`, when scoped to one).
    /// Throws (any error) when the server cannot be reached.
    func pull(namespace: String, scenarioID: String?) async throws -> BackendSnapshot
    /// Applies `patches` in order.  Throws when the server cannot be
    /// reached; the patches then stay queued.
    func push(namespace: String, scenarioID: String?, patches: [BackendPatch]) async throws -> BackendPushResult
}

/// What one ``ScenarioStore/syncBackend()`` did.
public struct BackendSyncReport: Equatable, Sendable {
    /// Patches the server accepted.
    public var pushed: Int
    /// Patches that lost to later writes (the local value now is the server's).
    public var conflicts: [BackendConflict]
    /// Top-level keys the pull changed locally.
    public var pulledKeys: [String]
    /// Patches still queued (made while the sync ran).
    public var queued: Int
}
