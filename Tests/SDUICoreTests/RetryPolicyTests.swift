// RetryPolicyTests.swift - RetryPolicy: exact backoff without jitter, jitter
// bounds over 10,000 seeded draws, and `run` on a clock the test moves by
// hand (retries, sleeps, non-retryable errors, cancellation).
import Foundation
import SDUICore
import SDUITestSupport
import Testing

/// A clock that moves only when the test says, and records every sleep
/// asked of it.  A sleep whose deadline has come (or that asks for no time)
/// returns at once; a cancelled sleep throws `CancellationError`.
///
/// `@unchecked Sendable`: its state is read and changed only under `lock`.
final class TestClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by d: Duration) -> Instant { Instant(offset: offset + d) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [UInt64: (deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var lastID: UInt64 = 0
    private var recorded: [Duration] = []
    private let requests: AsyncStream<Duration>.Continuation
    /// One element per sleep asked for, its length, sent once the sleeper
    /// waits (so advancing the clock after reading it wakes the sleeper).
    let sleepRequests: AsyncStream<Duration>

    init() {
        (sleepRequests, requests) = AsyncStream.makeStream()
    }

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .zero }
    /// Every sleep asked for so far, in order.
    var requestedSleeps: [Duration] { lock.withLock { recorded } }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = lock.withLock { lastID += 1; return lastID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                lock.withLock {
                    let length = current.duration(to: deadline)
                    recorded.append(length)
                    if Task.isCancelled {
                        c.resume(throwing: CancellationError())
                    } else if deadline <= current {
                        c.resume()
                    } else {
                        sleepers[id] = (deadline, c)
                    }
                    requests.yield(length)
                }
            }
        } onCancel: {
            let c = lock.withLock { sleepers.removeValue(forKey: id)?.continuation }
            c?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `d`, waking every sleeper whose deadline came.
    func advance(by d: Duration) {
        let due = lock.withLock {
            current = current.advanced(by: d)
            let due = sleepers.filter { $0.value.deadline <= current }
            for id in due.keys { sleepers[id] = nil }
            return due.map(\.value.continuation)
        }
        for c in due { c.resume() }
    }
}

/// Counts calls from any task.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    var count: Int { lock.withLock { n } }
    /// Counts one call and returns its number (from 1).
    func next() -> Int { lock.withLock { n += 1; return n } }
}

/// The error of attempt `attempt`.
struct AttemptFailed: Error, Equatable { var attempt: Int }

@Suite struct RetryPolicyDelayTests {
    @Test func delaysWithoutJitterAreExact() {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .seconds(1),
                                 maxAttempts: nil, jitter: .none)
        let expected: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                                    .seconds(1), .seconds(1), .seconds(1), .seconds(1)]
        var random = SeededGenerator(state: 1)
        #expect((1...8).map { policy.baseDelay(forAttempt: $0) } == expected)
        #expect((1...8).map { policy.delay(forAttempt: $0, random: &random) } == expected)
        // Far along, the cap holds and nothing overflows.
        #expect(policy.baseDelay(forAttempt: 10_000) == .seconds(1))
        #expect(policy.baseDelay(forAttempt: .max) == .seconds(1))
    }

    @Test func fractionalMultiplier() {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), multiplier: 1.5, maxDelay: .seconds(1),
                                 maxAttempts: nil, jitter: .none)
        let expected: [Duration] = [.milliseconds(100), .milliseconds(150), .milliseconds(225),
                                    .microseconds(337_500), .microseconds(506_250), .microseconds(759_375),
                                    .seconds(1)]
        #expect((1...7).map { policy.baseDelay(forAttempt: $0) } == expected)
    }

    @Test func constantDelayWithMultiplierOne() {
        let policy = RetryPolicy(initialDelay: .milliseconds(250), multiplier: 1, maxDelay: .seconds(5),
                                 maxAttempts: nil, jitter: .none)
        #expect([1, 2, 50, 1_000_000].map { policy.baseDelay(forAttempt: $0) } == Array(repeating: .milliseconds(250), count: 4))
    }

    @Test func attemptsRunOut() {
        var random = SeededGenerator(state: 7)
        let three = RetryPolicy(initialDelay: .seconds(1), maxDelay: .seconds(10), maxAttempts: 3, jitter: .full)
        #expect(three.delay(forAttempt: 1, random: &random) != nil)
        #expect(three.delay(forAttempt: 2, random: &random) != nil)
        #expect(three.delay(forAttempt: 3, random: &random) == nil)
        #expect(three.delay(forAttempt: 4, random: &random) == nil)
        #expect(three.baseDelay(forAttempt: 2) == .seconds(2))
        let one = RetryPolicy(initialDelay: .seconds(1), maxDelay: .seconds(10), maxAttempts: 1, jitter: .none)
        #expect(one.baseDelay(forAttempt: 1) == nil)
    }

    @Test func zeroInitialDelayStaysZero() {
        let policy = RetryPolicy(initialDelay: .zero, multiplier: 3, maxDelay: .seconds(1), maxAttempts: nil, jitter: .none)
        #expect([1, 2, 10].map { policy.baseDelay(forAttempt: $0) } == [.zero, .zero, .zero])
    }

    /// 10,000 draws per attempt number 1 to 6 (the last one capped).
    func draws(_ jitter: RetryPolicy.Jitter, seed: UInt64) -> [(base: Duration, drawn: Duration)] {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .seconds(3),
                                 maxAttempts: nil, jitter: jitter)
        var random = SeededGenerator(state: seed)
        var out: [(Duration, Duration)] = []
        for attempt in 1...6 {
            let base = policy.baseDelay(forAttempt: attempt)!
            for _ in 0..<10_000 { out.append((base, policy.delay(forAttempt: attempt, random: &random)!)) }
        }
        return out
    }

    @Test func fullJitterStaysWithinZeroAndTheBase() {
        let all = draws(.full, seed: 42)
        #expect(all.allSatisfy { $0.drawn >= .zero && $0.drawn <= $0.base })
        // Spread over the whole range, centred on half the base.
        let capped = all.filter { $0.base == .seconds(3) }.map(\.drawn)
        #expect(capped.count == 10_000)
        #expect(capped.min()! < .milliseconds(30))
        #expect(capped.max()! > .milliseconds(2970))
        let mean = capped.reduce(Duration.zero, +) / capped.count
        #expect(mean > .milliseconds(1450) && mean < .milliseconds(1550))
    }

    @Test func equalJitterStaysWithinHalfTheBaseAndTheBase() {
        let all = draws(.equal, seed: 42)
        #expect(all.allSatisfy { $0.drawn >= $0.base / 2 && $0.drawn <= $0.base })
        let capped = all.filter { $0.base == .seconds(3) }.map(\.drawn)
        #expect(capped.min()! < .milliseconds(1530))
        #expect(capped.max()! > .milliseconds(2970))
        let mean = capped.reduce(Duration.zero, +) / capped.count
        #expect(mean > .milliseconds(2200) && mean < .milliseconds(2300))
    }

    @Test func jitterRepeatsWithItsSeed() {
        #expect(draws(.full, seed: 9).map(\.drawn) == draws(.full, seed: 9).map(\.drawn))
        #expect(draws(.full, seed: 9).map(\.drawn) != draws(.full, seed: 10).map(\.drawn))
    }
}

/// A wrong wait would leave a test waiting on its clock: the time limit
/// turns that into a failure.
@Suite(.timeLimit(.minutes(1))) struct RetryPolicyRunTests {
    let policy = RetryPolicy(initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(5),
                             maxAttempts: 5, jitter: .none)

    @Test func successOnTheFirstAttemptNeverSleeps() async throws {
        let clock = TestClock()
        let calls = CallCounter()
        let value = try await policy.run(clock: clock) { calls.next() * 10 }
        #expect(value == 10)
        #expect(calls.count == 1)
        #expect(clock.requestedSleeps == [])
    }

    @Test func retriesUntilSuccessSleepingTheComputedDelays() async throws {
        let clock = TestClock()
        let calls = CallCounter()
        let policy = self.policy
        let task = Task {
            try await policy.run(clock: clock) { () async throws -> String in
                let n = calls.next()
                if n < 3 { throw AttemptFailed(attempt: n) }
                return "done on \(n)"
            }
        }
        var requests = clock.sleepRequests.makeAsyncIterator()
        for (i, expected) in [Duration.seconds(1), .seconds(2)].enumerated() {
            #expect(await requests.next() == expected)
            #expect(calls.count == i + 1)
            clock.advance(by: expected)
        }
        #expect(try await task.value == "done on 3")
        #expect(clock.requestedSleeps == [.seconds(1), .seconds(2)])
        #expect(clock.now.offset == .seconds(3))
    }

    /// Runs `policy` on a test clock with an operation that fails every
    /// time, numbering its attempts.
    func startFailingEveryTime() -> (TestClock, CallCounter, Task<Int, any Error>) {
        let clock = TestClock()
        let calls = CallCounter()
        let policy = self.policy
        let task = Task {
            try await policy.run(clock: clock) { () async throws -> Int in
                throw AttemptFailed(attempt: calls.next())
            }
        }
        return (clock, calls, task)
    }

    @Test func givesUpAfterMaxAttemptsWithTheLastError() async throws {
        let (clock, calls, task) = startFailingEveryTime()
        var requests = clock.sleepRequests.makeAsyncIterator()
        let expected: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(5)]
        for (i, wait) in expected.enumerated() {
            #expect(await requests.next() == wait)
            #expect(calls.count == i + 1)
            clock.advance(by: wait)
        }
        let result = await task.result
        #expect(throws: AttemptFailed(attempt: 5)) { try result.get() }
        #expect(calls.count == 5)
        #expect(clock.requestedSleeps == expected)
    }

    @Test func jitteredRunSleepsTheSeededDelays() async throws {
        let jittered = RetryPolicy(initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(5),
                                   maxAttempts: 4, jitter: .full)
        var reference = SeededGenerator(state: 5)
        let expected = (1...3).map { jittered.delay(forAttempt: $0, random: &reference)! }
        let clock = TestClock()
        let task = Task {
            var random = SeededGenerator(state: 5)
            return try await jittered.run(clock: clock, random: &random) { () async throws -> Int in
                throw AttemptFailed(attempt: 0)
            }
        }
        var requests = clock.sleepRequests.makeAsyncIterator()
        for wait in expected {
            #expect(await requests.next() == wait)
            clock.advance(by: wait)
        }
        await #expect(throws: AttemptFailed.self) { try await task.value }
        #expect(clock.requestedSleeps == expected)
    }

    @Test func aNonRetryableErrorStopsAtOnce() async throws {
        let clock = TestClock()
        let calls = CallCounter()
        await #expect(throws: AttemptFailed(attempt: 1)) {
            try await policy.run(clock: clock, isRetryable: { _ in false }) { () async throws -> Int in
                throw AttemptFailed(attempt: calls.next())
            }
        }
        #expect(calls.count == 1)
        #expect(clock.requestedSleeps == [])
    }

    @Test func isRetryableSeesEachError() async throws {
        // Offline is retried; an HTTP error answer is not.
        let clock = TestClock()
        let calls = CallCounter()
        let policy = self.policy
        let task = Task {
            try await policy.run(clock: clock, isRetryable: { ($0 as? SDUIError)?.category == .network }) { () async throws -> Int in
                throw calls.next() == 1 ? SDUIError(.network, "offline") : SDUIError(.http, "503")
            }
        }
        var requests = clock.sleepRequests.makeAsyncIterator()
        #expect(await requests.next() == .seconds(1))
        clock.advance(by: .seconds(1))
        let result = await task.result
        #expect(throws: SDUIError(.http, "503")) { try result.get() }
        #expect(calls.count == 2)
    }

    @Test func cancellationDuringASleepStopsTheLoop() async throws {
        let (clock, calls, task) = startFailingEveryTime()
        var requests = clock.sleepRequests.makeAsyncIterator()
        #expect(await requests.next() == .seconds(1))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        // The clock never moved, and no second attempt or sleep followed.
        #expect(calls.count == 1)
        #expect(clock.requestedSleeps == [.seconds(1)])
        clock.advance(by: .seconds(10))
        #expect(calls.count == 1)
    }

    @Test func aCancelledTaskStartsNoAttempt() async throws {
        let clock = TestClock()
        let calls = CallCounter()
        let policy = self.policy
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await policy.run(clock: clock) { calls.next() }
        }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(calls.count == 0)
    }

    @Test func anAttemptThrowingCancellationIsNotRetried() async throws {
        // Waits of zero: a wrong retry would run at once and be counted.
        let instant = RetryPolicy(initialDelay: .zero, maxDelay: .zero, maxAttempts: 5, jitter: .none)
        let clock = TestClock()
        let calls = CallCounter()
        await #expect(throws: CancellationError.self) {
            try await instant.run(clock: clock) { () async throws -> Int in
                _ = calls.next()
                throw CancellationError()
            }
        }
        #expect(calls.count == 1)
        #expect(clock.requestedSleeps == [])
    }

    @Test func runsInTheCallersActor() async throws {
        actor Store {
            var tries = 0
            func load(_ policy: RetryPolicy, _ clock: TestClock) async throws -> Int {
                try await policy.run(clock: clock) { () async throws -> Int in
                    tries += 1  // actor state, touched from the operation
                    if tries < 2 { throw AttemptFailed(attempt: tries) }
                    return tries
                }
            }
        }
        let instant = RetryPolicy(initialDelay: .zero, maxDelay: .zero, maxAttempts: 3, jitter: .none)
        let clock = TestClock()
        #expect(try await Store().load(instant, clock) == 2)
        #expect(clock.requestedSleeps == [.zero])
    }
}
