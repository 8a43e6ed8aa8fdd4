// StorePatch.swift - one change to one key path, with its values before and after.

/// One mutation of a store: what was done where, and the values before and
/// after (nil where there was, or is, no value).
public struct StorePatch: Equatable, Hashable, Sendable {
    /// The kind of mutation.
    public enum Op: String, Equatable, Hashable, Sendable, Codable {
        /// A value was written (or replaced).
        case set
        /// A value was removed.
        case remove
        /// Members were merged into an object.
        case merge
    }

    /// The kind of mutation.
    public let op: Op
    /// The key path written, in canonical form (`cart.total`, `items[0]`).
    public let keyPath: String
    /// The value before; nil when there was none.
    public let oldValue: StoreValue?
    /// The value after; nil after a removal.
    public let newValue: StoreValue?

    /// A patch.
    public init(op: Op, keyPath: String, oldValue: StoreValue?, newValue: StoreValue?) {
        self.op = op
        self.keyPath = keyPath
        self.oldValue = oldValue
        self.newValue = newValue
    }
}
