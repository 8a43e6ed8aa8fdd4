// LockedTests.swift - a value behind a lock, shared by threads.
import Dispatch
import SDUICore
import Testing

@Suite struct LockedTests {
    @Test func concurrentUpdatesAreSerialized() {
        // Each update reads, pauses and writes back; without the lock two
        // threads would read the same count and one increment would be lost,
        // and `inside` would be seen above 1.
        struct State: Sendable { var count = 0; var inside = 0; var overlaps = 0 }
        let box = Locked(State())
        let threads = 8, rounds = 5_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<rounds {
                box.withLock { s in
                    s.inside += 1
                    if s.inside > 1 { s.overlaps += 1 }
                    let read = s.count
                    for _ in 0..<200 { _ = read &* 31 }  // widen the window between read and write
                    s.count = read + 1
                    s.inside -= 1
                }
            }
        }
        let end = box.withLock { $0 }
        #expect(end.count == threads * rounds)
        #expect(end.overlaps == 0)
    }

    @Test func returnsTheBodysResultAndKeepsItsChanges() {
        let box = Locked([1, 2])
        let n = box.withLock { a -> Int in a.append(3); return a.count }
        #expect(n == 3)
        #expect(box.withLock { $0 } == [1, 2, 3])
    }

    @Test func aThrowReleasesTheLock() {
        struct Boom: Error {}
        let box = Locked(0)
        #expect(throws: Boom.self) {
            try box.withLock { v in v = 7; throw Boom() }
        }
        // Taken again on the same thread: a lock left held would hang here.
        #expect(box.withLock { $0 } == 7)
    }
}
