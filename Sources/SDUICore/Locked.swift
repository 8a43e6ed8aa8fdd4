// Locked.swift - a value behind a lock, for state that threads share.
import Foundation

/// A value that every access reads or changes under one lock.
///
/// The lock is an `NSLock` (the package runs on macOS 13 and iOS 16, below
/// the `Synchronization` module's `Mutex`); `withLock` holds it for exactly
/// the call of `body`, which must not call `withLock` on the same object
/// again (the lock is not recursive).
package final class Locked<Value> {
    // Only touched inside withLock.
    private var value: Value
    private let lock = NSLock()

    /// A box holding `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` on the value with the lock held, and returns its result.
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// `@unchecked Sendable`: the value is only reached through `withLock`, so
/// accesses from different threads are serialized by the lock.
extension Locked: @unchecked Sendable where Value: Sendable {}
