// StoreBenchmark.swift - the scenario-data store under load: set with
// observers, re-resolving a screen after one change, expression evaluation.
#if Server
import Foundation
import SDUI
import SDUICore
import SDUIStore

/// Three measurements of issue 12's store, each with its peer in the same
/// run:
///
/// 1. **set**: `sets` calls of `set("cart.total", n)` on an app-memory
///    store with 10 observers on `cart.total` and 0, 1,000 or 10,000 on
///    unrelated paths (`other.k<i>`).  Observers are the store's change
///    callbacks (what `changes(for:)` and a render sit on), each counting
///    what it receives; a path trie keeps the cost per set flat as the
///    unrelated observers grow.
/// 2. **re-resolve**: a screen of 100 tokens of 10 nodes each (1,001
///    render nodes), every token bound to its own store row by a `{{…}}`
///    placeholder and an `@{…}` expression; one row's title changes and
///    `ScreenResolver.update` re-resolves what it touches, against
///    resolving the whole screen again.
/// 3. **expression**: `cart.total > 0 && user.age >= 18 && 'beta' in
///    user.flags`, compiled once and tested by the C core
///    (`CompiledExpression.isTrue(slots:)`: the store's documents found
///    once, handed over by slot, no result built), against the same
///    condition as a Swift closure over `JSONValue`.
/// 4. **file set**: `fileSets` calls of `set("k<i>.n", n)` on a file-scope
///    store holding 10,000 top-level keys (each `{"n": i, "t": "value i"}`),
///    every call saved before it returns: what a persisted write costs as
///    the store grows.  The figure is the round's time over its sets, so
///    the occasional compaction of the store's journal is in it.
///
/// Every method runs in every round, round-robin, after warm-up rounds;
/// the figures are medians over rounds.
public struct StoreBenchmark {
    public enum Method: String, CaseIterable, Sendable {
        case set0 = "set_10_observers_0_unrelated"
        case set1k = "set_10_observers_1000_unrelated"
        case set10k = "set_10_observers_10000_unrelated"
        case update = "reresolve_after_one_change"
        case resolve = "resolve_whole_screen"
        case exprC = "expression_c_core"
        case exprSwift = "expression_swift_closure"
        case fileSet10k = "file_store_set_10000_keys"
    }

    public struct Result: Sendable {
        /// Median per operation: nanoseconds for sets and evaluations,
        /// milliseconds for resolves.
        public var medians: [Method: Double]
        public var sets: Int
        public var nodes: Int
        public var changedNodes: Int
        public var evaluations: Int
        public var fileSets: Int
    }

    public init() {}

    /// A store with 10 counting observers on `cart.total` and `unrelated`
    /// others; the counter.
    static func setFixture(unrelated: Int) throws -> (ScenarioStore, Locked) {
        let store = DefaultStore(appID: "bench.store.\(unrelated)").store(.appMemory)
        let seen = Locked()
        let total = try KeyPath("cart.total")
        for i in 0..<10 {
            _ = store.addObserver(paths: [total], label: "bench \(i)") { _ in seen.count += 1 }
        }
        for i in 0..<unrelated {
            _ = store.addObserver(paths: [try KeyPath("other.k\(i)")], label: "unrelated \(i)") { _ in seen.count += 1 }
        }
        return (store, seen)
    }

    /// A counter only the mutating thread touches (observers run under the
    /// store's lock).
    final class Locked: @unchecked Sendable { var count = 0 }

    /// The 100-token screen, its lookups, and the store it reads.  With
    /// `lastOfRow0` (a node's JSON), row 0's last static text is that node
    /// instead (the screen benchmark's button); the screen stays 1,001 nodes.
    static func screenFixture(lastOfRow0: String? = nil) throws -> (ScreenPayload, [String: TokenLookup], ScenarioStore) {
        var lookups: [String: TokenLookup] = [:]
        var items: [ScreenPayload.Item] = []
        var rows: [String: StoreValue] = [:]
        for i in 0..<100 {
            var children = [
                #"{"primitive":"Text","props":{"text":"{{rows.r\#(i).title}}"}}"#,
                #"{"primitive":"Text","props":{"text":"@{string(rows.r\#(i).qty * 2)}"}}"#,
            ]
            for j in 0..<7 { children.append(#"{"primitive":"Text","props":{"text":"static \#(i).\#(j)"}}"#) }
            if i == 0, let lastOfRow0 { children[children.count - 1] = lastOfRow0 }
            let json = #"{"id":"row\#(i)","version":1,"primitive":"Column","primitiveVersion":3,"props":{"spacing":8,"children":[\#(children.joined(separator: ","))]}}"#
            let token = try DesignToken(json: json, source: "row\(i)")
            lookups[token.id] = .found(token, .memory)
            items.append(ScreenPayload.Item(id: token.id, bind: nil))
            rows["r\(i)"] = ["title": .string("Row \(i)"), "qty": .integer(i)]
        }
        let store = DefaultStore(appID: "bench.render").store(.appMemory)
        store.replaceAll(with: ["rows": .object(rows)])
        return (ScreenPayload(id: "bench_1000", tokens: items), lookups, store)
    }

    /// A file-scope store in a fresh temporary folder holding `keys`
    /// top-level keys, saved; the folder (remove it when done).
    static func fileFixture(keys: Int) throws -> (ScenarioStore, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sdui-bench-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let store = DefaultStore(appID: "bench.file").store(.file(url: dir.appendingPathComponent("store.json")))
        var root: [String: StoreValue] = [:]
        for i in 0..<keys { root["k\(i)"] = ["n": .integer(i), "t": .string("value \(i)")] }
        store.replaceAll(with: root)
        if let e = store.lastPersistenceError { throw e }
        return (store, dir)
    }

    /// The condition as a Swift closure over the same values.
    static func swiftCondition(_ cart: SDUICore.JSONValue, _ user: SDUICore.JSONValue) -> Bool {
        guard let total = cart["total"]?.doubleValue, let age = user["age"]?.doubleValue,
              let flags = user["flags"]?.arrayValue else { return false }
        return total > 0 && age >= 18 && flags.contains(SDUICore.JSONValue.string("beta"))
    }

    /// Medians of every method over `rounds` rounds (after two warm-up rounds).
    public func measure(rounds: Int, sets: Int = 100_000, evaluations: Int = 100_000,
                        fileSets: Int = 200) throws -> Result {
        let fixtures = try [0, 1_000, 10_000].map { try Self.setFixture(unrelated: $0) }
        // The only reference to the store, dropped before its folder is
        // removed: a store folds its journal into the snapshot when it goes
        // away, which would make the folder again.
        var fileStore: ScenarioStore?
        let fileDir: URL
        do {
            let fixture = try Self.fileFixture(keys: 10_000)
            (fileStore, fileDir) = (fixture.0, fixture.1)
        }
        defer {
            fileStore = nil
            try? FileManager.default.removeItem(at: fileDir)
        }
        let (screen, lookups, store) = try Self.screenFixture()
        var context = RenderContext()
        context.store = store
        let resolver = ScreenResolver(context)
        var render = resolver.render(screen, lookups: lookups)
        guard render.tree.issues.isEmpty else {
            throw SDUIError(.schema, "the benchmark screen degraded: \(render.tree.issues[0])")
        }
        let nodes = render.tree.root.allNodes.count

        let data = DefaultStore(appID: "bench.expr").store(.appMemory)
        data.replaceAll(with: ["cart": ["total": 12.5], "user": ["age": 30, "flags": ["alpha", "beta"]]])
        let condition = try CompiledExpression("cart.total > 0 && user.age >= 18 && 'beta' in user.flags")
        // The roots found once, by slot, as a screen or flow finds them.
        let roots = try ["cart": data.document(root: "cart")!, "user": data.document(root: "user")!]
        let slots = condition.rootNames.map { roots[$0] }
        guard try condition.isTrue(slots: slots), try condition.evaluate(roots: roots) == .bool(true) else {
            throw SDUIError(.schema, "the benchmark condition is not true")
        }
        let cart = data.value(at: try KeyPath("cart"))!, user = data.value(at: try KeyPath("user"))!
        guard Self.swiftCondition(cart, user) else { throw SDUIError(.schema, "the Swift condition is not true") }

        let clock = ContinuousClock()
        var samples: [Method: [Double]] = [:]
        var sink = 0
        var changedNodes = 0
        let changed = [try KeyPath("rows.r50.title")]
        for round in -2..<rounds {
            for (method, (s, seen)) in zip([Method.set0, .set1k, .set10k], fixtures) {
                let before = seen.count
                let t = clock.measure {
                    for n in 0..<sets { _ = s.set("cart.total", .integer(n &+ round &* sets)) }
                }
                guard seen.count - before == 10 * sets else {
                    throw SDUIError(.schema, "observers saw \(seen.count - before) changes, not \(10 * sets)")
                }
                if round >= 0 { samples[method, default: []].append(t.milliseconds * 1e6 / Double(sets)) }
            }
            let file = fileStore!
            let fs = clock.measure {
                for n in 0..<fileSets { _ = file.set("k\((n &* 37 &+ (round &+ 2) &* 11) % 10_000).n", .integer(n &+ round)) }
            }
            if let e = file.lastPersistenceError { throw e }
            if round >= 0 { samples[.fileSet10k, default: []].append(fs.milliseconds * 1e6 / Double(fileSets)) }
            store.set("rows.r50.title", .string("Row 50, round \(round)"))
            var changes: [RenderNodeChange] = []
            let u = clock.measure { changes = resolver.update(&render, changed: changed) }
            changedNodes = changes.count
            var whole: RenderTree?
            let w = clock.measure { whole = resolver.resolve(screen, lookups: lookups) }
            guard whole == render.tree else { throw SDUIError(.schema, "the update and a whole resolve disagree") }
            var hits = 0
            let c = clock.measure {
                for _ in 0..<evaluations where (try? condition.isTrue(slots: slots)) == true { hits += 1 }
            }
            let f = clock.measure {
                for _ in 0..<evaluations where Self.swiftCondition(cart, user) { hits += 1 }
            }
            sink &+= hits
            guard round >= 0 else { continue }
            samples[.update, default: []].append(u.milliseconds)
            samples[.resolve, default: []].append(w.milliseconds)
            samples[.exprC, default: []].append(c.milliseconds * 1e6 / Double(evaluations))
            samples[.exprSwift, default: []].append(f.milliseconds * 1e6 / Double(evaluations))
        }
        precondition(sink > 0)
        return Result(medians: samples.mapValues { FirstPaintBenchmark.median($0) }, sets: sets, nodes: nodes,
                      changedNodes: changedNodes, evaluations: evaluations, fileSets: fileSets)
    }
}
#endif
