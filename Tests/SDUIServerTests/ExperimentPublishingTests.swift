// ExperimentPublishingTests.swift - experiments from import to the app:
// import checks them and names each fault by file and JSON path; the
// registry exports their weights for the SRM alert; the app assigns from
// the registry's list, from the list kept in its disk cache, and from the
// Fallback Pack, alike.
#if Server
import Foundation
import SDUI
import SDUICore
import SDUIRegistryKit
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct ExperimentPublishingTests: RegistryServerFixtures {
    let importer = RegistryImporter(imagePolicy: .anyHTTPSHost)

    /// A folder in the Examples layout: a copy of Examples' tokens and
    /// screens with `experiments` files.
    func layout(_ experiments: [String: String]) throws -> URL {
        let dir = Fixtures.temporaryDirectory()
        let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
        for sub in ["tokens", "screens"] {
            try FileManager.default.copyItem(at: examples.appendingPathComponent(sub), to: dir.appendingPathComponent(sub))
        }
        let exp = dir.appendingPathComponent("experiments")
        try FileManager.default.createDirectory(at: exp, withIntermediateDirectories: true)
        for (name, text) in experiments { try Data(text.utf8).write(to: exp.appendingPathComponent(name)) }
        return dir
    }

    @Test(arguments: StoreKind.allCases)
    func theExamplesExperimentImportsAndIsServed(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let r = try await importer.importInto(store, from: Fixtures.repositoryRoot.appendingPathComponent("Examples"))
            #expect(r.experiments == 1)
            let contents = try await RegistryContents.load(store)
            #expect(contents.experiments["checkout-promo-prefill"]?.variations.map(\.id) == ["control", "prefilled"])
            #expect(contents.runningExperiments.map(\.key) == ["checkout-promo-prefill"])
        }
    }

    /// Every fault is named with its file and JSON path, and nothing of the
    /// import is written.
    @Test func brokenExperimentsAreRefusedWithTheirPaths() async throws {
        try await withStore(.sqlite) { store in
            let dir = try layout([
                "a.json": #"{"key":"a","variations":[{"id":"control"},{"id":"b","screens":{"checkout":"nowhere"}}]}"#,
                "b.json": #"{"key":"b","variations":[{"id":"control"},{"id":"x","tokens":{"no_token":"checkout_header"}}]}"#,
                "c.json": #"{"key":"c d","variations":[{"id":"control"},{"id":"e f"}]}"#,
                "d.json": #"{"key":"d","weights":[0.5,0.6],"variations":[{"id":"a"},{"id":"b"}]}"#,
                "e.json": #"{"key":"a","variations":[{"id":"control"},{"id":"z"}]}"#,
                "f.json": #"{"key":"f","variations":[{"id":"control"},{"id":"green","tokens":{"checkout_pay_button":"checkout_header"}}]}"#,
            ])
            let strict = RegistryImporter(imagePolicy: .anyHTTPSHost, supportedApps: [try PrimitiveMap(parsing: "Text@1")])
            do {
                _ = try await strict.importInto(store, from: dir)
                Issue.record("broken experiments were imported")
            } catch let e as RegistryError {
                let m = e.message
                #expect(m.contains("a (a.json): experiment: $.variations[1].screens.checkout: no screen \"nowhere\""), "\(m)")
                #expect(m.contains("b (b.json): experiment: $.variations[1].tokens.no_token: no token \"no_token\" to replace"), "\(m)")
                #expect(m.contains("c d (c.json): experiment: $.key:") && m.contains("$.variations[1].id: \"e f\""), "\(m)")
                #expect(m.contains("d.json): experiment:") && m.contains("$.weights"), "\(m)")
                #expect(m.contains("a (e.json): duplicate: experiment given twice"), "\(m)")
                #expect(m.contains("f (f.json): experiment: $.variations[1]: no supported app version can render it"), "\(m)")
            }
            #expect(try await store.generation() == 0, "nothing of a refused import is written")
            // The registry's own screens and tokens count: an experiment naming them imports alone.
            _ = try await importer.importInto(store, from: try layout([:]))
            let alone = Fixtures.temporaryDirectory()
            try FileManager.default.createDirectory(at: alone.appendingPathComponent("tokens"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: alone.appendingPathComponent("experiments"), withIntermediateDirectories: true)
            try Data(#"{"key":"g","status":"running","variations":[{"id":"control"},{"id":"b","screens":{"checkout":"login"}}]}"#.utf8)
                .write(to: alone.appendingPathComponent("experiments/g.json"))
            #expect(try await importer.importInto(store, from: alone).experiments == 1)
        }
    }

    /// The registry exports each running experiment's weights and its
    /// chi-square critical value; a stopped one's are removed.
    @Test func weightsAndCriticalValuesAreExported() async throws {
        try await withStore(.sqlite) { store in
            try await store.putExperiments([
                StoredExperiment(key: "two", json: Data(#"{"key":"two","status":"running","weights":[0.25,0.75],"variations":[{"id":"a"},{"id":"b"}]}"#.utf8)),
                StoredExperiment(key: "three", json: Data(#"{"key":"three","status":"running","weights":[0.5,0.25,0.25],"variations":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#.utf8)),
            ])
            let server = try await startServer(store)
            func metrics() async throws -> String {
                String(decoding: try await HTTPClient(timeout: 30, maxBodyBytes: 1 << 22)
                    .get(URL(string: "metrics", relativeTo: server.baseURL)!.absoluteURL).body, as: UTF8.self)
            }
            func sample(_ page: String, _ name: String) -> Double? {
                page.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
            }
            var page = try await metrics()
            #expect(sample(page, #"sdui_experiment_weight{experiment="two",variation="b"}"#) == 0.75, "\(page)")
            #expect(sample(page, #"sdui_experiment_weight{experiment="three",variation="c"}"#) == 0.25)
            #expect(sample(page, #"sdui_experiment_srm_critical{experiment="two"}"#).map { abs($0 - 10.828) < 0.001 } == true, "\(page)")
            #expect(sample(page, #"sdui_experiment_srm_critical{experiment="three"}"#).map { abs($0 - 13.816) < 0.001 } == true)
            try await store.putExperiments([
                StoredExperiment(key: "two", json: Data(#"{"key":"two","status":"stopped","variations":[{"id":"a"},{"id":"b"}]}"#.utf8)),
            ])
            try await server.server.refresh()
            page = try await metrics()
            #expect(!page.contains(#"experiment="two""#), "\(page)")
            #expect(page.contains(#"sdui_experiment_weight{experiment="three",variation="c"}"#))
            await server.stop()
        }
    }

    /// The app assigns from the registry's list; with the registry gone,
    /// from the list its disk cache kept; on a first run offline, from the
    /// Fallback Pack: the same variation for every user each time.
    @Test func theAppAssignsOfflineFromItsDiskCacheAndTheFallbackPack() async throws {
        try await withStore(.sqlite) { store in
            _ = try await importer.importInto(store, from: Fixtures.repositoryRoot.appendingPathComponent("Examples"))
            let server = try await startServer(store)
            let dir = Fixtures.temporaryDirectory()
            let disk = try DiskCache(path: dir.appendingPathComponent("cache.sqlite").path)
            let transport = HTTPRegistryTransport(baseURL: server.baseURL, timeout: 5)
            let online = await ExperimentSource(transport: transport, disk: disk).load()
            #expect(online.origin == .registry && online.problems.isEmpty, "\(online.problems)")
            #expect(online.assigners.map(\.experiment.key) == ["checkout-promo-prefill"])
            // Revalidated: a 304, still the registry's list.
            #expect(await ExperimentSource(transport: transport, disk: disk).load().origin == .registry)
            await server.stop()

            let offline = await ExperimentSource(transport: transport, disk: disk).load()
            #expect(offline.origin == .diskCache)
            #expect(offline.problems.contains { $0.contains("registry") })
            let reopened = try DiskCache(path: dir.appendingPathComponent("cache.sqlite").path)
            #expect(await ExperimentSource(transport: transport, disk: reopened).load().origin == .diskCache)

            // A Fallback Pack built from the registry carries the running experiments.
            let contents = try await RegistryContents.load(store)
            let planner = CorePackPlanner()
            let byID = Dictionary(uniqueKeysWithValues: contents.packCandidates(for: .builtIn).map { ($0.id, $0) })
            let packData = try planner.fallbackPack(critical: ["checkout"], screens: contents.screens, tokens: { byID[$0] },
                                                    experiments: contents.runningExperiments)
            let pack = try FallbackPack(pack: CorePack(data: packData, name: "fallback"))
            let first = await ExperimentSource(transport: transport, disk: nil, fallbackPack: pack).load()
            #expect(first.origin == .fallbackPack)
            #expect(await ExperimentSource(transport: nil).load().origin == ExperimentSource.Origin.none)

            for i in 0..<2_000 {
                let attrs: [String: JSONValue] = ["id": .string("u\(i)"), "platform": .string(i % 2 == 0 ? "ios" : "web")]
                let a = online.assigners[0].assign(attrs)
                #expect(offline.assigners[0].assign(attrs) == a)
                #expect(first.assigners[0].assign(attrs) == a)
            }
        }
    }

    /// A Fallback Pack's experiments are checked when it opens.
    @Test func aFallbackPackWithABadExperimentIsRefused() throws {
        let doc = #"{"formatVersion":1,"tokens":[],"experiments":[{"key":"k","variations":[{"id":"a"}],"weights":"x"}]}"#
        let gz = try CorePackBuilder.gzip(Data(doc.utf8), level: 6)
        do {
            _ = try FallbackPack(pack: CorePack(data: gz, name: "bad.gz"))
            Issue.record("a bad experiment opened")
        } catch let e as SDUIError {
            #expect(e.message.contains("experiments[0]"), "\(e)")
        }
    }

    /// The header's format, both ways, and what is refused.
    @Test func servedVariationsRoundTripAndBadEntriesAreNamed() throws {
        let entries = [ServedVariation(experiment: "a", variation: "b", phase: 2, eligible: true),
                       ServedVariation(experiment: "x.y", variation: "c:1", phase: 1, eligible: false)]
        let header = try #require(ServedVariation.headerValue(entries))
        #expect(header == "a=b;phase=2, x.y=c:1;phase=1;ineligible")
        #expect(try ServedVariation.parse(header: header) == entries)
        for (bad, says) in [("a", "entry 0"), ("a=b", "no phase"), ("a=b;phase=0", "unknown parameter"),
                            ("a=b;phase=1, =c;phase=1", "entry 1"), ("a=b;phase=1;x", "unknown parameter")] {
            do {
                _ = try ServedVariation.parse(header: bad)
                Issue.record("\(bad) parsed")
            } catch let e as SDUIError {
                #expect(e.category == .http && e.message.contains(says), "\(bad): \(e)")
            }
        }
    }

    /// The critical values the alert compares with are the chi-square
    /// quantiles at p = 0.001 (published tables: 10.828, 13.816, 16.266).
    @Test func criticalValuesAreTheQuantiles() throws {
        for (k, value) in [(1, 10.828), (2, 13.816), (3, 16.266), (10, 29.588)] {
            let c = try #require(SampleRatio.criticalChiSquare(degreesOfFreedom: k))
            #expect(abs(c - value) < 0.001, "\(k): \(c)")
        }
        #expect(SampleRatio.criticalChiSquare(degreesOfFreedom: 0) == nil)
        #expect(SampleRatio.criticalChiSquare(degreesOfFreedom: 1, pValue: 1) == nil)
    }
}
#endif
