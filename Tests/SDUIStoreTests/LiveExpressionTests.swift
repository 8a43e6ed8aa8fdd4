// LiveExpressionTests.swift - computed values: both forms, policies, order and cycles.
import Foundation
import SDUICore
@testable import SDUIStore
import Testing

@Suite struct LiveExpressionTests {
    @Test func anExpressionStringIsEvaluatedByTheCore() async throws {
        let s = memoryStore()
        try s.addLiveExpression(LiveExpression(id: "total", outputKeyPath: "cart.total",
                                               expression: "sum(items[*].price)"))
        #expect(s.get("cart.total") == .integer(0), "computed once at registration: sum([]) is 0")
        let changes = first(1, of: s.changes(for: ["cart.total"]))
        try await Task.sleep(for: .milliseconds(20))
        s.set("items", [["price": 4], ["price": 3.5]])
        #expect(s.get("cart.total") == .number(7.5))
        // The recompute is part of the mutation that caused it.
        let c = await changes.value
        #expect(c.first?.patches.map(\.keyPath) == ["items", "cart.total"])
        s.set("items[0].price", 10)
        #expect(s.get("cart.total") == .number(13.5))
        s.set("unrelated", 1)
        #expect(s.liveExpressionIDs == ["total"])
    }

    @Test func expressionsRunInDependencyOrderOncePerMutation() throws {
        let s = memoryStore()
        // Registered out of order: shipping depends on total.
        try s.addLiveExpression(LiveExpression(id: "shipping", outputKeyPath: "cart.shipping",
                                               expression: "cart.total >= 20 ? 0 : 5"))
        try s.addLiveExpression(LiveExpression(id: "total", outputKeyPath: "cart.total",
                                               expression: "sum(items[*].price)"))
        #expect(s.liveExpressionIDs == ["total", "shipping"])
        s.set("items", [["price": 25]])
        #expect(s.get("cart.shipping") == 0)
        s.set("items[0].price", 5)
        #expect(s.get("cart.shipping") == 5)
        #expect(s.recentPatches.suffix(3).map(\.keyPath) == ["items[0].price", "cart.total", "cart.shipping"])
    }

    @Test func policiesDecideWhetherAnUnchangedResultIsWritten() throws {
        let s = memoryStore()
        try s.addLiveExpression(LiveExpression(id: "a", outputKeyPath: "out.a", expression: "len(x) > 0"))
        try s.addLiveExpression(LiveExpression(id: "b", outputKeyPath: "out.b", expression: "len(x) > 0", policy: .alwaysWrite))
        let before = s.recentPatches.count
        s.set("x", "one")
        s.set("x", "two")
        let written = s.recentPatches.dropFirst(before).map(\.keyPath)
        #expect(written == ["x", "out.a", "out.b", "x", "out.b"])
    }

    @Test func aCycleIsRefusedAndNamed() throws {
        let s = memoryStore()
        try s.addLiveExpression(LiveExpression(id: "a", outputKeyPath: "a", expression: "b + 1"))
        try s.addLiveExpression(LiveExpression(id: "b", outputKeyPath: "b", expression: "c * 2"))
        let e = try #require(throws: SDUIError.self) {
            try s.addLiveExpression(LiveExpression(id: "c", outputKeyPath: "c", expression: "a - 1"))
        }
        #expect(e.message == "live expression 'c' would close a cycle: a → c → b → a", "\(e.message)")
        let selfLoop = try #require(throws: SDUIError.self) {
            try s.addLiveExpression(LiveExpression(id: "n", outputKeyPath: "n", dependsOn: ["n"], compute: { _ in nil }, policy: .alwaysWrite))
        }
        #expect(selfLoop.message.contains("n → n"))
        #expect(s.liveExpressionIDs == ["b", "a"])
        // The seed's non-throwing form logs and leaves the graph as it was.
        s.registerLiveExpression(try LiveExpression(id: "c", outputKeyPath: "c", expression: "a"))
        #expect(s.liveExpressionIDs.count == 2)
        s.unregisterLiveExpression(id: "a")
        s.registerLiveExpression(try LiveExpression(id: "c", outputKeyPath: "c", expression: "a"))
        #expect(s.liveExpressionIDs.count == 2)
    }

    @Test func anEvaluationErrorLeavesTheOutputAlone() throws {
        let s = memoryStore()
        s.set("n", 2)
        try s.addLiveExpression(LiveExpression(id: "half", outputKeyPath: "half", expression: "n / 2"))
        #expect(s.get("half") == .number(1))
        s.set("n", "text")
        #expect(s.get("half") == .number(1))
        #expect(throws: SDUIError.self) { try LiveExpression(id: "bad", outputKeyPath: "x", expression: "1 +") }
    }
}
