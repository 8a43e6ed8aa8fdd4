// ResolveBenchmark.swift - resolving a 50-token screen vs decoding its tree with JSONDecoder.
#if Server
import Foundation
import SDUI

/// Resolves a 50-token screen whose tokens sit in a warm memory LRU, side
/// by side with decoding the same resolved tree from its JSON with
/// `JSONDecoder` (and, for scale, `JSONSerialization`).
///
/// The screen is the example screens' items in file order, with their
/// bindings, cut to 50; the theme is the example Nordlicht theme.  Each
/// resolve round looks every id up in the cache and resolves the screen.
public struct ResolveBenchmark {
    public enum Method: String, CaseIterable, Sendable {
        case resolve
        case jsonDecoder
        case jsonSerialization
    }

    public struct Result: Sendable {
        public var medians: [Method: Double]
        public var tokens: Int
        public var nodes: Int
        public var treeBytes: Int
    }

    let examples: URL

    /// `examples` is the Examples folder (tokens, screens, themes).
    public init(examples: URL) { self.examples = examples }

    /// The 50-item screen and a cache holding its tokens.
    func fixture() throws -> (ScreenPayload, TokenCache, RenderContext) {
        let pack = try CorePack(contentsOf: examples.appendingPathComponent("core-pack.json.gz"))
        let dir = examples.appendingPathComponent("screens")
        var items: [ScreenPayload.Item] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where file.hasSuffix(".json") {
            let data = try Data(contentsOf: dir.appendingPathComponent(file))
            items += try ScreenPayload(json: data, source: file).tokens
        }
        guard items.count >= 50 else { throw SDUIError(.argument, "the example screens hold \(items.count) items, not 50") }
        let screen = ScreenPayload(id: "bench_50", tokens: Array(items.prefix(50)))
        let cache = try TokenCache()
        for item in screen.tokens where cache.get(item.id) == nil {
            guard let t = try pack.token(item.id) else {
                throw SDUIError(.notFound, "no token \(item.id)", input: "core-pack.json.gz")
            }
            try cache.put(t)
        }
        var context = RenderContext()
        let theme = try Theme(contentsOf: examples.appendingPathComponent("themes/theme_nordlicht.json"))
        context.themes = ThemeCatalog([theme])
        context.strings = try pack.strings()   // the example pack carries the catalogs its tokens name
        context.flowThemeID = theme.id
        return (screen, cache, context)
    }

    /// Resolves once from the cache.
    static func resolve(_ screen: ScreenPayload, _ cache: TokenCache, _ resolver: ScreenResolver) -> RenderTree {
        var lookups: [String: TokenLookup] = [:]
        for item in screen.tokens where lookups[item.id] == nil {
            lookups[item.id] = cache.get(item.id).map { .found($0, .memory) } ?? .offline
        }
        return resolver.resolve(screen, lookups: lookups)
    }

    /// Median milliseconds of each method over `rounds` rounds (after warm-up).
    public func measure(rounds: Int) throws -> Result {
        let (screen, cache, context) = try fixture()
        let resolver = ScreenResolver(context)
        let tree = Self.resolve(screen, cache, resolver)
        guard tree.issues.isEmpty else {
            throw SDUIError(.schema, "the benchmark screen degraded: \(tree.issues[0])")
        }
        let json = try tree.jsonData()
        let decoder = JSONDecoder()
        guard try decoder.decode(RenderTree.self, from: json) == tree else {
            throw SDUIError(.schema, "the tree does not survive a JSON round trip")
        }
        let clock = ContinuousClock()
        var samples: [Method: [Double]] = [:]
        var sink = 0
        for round in -3..<rounds {   // three warm-up rounds
            let r = clock.measure { sink &+= Self.resolve(screen, cache, resolver).root.children.count }
            let d = clock.measure { sink &+= (try? decoder.decode(RenderTree.self, from: json))?.root.children.count ?? 0 }
            let s = clock.measure { sink &+= ((try? JSONSerialization.jsonObject(with: json)) as? NSDictionary)?.count ?? 0 }
            guard round >= 0 else { continue }
            samples[.resolve, default: []].append(r.milliseconds)
            samples[.jsonDecoder, default: []].append(d.milliseconds)
            samples[.jsonSerialization, default: []].append(s.milliseconds)
        }
        precondition(sink > 0)
        return Result(medians: samples.mapValues { FirstPaintBenchmark.median($0) }, tokens: screen.tokens.count,
                      nodes: tree.root.allNodes.count, treeBytes: json.count)
    }
}
#endif
