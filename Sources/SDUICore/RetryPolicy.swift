// RetryPolicy.swift - exponential backoff with jitter and a cap, sleeping on
// a clock the caller supplies (a test supplies one it moves by hand).
import Foundation

/// When to try a failed operation again, and how long to wait first.
///
/// **Delays.**  Attempts are numbered from 1.  After attempt `n` fails, the
/// base delay is `initialDelay × multiplierⁿ⁻¹`, capped at `maxDelay`:
/// with 100 ms, ×2 and a 1 s cap, the waits are 100, 200, 400, 800, 1000,
/// 1000 … ms.  Jitter then spreads the wait (``Jitter``) so that many
/// clients that failed together do not retry together.
///
/// **Attempts.**  `maxAttempts` counts every attempt, the first included:
/// with 3 there are at most two retries, and ``delay(forAttempt:random:)``
/// is nil from attempt 3 on.  nil means no limit.
///
/// **Resolution.**  Computed delays are whole nanoseconds (an `initialDelay`
/// finer than that is kept exactly for the first wait only); jittered
/// delays are drawn uniformly over whole nanoseconds.
public struct RetryPolicy: Sendable, Hashable {
    /// How a wait is spread around its base delay `d`.
    public enum Jitter: Sendable, Hashable {
        /// Exactly `d`.
        case none
        /// Uniform in `0 … d` (both ends included): the widest spread.
        case full
        /// Uniform in `d/2 … d`: at least half the base delay, still spread.
        case equal
    }

    /// The base delay after the first failed attempt.
    public let initialDelay: Duration
    /// The factor each further base delay grows by (≥ 1).
    public let multiplier: Double
    /// The largest base delay (jitter only shortens a wait, never lengthens it).
    public let maxDelay: Duration
    /// Attempts in all, the first included; nil for no limit.
    public let maxAttempts: Int?
    /// How waits are spread.
    public let jitter: Jitter

    /// A policy; its arguments are the program's constants, so a
    /// meaningless one is a precondition failure: `initialDelay` must be ≥ 0,
    /// `multiplier` finite and ≥ 1, `maxDelay` ≥ `initialDelay`, and
    /// `maxAttempts` nil or ≥ 1.
    public init(initialDelay: Duration, multiplier: Double = 2, maxDelay: Duration,
                maxAttempts: Int?, jitter: Jitter = .full) {
        precondition(initialDelay >= .zero, "RetryPolicy: initialDelay must not be negative")
        precondition(multiplier.isFinite && multiplier >= 1, "RetryPolicy: multiplier must be finite and at least 1")
        precondition(maxDelay >= initialDelay, "RetryPolicy: maxDelay must be at least initialDelay")
        precondition(maxAttempts.map { $0 >= 1 } ?? true, "RetryPolicy: maxAttempts must be at least 1")
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.maxAttempts = maxAttempts
        self.jitter = jitter
    }

    /// The wait after attempt `n` (≥ 1) fails, before jitter; nil when
    /// attempt `n` was the last one allowed.
    public func baseDelay(forAttempt n: Int) -> Duration? {
        precondition(n >= 1, "RetryPolicy: attempts are numbered from 1")
        if let maxAttempts, n >= maxAttempts { return nil }
        let factor = Foundation.pow(multiplier, Double(n - 1))
        if factor == 1 { return initialDelay }
        let scaled = Double(Self.nanoseconds(initialDelay)) * factor
        // Also true for an infinite factor: the cap.
        guard scaled < Double(Self.nanoseconds(maxDelay)) else { return maxDelay }
        return min(.nanoseconds(Int64(scaled.rounded())), maxDelay)
    }

    /// The wait after attempt `n` (≥ 1) fails, with jitter drawn from
    /// `random`; nil when attempt `n` was the last one allowed.
    public func delay(forAttempt n: Int, random: inout some RandomNumberGenerator) -> Duration? {
        guard let base = baseDelay(forAttempt: n) else { return nil }
        switch jitter {
        case .none:
            return base
        case .full:
            let top = UInt64(Self.nanoseconds(base))
            return .nanoseconds(Int64(UInt64.random(in: 0...top, using: &random)))
        case .equal:
            let top = UInt64(Self.nanoseconds(base))
            let half = top / 2
            return .nanoseconds(Int64(half + UInt64.random(in: 0...(top - half), using: &random)))
        }
    }

    /// Runs `operation` until it succeeds, sleeping on `clock` between
    /// attempts for the delays of ``delay(forAttempt:random:)`` (jitter from
    /// the system generator).  See
    /// ``run(isolation:clock:random:isRetryable:_:)``.
    public func run<T>(
        isolation: isolated (any Actor)? = #isolation,
        clock: some Clock<Duration>,
        isRetryable: (any Error) -> Bool = { _ in true },
        _ operation: () async throws -> T
    ) async throws -> T {
        var generator = SystemRandomNumberGenerator()
        return try await run(isolation: isolation, clock: clock, random: &generator,
                             isRetryable: isRetryable, operation)
    }

    /// Runs `operation` until it succeeds, sleeping on `clock` between
    /// attempts for the delays of ``delay(forAttempt:random:)``, jitter
    /// drawn from `random`.
    ///
    /// - It returns the first success.
    /// - It throws the error of the last attempt when that error is not
    ///   retryable (`isRetryable` says no, or it is a `CancellationError`),
    ///   or when no attempt is left.
    /// - It stops on cancellation: no attempt starts once the task is
    ///   cancelled (`CancellationError`, also before the first attempt); an
    ///   attempt that fails while the task is cancelled ends the run with its
    ///   error; a cancelled sleep ends it with the clock's
    ///   `CancellationError`.
    ///
    /// `operation` and `isRetryable` run in the caller's isolation.
    public func run<T>(
        isolation: isolated (any Actor)? = #isolation,
        clock: some Clock<Duration>,
        random: inout some RandomNumberGenerator,
        isRetryable: (any Error) -> Bool = { _ in true },
        _ operation: () async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            try Task.checkCancellation()
            do {
                return try await operation()
            } catch {
                if error is CancellationError || Task.isCancelled { throw error }
                guard isRetryable(error), let wait = delay(forAttempt: attempt, random: &random) else { throw error }
                try await clock.sleep(for: wait)
                attempt += 1
            }
        }
    }

    /// `d` in whole nanoseconds, rounded down; saturates at `Int64.max`
    /// (about 292 years).  `d` is not negative.
    static func nanoseconds(_ d: Duration) -> Int64 {
        let (seconds, attoseconds) = d.components
        assert(seconds >= 0 && attoseconds >= 0)
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflow2) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? .max : sum
    }
}
