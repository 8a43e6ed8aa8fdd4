// SeedExampleTests.swift - the store's documented example, compiled and run as written.
//
// This file imports no Foundation on purpose: with Foundation in scope the
// example's `.reduce(0, +)` is ambiguous to Swift (Double's `+` or CGFloat's,
// through the implicit Double-to-CGFloat conversion), whatever the store's
// API.  An app that imports Foundation writes `.reduce(0.0, +)`; the
// README's guide says so.
import SDUIStore
import Testing

@Suite struct SeedExampleTests {
    @Test func theExampleRunsAsWritten() {
        let store = DefaultStore(appID: "com.acme.app")
        let s = store.named(.scenarioSession(id: "checkout"))

        s.configureValidation(.init(
            mode: .strict,
            schema: [
              "cart.total": Rule(kind: .number, required: true, defaultValue: .number(0)),
              "user.name": Rule(kind: .string, required: false)
            ],
        ))

        // Live expression: cart.total = sum(items[*].price)
        s.registerLiveExpression(.init(
            id: "sum-total",
            outputKeyPath: "cart.total",
            dependsOn: ["items[*].price"],
            compute: { get in
                guard case let .array(arr)? = get("items") else { return .number(0) }
                let sum = arr.compactMap {
                    if case let .object(obj) = $0, case let .number(p)? = obj["price"] { return p }
                    return nil
                }.reduce(0, +)
                return .number(sum)
            },
            policy: .writeIfChanged
        ))

        // The required key got its default; the expression keeps it current.
        #expect(s.get("cart.total") == .number(0))
        s.set("items", .array([.object(["price": .number(2.5)]), .object(["price": .number(4)])]))
        #expect(s.get("cart.total") == .number(6.5))
        s.set("items[1].price", .number(10))
        #expect(s.get("cart.total") == .number(12.5))
        // Strict validation refuses a string for the number.
        #expect(s.set("cart.total", .string("lots")) == .failed(reason: "cart.total: a string is not a number"))
        #expect(s.get("cart.total") == .number(12.5))
        #expect(s.set("user.name", .string("Ada")) == .ok)
        #expect(s.scope == .scenarioSession(id: "checkout"))
        #expect(s.scenarioID == "checkout")
        #expect(store.named(.scenarioSession(id: "checkout")) === s)
    }
}
