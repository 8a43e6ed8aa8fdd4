// BroadcastTests.swift - Broadcast: registration before delivery, no dead
// observers (cancel before iterating, dropped subscriptions), 1,000
// subscribers, finishing, buffering and concurrent publishers.
import SDUICore
import Testing

/// A lost value or a subscription that never ends would leave a test
/// waiting: the time limit turns that into a failure.
@Suite(.timeLimit(.minutes(1))) struct BroadcastTests {
    /// Every value of `subscription` until it ends.
    static func collect<K, V>(_ subscription: Broadcast<K, V>.Subscription) async -> [V] {
        var values: [V] = []
        for await v in subscription { values.append(v) }
        return values
    }

    @Test func valuePublishedRightAfterSubscribeArrives() async {
        let broadcast = Broadcast<String, Int>()
        let subscription = broadcast.subscribe("k")
        // Published before anyone iterates: still delivered, in order.
        #expect(broadcast.publish(1, to: "k") == 1)
        #expect(broadcast.publish(2, to: "k") == 1)
        #expect(broadcast.publish(3, to: "other") == 0)
        var iterator = subscription.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
        broadcast.finish()
        #expect(await iterator.next() == nil)
    }

    @Test func valuesBeforeSubscribeAreNotReplayed() async {
        let broadcast = Broadcast<String, Int>()
        broadcast.publish(1, to: "k")
        let subscription = broadcast.subscribe("k")
        broadcast.publish(2, to: "k")
        broadcast.finish()
        #expect(await Self.collect(subscription) == [2])
    }

    @Test func taskCancelledBeforeItIteratesLeavesNoObserver() async {
        let broadcast = Broadcast<String, Int>()
        let task = Task {
            // Wait until cancelled, so the subscription is made and iterated
            // by a task that is already cancelled.
            while !Task.isCancelled { await Task.yield() }
            let subscription = broadcast.subscribe("k")
            let registered = broadcast.subscriberCount(for: "k")
            var values: [Int] = []
            for await v in subscription { values.append(v) }
            return (registered, values)
        }
        task.cancel()
        let (registered, values) = await task.value
        #expect(registered == 1)
        #expect(values == [])
        #expect(broadcast.subscriberCount(for: "k") == 0)
        #expect(broadcast.publish(1, to: "k") == 0)
    }

    @Test func cancellingTheConsumerUnregistersWhileTheSubscriptionLives() async {
        let broadcast = Broadcast<String, Int>()
        let subscription = broadcast.subscribe("k")
        #expect(broadcast.subscriberCount(for: "k") == 1)
        let task = Task {
            var iterator = subscription.makeAsyncIterator()
            return await iterator.next()
        }
        task.cancel()
        #expect(await task.value == nil)
        // `subscription` is still held here, yet it is no longer an observer.
        #expect(broadcast.subscriberCount(for: "k") == 0)
        #expect(subscription.key == "k")
    }

    @Test func droppingASubscriptionUnregistersIt() async {
        let broadcast = Broadcast<String, Int>()
        do {
            let subscription = broadcast.subscribe("k")
            #expect(broadcast.subscriberCount(for: "k") == 1)
            withExtendedLifetime(subscription) {}
        }
        #expect(broadcast.subscriberCount(for: "k") == 0)

        // Dropped after reading part of it: the iterator kept it registered.
        var iterator: Broadcast<String, Int>.Subscription.AsyncIterator? = broadcast.subscribe("k").makeAsyncIterator()
        #expect(broadcast.subscriberCount(for: "k") == 1)
        broadcast.publish(1, to: "k")
        broadcast.publish(2, to: "k")
        #expect(await iterator?.next() == 1)
        iterator = nil
        #expect(broadcast.subscriberCount(for: "k") == 0)
        #expect(broadcast.publish(3, to: "k") == 0)
    }

    @Test func aThousandSubscribersOnOneKeyGetEveryValueInOrder() async {
        let broadcast = Broadcast<String, Int>()
        let subscriptions = (0..<1000).map { _ in broadcast.subscribe("k") }
        #expect(broadcast.subscriberCount(for: "k") == 1000)
        let results = await withTaskGroup(of: [Int].self) { group in
            for subscription in subscriptions {
                group.addTask { await Self.collect(subscription) }
            }
            for v in 0..<100 { #expect(broadcast.publish(v, to: "k") == 1000) }
            broadcast.finish()
            var all: [[Int]] = []
            for await values in group { all.append(values) }
            return all
        }
        #expect(results.count == 1000)
        #expect(results.allSatisfy { $0 == Array(0..<100) })
        #expect(broadcast.subscriberCount(for: "k") == 0)
    }

    @Test func aThousandSubscribersOverKeysGetOnlyTheirKeysValues() async {
        let broadcast = Broadcast<Int, Int>()
        let subscriptions = (0..<1000).map { broadcast.subscribe($0 % 10) }
        for key in 0..<10 { #expect(broadcast.subscriberCount(for: key) == 100) }
        let results = await withTaskGroup(of: (Int, [Int]).self) { group in
            for subscription in subscriptions {
                group.addTask { (subscription.key, await Self.collect(subscription)) }
            }
            // Interleaved over keys: value 1000 × key + n.
            for n in 0..<20 {
                for key in 0..<10 { broadcast.publish(1000 * key + n, to: key) }
            }
            broadcast.publish(-1, to: 10)  // nobody's key
            broadcast.finish()
            var all: [(Int, [Int])] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 1000)
        for (key, values) in results {
            #expect(values == (0..<20).map { 1000 * key + $0 })
        }
    }

    @Test func finishEndsIterationAfterBufferedValues() async {
        let broadcast = Broadcast<String, Int>()
        let a = broadcast.subscribe("a")
        let b = broadcast.subscribe("b")
        let waiting = Task { await Self.collect(b) }
        broadcast.publish(1, to: "a")
        broadcast.finish()
        #expect(broadcast.isFinished)
        #expect(await Self.collect(a) == [1])
        #expect(await waiting.value == [])
        #expect(broadcast.subscriberCount(for: "a") == 0)
        // After finish: subscriptions end at once and publishing reaches no one.
        let late = broadcast.subscribe("a")
        #expect(broadcast.subscriberCount(for: "a") == 0)
        #expect(broadcast.publish(2, to: "a") == 0)
        #expect(await Self.collect(late) == [])
        broadcast.finish()  // again: nothing happens
    }

    @Test func releasingTheBroadcastFinishesItsSubscriptions() async {
        var broadcast: Broadcast<String, Int>? = Broadcast()
        let subscription = broadcast!.subscribe("k")
        broadcast!.publish(7, to: "k")
        broadcast = nil
        #expect(await Self.collect(subscription) == [7])
    }

    @Test func concurrentPublishersLoseNothing() async {
        let broadcast = Broadcast<String, [Int]>()
        let subscriptions = (0..<10).map { _ in broadcast.subscribe("k") }
        let publishers = 8, perPublisher = 500
        let results = await withTaskGroup(of: [[Int]].self) { group in
            for subscription in subscriptions {
                group.addTask { await Self.collect(subscription) }
            }
            await withTaskGroup(of: Void.self) { senders in
                for p in 0..<publishers {
                    senders.addTask {
                        for n in 0..<perPublisher { broadcast.publish([p, n], to: "k") }
                    }
                }
            }
            broadcast.finish()
            var all: [[[Int]]] = []
            for await values in group { all.append(values) }
            return all
        }
        #expect(results.count == 10)
        for values in results {
            #expect(values.count == publishers * perPublisher)
            // Each publisher's values arrive in the order it sent them.
            for p in 0..<publishers {
                #expect(values.filter { $0[0] == p }.map { $0[1] } == Array(0..<perPublisher))
            }
        }
        // Publishes are totally ordered: every subscriber saw the same sequence.
        #expect(results.allSatisfy { $0 == results[0] })
    }

    @Test func boundedBuffersKeepTheNewestOrTheOldest() async {
        let newest = Broadcast<String, Int>(buffering: .newest(2))
        let oldest = Broadcast<String, Int>(buffering: .oldest(2))
        let n = newest.subscribe("k"), o = oldest.subscribe("k")
        for v in 1...5 {
            newest.publish(v, to: "k")
            oldest.publish(v, to: "k")
        }
        newest.finish()
        oldest.finish()
        #expect(await Self.collect(n) == [4, 5])
        #expect(await Self.collect(o) == [1, 2])
        #expect(newest.buffering == .newest(2))
        #expect(Broadcast<String, Int>().buffering == .unbounded)
    }
}
