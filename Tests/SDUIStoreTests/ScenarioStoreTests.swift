// ScenarioStoreTests.swift - reads, writes, transactions, observation and
// threads of one store.
import Foundation
import SDUICore
@testable import SDUIStore
import Testing

/// A fresh in-memory store.
func memoryStore() -> ScenarioStore {
    DefaultStore(appID: "test.\(UUID().uuidString)").store(.appMemory)
}

/// Collects what an AsyncSequence yields until `count` items arrived.
func first<S: AsyncSequence & Sendable>(_ n: Int, of seq: S) -> Task<[S.Element], Never> where S.Element: Sendable {
    Task {
        var out: [S.Element] = []
        do {
            for try await x in seq {
                out.append(x)
                if out.count == n { break }
            }
        } catch {}
        return out
    }
}

@Suite struct ScenarioStoreTests {
    @Test func readsAndWritesAlongKeyPaths() throws {
        let s = memoryStore()
        #expect(s.set("cart.total", 12) == .ok)
        #expect(s.set("items", [["title": "Tea", "price": 4.5]]) == .ok)
        #expect(s.set("items[1]", ["title": "Cake"]) == .ok)
        #expect(s.get("items[1].title") == "Cake")
        #expect(s.get("items[*].title") == ["Tea", "Cake"])
        #expect(s.set("answers['first name']", "Ada") == .ok)
        #expect(s.get("answers['first name']") == "Ada")
        #expect(s.exists("cart") && !s.exists("nothing.here"))
        #expect(s.set("cart", .null) == .ok)
        #expect(s.exists("cart") && s.get("cart") == .null)
        #expect(s.merge("user", ["name": "Ada", "age": 36]) == .ok)
        #expect(s.merge("user", ["age": 37]) == .ok)
        #expect(s.get("user") == ["name": "Ada", "age": 37])
        #expect(s.remove("items[0]") == .ok)
        #expect(s.get("items[0].title") == "Cake")
        #expect(Set(s.snapshot().keys) == ["cart", "items", "answers", "user"])
        struct User: Decodable, Equatable { var name: String; var age: Int }
        #expect(try s.get("user", as: User.self) == User(name: "Ada", age: 37))
        let missing = try #require(throws: SDUIError.self) { try s.get("nobody", as: User.self) }
        #expect(missing.category == .notFound)
        let wrong = try #require(throws: SDUIError.self) { try s.get("answers", as: User.self) }
        #expect(wrong.category == .schema)
    }

    @Test func badPathsAndImpossibleWritesAreRefusedWithAReason() {
        let s = memoryStore()
        guard case .failed(let r) = s.set("a..b", 1) else { Issue.record("accepted a malformed path"); return }
        #expect(r.contains("a..b"), "\(r)")
        s.set("n", 1)
        guard case .failed(let r2) = s.set("n.x", 2) else { Issue.record("wrote into a number"); return }
        #expect(r2.contains("n is a number, not an object"), "\(r2)")
        guard case .failed(let r3) = s.merge("n", ["a": 1]) else { Issue.record("merged into a number"); return }
        #expect(r3.contains("merge needs an object"), "\(r3)")
        #expect(s.get("n") == 1)
        #expect(s.get("][") == nil)
    }

    @Test func aTransactionIsOneChangeAndNestedOnesFoldIn() async throws {
        let s = memoryStore()
        let changes = first(2, of: s.changes(for: ["cart"]))
        try await Task.sleep(for: .milliseconds(20))
        s.transaction { t in
            t.set("cart.a", 1)
            t.transaction { inner in
                inner.set("cart.b", 2)
                inner.remove("cart.a")
            }
            // Nothing is published before the outer transaction ends.
            #expect(s.recentPatches.isEmpty)
            t.set("cart.c", 3)
        }
        s.set("cart.d", 4)
        let got = await changes.value
        #expect(got.count == 2)
        #expect(got[0].patches.map(\.keyPath) == ["cart.a", "cart.b", "cart.a", "cart.c"])
        #expect(got[0].patches.map(\.op) == [.set, .set, .remove, .set])
        #expect(got[0].transactionID != nil)
        #expect(got[1].patches.count == 1 && got[1].transactionID == nil)
        #expect(got[0].patches[2].oldValue == 1 && got[0].patches[2].newValue == nil)
    }

    @Test func changesReachOnlyObserversWhosePathsIntersect() async throws {
        let s = memoryStore()
        s.set("items", [["price": 1], ["price": 2]])
        let parent = first(3, of: s.changes(for: ["cart"]))
        let child = first(2, of: s.changes(for: ["cart.total"]))
        let wildcard = first(2, of: s.changes(for: ["items[*].price"]))
        let other = s.changes(for: ["user"])
        try await Task.sleep(for: .milliseconds(20))
        #expect(s.activeSubscriptions.count == 4)
        s.set("cart.total", 5)            // parent, child
        s.set("cart.fee", 1)              // parent
        s.set("items[1].price", 3)        // wildcard
        s.set("cart", ["total": 9])       // parent, child (a parent write reaches the child)
        s.remove("items[0]")              // wildcard: the array shifted
        let p = await parent.value, c = await child.value, w = await wildcard.value
        #expect(p.map { $0.patches[0].keyPath } == ["cart.total", "cart.fee", "cart"])
        #expect(c.map { $0.patches[0].keyPath } == ["cart.total", "cart"])
        #expect(w.map { $0.patches[0].keyPath } == ["items[1].price", "items[0]"])
        _ = other
    }

    @Test func valuesStartWithTheCurrentOneAndSkipUnchangedValues() async throws {
        let s = memoryStore()
        s.set("cart.total", 1)
        let seen = first(4, of: s.values(for: "cart.total"))
        try await Task.sleep(for: .milliseconds(20))
        s.set("cart.total", 2)
        s.set("cart.fee", 7)              // touches cart, not cart.total's value
        s.set("cart", ["total": 2])       // same value: not repeated
        s.remove("cart")
        s.set("cart.total", 3)
        let got = await seen.value
        #expect(got == [1, 2, nil, 3])
    }

    @Test func aConsumerThatStopsIsForgotten() async throws {
        let s = memoryStore()
        let t = Task {
            for await _ in s.changes(for: ["a"]) {}
        }
        try await Task.sleep(for: .milliseconds(20))
        #expect(s.activeSubscriptions.count == 1)
        t.cancel()
        _ = await t.value
        for _ in 0..<100 where !s.activeSubscriptions.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        #expect(s.activeSubscriptions.isEmpty)
        do {
            var it = s.values(for: "b").makeAsyncIterator()
            _ = await it.next()
        }
        for _ in 0..<100 where !s.activeSubscriptions.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        #expect(s.activeSubscriptions.isEmpty, "\(s.activeSubscriptions)")
    }

    @Test func releasingAStoreEndsItsSequences() async throws {
        var s: ScenarioStore? = memoryStore()
        s!.set("n", 1)
        let values = first(5, of: s!.values(for: "n"))
        let changes = first(5, of: s!.changes(for: "n"))
        try await Task.sleep(for: .milliseconds(20))
        s = nil
        #expect(await values.value == [1])
        #expect(await changes.value.isEmpty)
    }

    @Test func thePatchLogKeepsTheLatestInOrder() {
        let s = memoryStore()
        for n in 1...(ScenarioStore.patchLogCapacity + 44) { s.set("n", .integer(n)) }
        let log = s.recentPatches
        #expect(log.count == ScenarioStore.patchLogCapacity)
        #expect(log.map(\.newValue) == (45...(ScenarioStore.patchLogCapacity + 44)).map { .integer($0) })
    }

    @Test func manyWritersLoseNothing() async {
        let s = memoryStore()
        s.set("n", 0)
        let changes = first(8 * 500, of: s.changes(for: ["n"]))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 {
                s.transaction { t in
                    guard case .integer(let n)? = t.get("n") else { return }
                    t.set("n", .integer(n + 1))
                }
                _ = s.get("n")
            }
        }
        #expect(s.get("n") == .integer(4000))
        let got = await changes.value
        // Every change arrived, in commit order.
        let values = got.compactMap { c -> Int? in
            if case .integer(let n)? = c.patches.last?.newValue { return n }
            return nil
        }
        #expect(values == Array(1...4000))
    }

    @Test func replaceAllIsOneChangeOfTheKeysThatDiffer() async throws {
        let s = memoryStore()
        s.set("a", 1)
        s.set("b", 2)
        let changes = first(1, of: s.changes(for: ["a", "b", "c"]))
        try await Task.sleep(for: .milliseconds(20))
        s.replaceAll(with: ["b": 2, "c": 3])
        let got = await changes.value
        #expect(got.first?.patches.map(\.keyPath) == ["a", "c"])
        #expect(s.snapshot() == ["b": 2, "c": 3])
    }
}
