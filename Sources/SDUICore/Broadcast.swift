// Broadcast.swift - keyed observation as an AsyncSequence: values published
// to a key reach every subscription of that key, with registration ordered
// before delivery and no observer left behind.
import Foundation

/// Delivers values published under a key to every current subscription of
/// that key.
///
/// ```swift
/// let changes = Broadcast<String, DesignToken>()
/// for await token in changes.subscribe("button.primary") { … }
/// // elsewhere:
/// changes.publish(token, to: "button.primary")
/// ```
///
/// **Ordering.**  ``subscribe(_:)`` registers the subscription before it
/// returns, so a value published after it returns is delivered (subject to
/// the buffering policy), even if iteration has not started yet.  Every
/// publish takes the same lock and hands the value to each subscriber under
/// it, so publishes are totally ordered: all subscribers of a key see that
/// key's values in one order, the order the publishes took the lock.
///
/// **No dead observers.**  A subscription leaves the table, under the same
/// lock and synchronously, as soon as any of these happens: the task
/// iterating it is cancelled (also when it was cancelled before it began
/// iterating), its iteration ends, or the subscription and its iterator are
/// released without being iterated (or without being iterated to the end).
/// ``subscriberCount(for:)`` therefore counts only live subscriptions.
///
/// **Buffering.**  Each subscription has its own buffer for values published
/// but not yet consumed, bounded by ``Buffering`` (default: unbounded, so a
/// slow consumer never loses a value but holds every value it has not read).
/// A publish never waits for a consumer.
///
/// **Finishing.**  ``finish()`` ends every subscription (each delivers what
/// it has buffered, then its iteration ends) and makes the broadcast inert:
/// later subscriptions end at once and later publishes are dropped.
/// Releasing the broadcast finishes it too.
///
/// Thread-safe: every method may be called from any task or thread.
public final class Broadcast<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// How many published values each subscription keeps while its consumer
    /// has not read them.
    public enum Buffering: Sendable, Hashable {
        /// Keep every value.
        case unbounded
        /// Keep at most this many (≥ 1), dropping the oldest to make room.
        case newest(Int)
        /// Keep at most this many (≥ 1), dropping new values while full.
        case oldest(Int)
    }

    /// The policy every subscription of this broadcast uses.
    public let buffering: Buffering
    private let table: Table

    /// - Parameter buffering: the per-subscription buffer; a bound must be
    ///   at least 1.
    public init(buffering: Buffering = .unbounded) {
        switch buffering {
        case .unbounded: break
        case .newest(let n), .oldest(let n): precondition(n >= 1, "Broadcast buffering bound must be at least 1")
        }
        self.buffering = buffering
        self.table = Table()
    }

    deinit {
        finish()
    }

    /// A new subscription to the values published to `key` from now on.
    ///
    /// It is registered before this returns.  Iterate it once, from one
    /// task (a second iterator is a programming error).  Its iteration ends
    /// when the consuming task is cancelled, after ``finish()``, or never
    /// otherwise; dropping it unregisters it.
    public func subscribe(_ key: Key) -> Subscription {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: streamPolicy)
        let registered = table.add(continuation, for: key)
        guard let id = registered else {
            // Finished: the subscription ends at once.
            continuation.finish()
            return Subscription(stream: stream, registration: Registration(table: table, key: key, id: nil))
        }
        let registration = Registration(table: table, key: key, id: id)
        // Cancellation of the consumer, and the end of the stream, unregister
        // it synchronously.  `finish()` removes entries before finishing
        // them, so this never runs with the table's lock held.
        continuation.onTermination = { [weak table] _ in
            table?.remove(key: key, id: id)
        }
        return Subscription(stream: stream, registration: registration)
    }

    /// Hands `value` to every current subscription of `key`; returns how
    /// many there were.  Never waits.  After ``finish()`` it does nothing
    /// and returns 0.
    @discardableResult
    public func publish(_ value: Value, to key: Key) -> Int {
        table.publish(value, to: key)
    }

    /// Ends every subscription and refuses new ones (they end at once).
    /// Calling it again does nothing.
    public func finish() {
        for continuation in table.finish() { continuation.finish() }
    }

    /// The number of live subscriptions of `key`.
    public func subscriberCount(for key: Key) -> Int {
        table.count(for: key)
    }

    /// Whether ``finish()`` has been called.
    public var isFinished: Bool { table.isFinished }

    private var streamPolicy: AsyncStream<Value>.Continuation.BufferingPolicy {
        switch buffering {
        case .unbounded: return .unbounded
        case .newest(let n): return .bufferingNewest(n)
        case .oldest(let n): return .bufferingOldest(n)
        }
    }
}

extension Broadcast {
    /// The values published to one key after the subscription was made, as
    /// an AsyncSequence.  See ``Broadcast`` for when iteration ends.
    public struct Subscription: AsyncSequence, Sendable {
        /// The values published to the subscription's key.
        public typealias Element = Value
        /// Iteration never throws; it ends with nil.
        public typealias Failure = Never
        /// The key this subscription receives.
        public var key: Key { registration.key }

        let stream: AsyncStream<Value>
        let registration: Registration

        /// The iterator of the values; it keeps the subscription registered
        /// while it exists.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Value>.Iterator
            let registration: Registration

            /// Iteration never throws; it ends with nil.
            public typealias Failure = Never

            /// The next value, or nil when the subscription has ended.
            public mutating func next() async -> Value? {
                await base.next()
            }
        }

        /// The iterator (make one per subscription).
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), registration: registration)
        }
    }

    /// Keeps one subscription in the table while the subscription or its
    /// iterator exists; releasing the last of them unregisters it.
    final class Registration: Sendable {
        let table: Table
        let key: Key
        /// nil when the broadcast had finished at `subscribe`.
        let id: UInt64?

        init(table: Table, key: Key, id: UInt64?) {
            self.table = table
            self.key = key
            self.id = id
        }

        deinit {
            // Releasing the stream also ends it today (and its onTermination
            // unregisters it), but that is the standard library's inner
            // workings; removing the entry here does not depend on them.
            if let id, let continuation = table.remove(key: key, id: id) { continuation.finish() }
        }
    }

    /// The subscriptions by key, behind one lock.
    ///
    /// `@unchecked Sendable`: `state` is read and changed only under `lock`.
    /// Continuations are yielded to under the lock (yielding runs no
    /// consumer code) but finished only outside it, because finishing runs
    /// `onTermination`, which takes the lock.
    final class Table: @unchecked Sendable {
        private let lock = NSLock()
        private var subscribers: [Key: [UInt64: AsyncStream<Value>.Continuation]] = [:]
        private var nextID: UInt64 = 0
        private var finished = false

        /// Registers `continuation` under `key`; nil when finished.
        func add(_ continuation: AsyncStream<Value>.Continuation, for key: Key) -> UInt64? {
            lock.withLock {
                guard !finished else { return nil }
                nextID += 1
                subscribers[key, default: [:]][nextID] = continuation
                return nextID
            }
        }

        /// Unregisters subscription `id` of `key`; returns its continuation
        /// if it was still registered (the caller may finish it, outside the
        /// lock).
        @discardableResult
        func remove(key: Key, id: UInt64) -> AsyncStream<Value>.Continuation? {
            lock.withLock {
                guard let continuation = subscribers[key]?.removeValue(forKey: id) else { return nil }
                if subscribers[key]?.isEmpty == true { subscribers[key] = nil }
                return continuation
            }
        }

        /// Yields `value` to every subscription of `key`.
        func publish(_ value: Value, to key: Key) -> Int {
            lock.withLock {
                guard let entries = subscribers[key] else { return 0 }
                for continuation in entries.values { continuation.yield(value) }
                return entries.count
            }
        }

        /// Marks the table finished, empties it and returns what it held.
        func finish() -> [AsyncStream<Value>.Continuation] {
            lock.withLock {
                finished = true
                let all = subscribers.values.flatMap(\.values)
                subscribers = [:]
                return all
            }
        }

        func count(for key: Key) -> Int {
            lock.withLock { subscribers[key]?.count ?? 0 }
        }

        var isFinished: Bool {
            lock.withLock { finished }
        }
    }
}
