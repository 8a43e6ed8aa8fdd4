// ScreenRenderTests.swift - scenario data as the third binding layer, `@{…}`
// expressions in props, and updates that re-resolve only the bound nodes
// (checked against whole resolves of the same data).
import Foundation
@testable import SDUI
import SDUICore
import Testing

/// Scenario data held in a JSONValue, for the resolver's tests (the real
/// store is tested with the resolver through `sdui render --store`).
final class TestScenarioData: ScenarioData, @unchecked Sendable {
    // Every access to `root` holds `lock`.
    private let lock = NSLock()
    private var root: JSONValue

    init(_ root: JSONValue) { self.root = root }

    func set(_ path: String, _ value: JSONValue) throws {
        let p = try KeyPath(path)
        try lock.withLock { try p.set(value, in: &root) }
    }

    func value(at path: KeyPath) -> JSONValue? { lock.withLock { path.get(in: root) } }

    func document(root name: String) throws -> JSONDocument? {
        try lock.withLock { try root[name].map { try JSONDocument($0) } }
    }
}

@Suite struct ScreenRenderTests: ResolverFixtures {
    /// A price row: text bound to the store, a badge shown by an expression.
    static let row = """
    {"id":"row","version":1,"primitive":"Row","primitiveVersion":2,"props":{"children":[
      {"primitive":"Text","props":{"text":"{{cart.label}}: {{cart.total}}"}},
      {"primitive":"Text","props":{"text":"@{fixed(cart.total * 1.0, 2)}"}},
      {"primitive":"Text","props":{"text":"free shipping","visible":"@{cart.total >= 50}"}}]}}
    """
    /// A header bound to nothing in the store.
    static let header = """
    {"id":"header","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"Cart of {{user.name}}"}}
    """

    func context(_ data: ScenarioData, host: [String: JSONValue] = [:]) -> RenderContext {
        var ctx = RenderContext()
        ctx.store = data
        ctx.hostBindings = host
        return ctx
    }

    @Test func theStoreIsLookedUpAfterTheItemAndTheHost() throws {
        let data = TestScenarioData(["cart": ["label": "store", "total": 12], "user": ["name": "store"]])
        let resolver = ScreenResolver(context(data, host: ["user": ["name": "host"]]))
        let items = ScreenItems(id: "s", items: [
            .token(id: "header", bind: nil),
            .token(id: "header", bind: ["user": ["name": "item"]]),
            .token(id: "row", bind: ["cart": ["label": "item"]]),
        ])
        let tree = resolver.resolve(items, lookups: found(token("header", Self.header), token("row", Self.row)))
        let kids = tree.root.children
        #expect(kids[0].props["text"] == "Cart of host")
        #expect(kids[1].props["text"] == "Cart of item")
        // {{cart.label}} is the item's; {{cart.total}} is only in the store.
        #expect(kids[2].children[0].props["text"] == "item: 12")
        // An expression reads a root name from the first layer that has it:
        // the item's `cart` has no total, so the expressions see null: the
        // arithmetic fails (Text.text removed: a placeholder), and so does
        // the comparison (`visible` removed: the badge shows).
        #expect(kids[2].children.map(\.kind) == [.primitive, .placeholder, .primitive])
        #expect(tree.issues.map(\.kind) == [.badBinding, .propRule, .badBinding])
        #expect(tree.issues[0].message.contains("@{fixed(cart.total * 1.0, 2)}"))
        #expect(tree.issues[0].message.contains("arithmetic needs two numbers"))
    }

    @Test func expressionsComputePropsWithTheirTypes() throws {
        let data = TestScenarioData(["cart": ["label": "Total", "total": 60]])
        let tree = ScreenResolver(context(data)).resolve(screen("row"), lookups: found(token("row", Self.row)))
        let row = tree.root.children[0]
        #expect(row.children.map { $0.props["text"] } == ["Total: 60", "60.00", "free shipping"])
        #expect(tree.issues.isEmpty)
        // Hidden by the expression when the total is below 50.
        try data.set("cart.total", 10)
        let small = ScreenResolver(context(data)).resolve(screen("row"), lookups: found(token("row", Self.row)))
        #expect(small.root.children[0].children.count == 2)
        #expect(small.root.children[0].children[1].props["text"] == "10.00")
    }

    @Test func aBadExpressionIsReportedAndItsPropRemoved() throws {
        let t = token("bad", """
        {"id":"bad","version":1,"primitive":"Column","primitiveVersion":3,"props":{"children":[
          {"primitive":"Text","props":{"text":"kept","visible":"@{cart.total >}"}},
          {"primitive":"Text","props":{"text":"@{cart.total + 'x'}"}},
          {"primitive":"Text","props":{"text":"@{1 / 0}"}}]}}
        """)
        let data = TestScenarioData(["cart": ["total": 3]])
        let tree = ScreenResolver(context(data)).resolve(screen("bad"), lookups: found(t))
        let kids = tree.root.children[0].children
        // The unparsable `visible` is removed: the node shows.  The two failed
        // evaluations remove Text.text, a required prop: placeholders.
        #expect(kids.map(\.kind) == [.primitive, .placeholder, .placeholder])
        let bindings = tree.issues.filter { $0.kind == .badBinding }
        #expect(bindings.map(\.path) == ["props.children[0].props.visible", "props.children[1].props.text",
                                         "props.children[2].props.text"])
        #expect(bindings[0].message.contains("does not compile"))
        #expect(bindings[0].message.contains("offset"))
        #expect(bindings[1].message.contains("cart.total + 'x'"))
    }

    @Test func anUpdateReResolvesOnlyTheNodesBoundToTheChange() throws {
        let data = TestScenarioData(["cart": ["label": "Total", "total": 20], "user": ["name": "Ada"],
                                     "other": 1])
        let resolver = ScreenResolver(context(data))
        let lookups = found(token("header", Self.header), token("row", Self.row))
        let items = screen("header", "row", "header")
        var render = resolver.render(items, lookups: lookups)
        let before = render.tree
        #expect(Set(render.boundPaths.map(\.description)) == ["user.name", "cart.label", "cart.total"])

        // Unrelated: nothing changes, nothing is re-resolved.
        try data.set("other", 2)
        #expect(resolver.update(&render, changed: ["other"]).isEmpty)
        #expect(render.tree == before)

        // The total: the row's first two texts change, each listed.
        try data.set("cart.total", 30)
        let changes = resolver.update(&render, changed: ["cart.total"])
        #expect(changes.map(\.description) == ["root.children[1].children[0]", "root.children[1].children[1]"])
        #expect(changes.map { $0.node.props["text"] } == ["Total: 30", "30.00"])
        #expect(render.tree == resolver.resolve(items, lookups: lookups))
        // The headers were kept as they were.
        #expect(render.tree.root.children[0] == before.root.children[0])

        // Crossing 50 shows the badge: the row's list of children changed,
        // so the row is listed (once, covering its texts).
        try data.set("cart.total", 55)
        let shown = resolver.update(&render, changed: ["cart"])
        #expect(shown.map(\.description) == ["root.children[1]"])
        #expect(shown[0].node.children.count == 3)
        #expect(render.tree == resolver.resolve(items, lookups: lookups))

        // A parent path reaches every node bound below it.
        try data.set("user", ["name": "Grace"])
        let users = resolver.update(&render, changed: ["user"])
        #expect(users.map(\.description) == ["root.children[0]", "root.children[2]"])
        #expect(render.tree == resolver.resolve(items, lookups: lookups))
    }

    @Test func aWholeItemThatAppearsOrDisappearsChangesTheRoot() throws {
        let t = token("banner", """
        {"id":"banner","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"Sale","visible":"@{flags.sale}"}}
        """)
        let data = TestScenarioData(["flags": ["sale": false]])
        let resolver = ScreenResolver(context(data))
        let lookups = found(t, token("header", Self.header))
        var render = resolver.render(screen("banner", "header"), lookups: lookups)
        #expect(render.tree.root.children.count == 1)
        try data.set("flags.sale", true)
        let changes = resolver.update(&render, changed: ["flags.sale"])
        #expect(changes.map(\.description) == ["root"])
        #expect(render.tree.root.children.map { $0.props["text"] } == ["Sale", "Cart of "])
        #expect(render.tree == resolver.resolve(screen("banner", "header"), lookups: lookups))
    }

    /// Hiding a section gives back what its children filled: toggling it
    /// many times under a tight tree bound never trips the bound, and the
    /// tree stays what a whole resolve gives.
    @Test func hiddenSectionsGiveBackTheirFillBytes() throws {
        let t = token("section", """
        {"id":"section","version":1,"primitive":"Column","primitiveVersion":3,"props":{"visible":"@{open}","children":[
          {"primitive":"Text","props":{"text":"{{body}}"}}, {"primitive":"Text","props":{"text":"{{body}}"}}]}}
        """)
        let data = TestScenarioData(["open": true, "body": .string(String(repeating: "x", count: 1_000))])
        var ctx = context(data)
        ctx.bindingLimits = BindingLimits(maxStringBytes: 4_000, maxNodeBytes: 4_000, maxTreeBytes: 5_000)
        let resolver = ScreenResolver(ctx)
        var render = resolver.render(screen("section"), lookups: found(t))
        for round in 0..<20 {
            try data.set("open", .bool(round % 2 == 1))
            resolver.update(&render, changed: ["open"])
            #expect(render.tree == resolver.resolve(screen("section"), lookups: found(t)), "round \(round)")
        }
        #expect(render.tree.root.children.first?.children.count == 2)
        #expect(render.tree.issues.isEmpty)
    }

    /// Random data changes: after each update the tree (nodes, issues,
    /// events) equals a whole resolve of the same data.
    @Test func updatesAgreeWithWholeResolves() throws {
        let list = token("list", """
        {"id":"list","version":1,"primitive":"Column","primitiveVersion":3,"props":{"children":[
          {"primitive":"Text","props":{"text":"{{items[0].title}} x{{items[0].qty}}","visible":"@{len(items) > 0}"}},
          {"primitive":"Row","primitiveVersion":2,"props":{"visible":"@{len(items) > 1}","children":[
            {"primitive":"Text","props":{"text":"{{items[1].title}}"}},
            {"primitive":"Text","props":{"text":"@{string(sum(items[*].qty))}"}}]}},
          {"primitive":"Text","props":{"text":"{{missing.path}}{{user.name}}"}},
          {"primitive":"Text","props":{"text":"@{user.name ?? 'anonymous'}","maxLines":"{{user.lines}}"}}]}}
        """)
        let data = TestScenarioData(["items": [], "user": ["name": "Ada"]])
        let resolver = ScreenResolver(context(data))
        let lookups = found(list, token("row", Self.row), token("header", Self.header))
        let items = screen("list", "row", "header", "list")
        var render = resolver.render(items, lookups: lookups)
        var rng = SystemRandomNumberGenerator()
        let titles: [JSONValue] = ["Tea", "Cake", .null, 7]
        for round in 0..<300 {
            var paths: [String] = []
            switch Int.random(in: 0..<7, using: &rng) {
            case 0:
                let n = Int.random(in: 0...3, using: &rng)
                try data.set("items", .array((0..<n).map { _ in
                    ["title": titles.randomElement(using: &rng)!, "qty": .int(Int64.random(in: 0...5, using: &rng))]
                }))
                paths = ["items"]
            case 1:
                try? data.set("items[0].qty", .int(Int64.random(in: 0...9, using: &rng)))
                paths = ["items[0].qty"]
            case 2:
                try data.set("cart", ["label": titles.randomElement(using: &rng)!, "total": .int(Int64.random(in: 0...99, using: &rng))])
                paths = ["cart"]
            case 3:
                try data.set("user.name", titles.randomElement(using: &rng)!)
                paths = ["user.name"]
            case 4:
                try data.set("user.lines", Bool.random(using: &rng) ? .int(2) : "many")
                paths = ["user.lines"]
            case 5:
                try data.set("noise", .int(Int64(round)))
                paths = ["noise"]
            default:
                try? data.set("items[1].title", titles.randomElement(using: &rng)!)
                paths = ["items[*].title"]
            }
            let changes = resolver.update(&render, changed: paths)
            let whole = resolver.resolve(items, lookups: lookups)
            #expect(render.tree == whole, "round \(round), changed \(paths)")
            for c in changes {   // each listed node is where the list says
                var n = render.tree.root
                for i in c.path { n = n.children[i] }
                #expect(n == c.node)
            }
            if render.tree != whole { break }
        }
    }
}
