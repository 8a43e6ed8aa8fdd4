// ScreenStateMachine.swift - holds one screen's state and refuses any
// transition the diagram does not have.
import Foundation
import SDUICore

/// One screen's ``ScreenState``, moved only along the diagram's transitions.
///
/// ```swift
/// let machine = ScreenStateMachine()
/// try machine.apply(.initiate)           // START → FETCH
/// try machine.apply(.success)            // throws: success is not allowed from FETCH
/// for await state in machine.states { … }
/// ```
///
/// Thread-safe: the state is guarded by a lock (hence `@unchecked
/// Sendable`), so transitions from many tasks are applied one at a time,
/// each checked against the state it finds.
public final class ScreenStateMachine: @unchecked Sendable {
    private let lock = NSLock()
    private var current: ScreenState = .start
    private var log: [ScreenTransition] = []
    private let broadcast = Broadcast<Int, ScreenState>()

    /// A machine in START.
    public init() {}

    deinit { broadcast.finish() }

    /// The state now.
    public var state: ScreenState {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Every transition applied so far, in order.
    public var history: [ScreenTransition] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    /// Applies `transition` and returns the new state.
    ///
    /// - Throws: `SDUIError` `.argument` naming the transition, the state it
    ///   was tried from and the transitions that state allows; the state is
    ///   unchanged.
    @discardableResult
    public func apply(_ transition: ScreenTransition) throws -> ScreenState {
        lock.lock()
        let from = current
        guard transition.edge.from == from else {
            lock.unlock()
            let allowed = ScreenTransition.allowed(from: from).map { "\"\($0)\"" }.joined(separator: ", ")
            throw SDUIError(.argument, "transition \"\(transition)\" is not allowed from \(from) "
                + "(it leads from \(transition.edge.from) to \(transition.edge.to); \(from) allows \(allowed))",
                input: "screen state machine")
        }
        current = transition.edge.to
        log.append(transition)
        // Published under the lock, so observers see states in the order applied.
        broadcast.publish(current, to: 0)
        lock.unlock()
        return transition.edge.to
    }

    /// The states entered from now on, as they are entered; the current
    /// state first.  Ends when the consumer cancels or the machine is released.
    public var states: AsyncStream<ScreenState> {
        lock.lock()
        let sub = broadcast.subscribe(0)
        let first = current
        lock.unlock()
        return AsyncStream { continuation in
            continuation.yield(first)
            let task = Task {
                for await s in sub { continuation.yield(s) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
