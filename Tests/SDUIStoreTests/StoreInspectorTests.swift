// StoreInspectorTests.swift - the debug inspector: values by key path,
// subscriptions, the patch log, live expressions and manual writes.
#if DEBUG
import SDUIStore
import Testing

@Suite struct StoreInspectorTests {
    @Test func theInspectorShowsWhatTheStoreHolds() async throws {
        let s = memoryStore()
        s.set("cart", ["total": 12, "items": [["title": "Tea"]], "tags": [], "brand": .color("#FF0000")])
        s.set("user['first name']", "Ada")
        try s.addLiveExpression(LiveExpression(id: "count", outputKeyPath: "cart.count",
                                               expression: "len(cart.items)", policy: .writeIfChanged))
        let inspector = StoreInspector(s)
        #expect(inspector.values.map(\.keyPath) == ["cart.brand", "cart.count", "cart.items[0].title", "cart.tags",
                                                     "cart.total", "user['first name']"])
        #expect(inspector.values.first?.value == .color("#FF0000"))
        #expect(inspector.liveExpressions == ["count"])
        #expect(inspector.subscriptions.isEmpty)
        let watching = first(2, of: s.values(for: "cart.total"))
        try await Task.sleep(for: .milliseconds(20))
        #expect(inspector.subscriptions == ["values(cart.total)"])
        // A manual write is validated and published like any other.
        #expect(inspector.write("cart.total", 13) == .ok)
        #expect(await watching.value == [12, 13])
        #expect(inspector.recentPatches.last?.keyPath == "cart.total")
        #expect(inspector.recentPatches.last?.oldValue == 12)
        // The ended observation is forgotten.
        try await Task.sleep(for: .milliseconds(20))
        #expect(inspector.subscriptions.isEmpty)
    }
}
#endif
