// DemoCommand.swift - `sdui demo`: registry, pack, repository and render tree end to end.
#if Server
import ArgumentParser
import Foundation
import Logging
import SDUI
import SDUICLI
import SDUICore
import SDUIFlow
import SDUIRegistryKit
import SDUIServer
import SDUIStore
#if canImport(Glibc)
import Glibc
#endif

/// The end-to-end demo (the README's main job):
///
/// 1. publishes Examples/ into an SQLite registry and builds a core pack
///    from it (ranked by Examples/usage.json, cut to a small budget so the
///    network has work to do) and a Fallback Pack for checkout and login;
/// 2. starts the registry on 127.0.0.1 (signed tokens, bearer auth);
/// 3. loads every example screen through a ``ScreenLoader`` (screen and
///    tokens over HTTP, kept in the disk cache) and prints, per screen, its
///    first-paint time, where the payload and each token came from and the
///    hit ratio, and writes HTML previews;
/// 4. does it again with an empty memory cache (the disk cache at work),
///    stops the server, and shows offline rendering: first with the warm
///    disk cache (payloads and tokens kept from the online runs), then as a
///    new device with nothing cached (the Fallback Pack's screens for
///    checkout and login; the other screens cannot be shown).
///
/// The disk cache is kept in OUT between runs, so a second `sdui demo`
/// starts warm; `--fresh` empties it.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the registry on 127.0.0.1 and load the example screens through it (online, warm, offline).",
        discussion: """
        Example:
          sdui demo --examples Examples --out .build/demo --budget 2500
        """)

    @OptionGroup var output: OutputOptions

    @Option(help: "The Examples folder.")
    var examples = "Examples"

    @Option(help: "Where the registry, packs, caches and HTML previews go.")
    var out = ".build/demo"

    @Option(help: "Core pack budget for the demo, in gzip bytes (small, so some tokens come over the network).")
    var budget = 2500

    /// The budget in range before anything starts.
    func validate() throws { try checkRange(budget, in: 1...(1 << 30), "--budget", unit: "bytes") }

    @Flag(help: "Start with an empty disk cache.")
    var fresh = false

    func run() async throws {
        // The offline phases make the repository log every failed fetch;
        // the tables say what happened, so only errors are printed.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .error
            return handler
        }
        try await reportingErrors { try await demo() }
    }

    func demo() async throws {
        let dir = URL(fileURLWithPath: out)
        let previews = dir.appendingPathComponent("previews")
        try FileManager.default.createDirectory(at: previews, withIntermediateDirectories: true)
        let cachePath = dir.appendingPathComponent("cache.db").path
        if fresh { Self.remove(cachePath) }
        let registryPath = dir.appendingPathComponent("registry.db").path
        Self.remove(registryPath)

        // 1. Registry and packs.
        let store = try await SQLiteRegistryStore(path: registryPath, logger: quietLogger("sdui.registry.sqlite"))
        try await store.closing {
            try await demo(store: store, dir: dir, previews: previews, cachePath: cachePath, registryPath: registryPath)
        }
    }

    /// Steps 1 to 4 with the registry open.
    func demo(store: SQLiteRegistryStore, dir: URL, previews: URL, cachePath: String, registryPath: String) async throws {
        try await store.migrate()
        let importer = RegistryImporter(imagePolicy: try ImageURLPolicy(allowedHosts: ["cdn.sdui.example.com"]))
        let imported = try await importer.importInto(store, from: URL(fileURLWithPath: examples))
        say("registry  \(registryPath): \(imported.added) token versions, \(imported.screens) screens")
        let contents = try await RegistryContents.load(store)
        let candidates = contents.packCandidates(for: .builtIn)
        var planner = CorePackPlanner()
        planner.budgetBytes = budget
        let usage = try UsageTelemetry(contentsOf: URL(fileURLWithPath: examples).appendingPathComponent("usage.json"))
        let build = try planner.build(candidates, usage: usage)
        let packURL = dir.appendingPathComponent("core-pack.json.gz")
        try build.pack.write(to: packURL)
        say("core pack \(packURL.path): \(build.manifest.tokens.count) of \(candidates.count) tokens by usage, "
              + "\(build.pack.count) bytes gzipped (budget \(budget))")
        let byID = Dictionary(uniqueKeysWithValues: candidates.map { ($0.id, $0) })
        let fallbackURL = dir.appendingPathComponent("fallback-pack.json.gz")
        // The onboarding flow rides along, with its theme, for a first run offline.
        let flowTheme = try Theme(contentsOf: URL(fileURLWithPath: examples).appendingPathComponent("themes/theme_mint_dark.json"))
        try planner.fallbackPack(critical: ["checkout", "login"], screens: contents.screens, tokens: { byID[$0] },
                                 flows: [contents.flows["onboarding"]].compactMap { $0 },
                                 themes: [Data(flowTheme.jsonValue.jsonText.utf8)])
            .write(to: fallbackURL)
        let fallback = try FallbackPack(contentsOf: fallbackURL)
        say("fallback  \(fallbackURL.path): screens for \(fallback.screens.keys.sorted().joined(separator: ", "))")

        // 2. Server with signed tokens and bearer auth.
        let signing = try TokenSigner(hs256Secret: Self.randomKey())
        let access = try TokenSigner(hs256Secret: Self.randomKey())
        var config = RegistryServerConfiguration()
        config.port = 0
        config.signer = signing
        config.access = AccessTokenVerifier(verifier: try TokenVerifier(key: access.verificationKey))
        let running = try await RegistryServer(store: store, configuration: config, logger: quietLogger("sdui.server")).start()
        print("server    \(running.baseURL) (HS256-signed tokens, bearer auth)\n")
        let bearer = try AccessTokenIssuer(signer: access).issue(subject: "demo")
        let transport = HTTPRegistryTransport(baseURL: running.baseURL, primitives: PrimitiveMap.builtIn.headerValue,
                                           bearerToken: bearer, timeout: 5)
        let pack = try CorePack(contentsOf: packURL)
        var repoConfig = TokenRepository.Configuration()
        repoConfig.verifier = try TokenVerifier(key: signing.verificationKey)
        repoConfig.imagePolicy = try ImageURLPolicy(allowedHosts: ["cdn.sdui.example.com"])
        func repository(disk path: String, online: Bool) throws -> TokenRepository {
            TokenRepository(pack: pack, memory: try TokenCache(), diskPath: path,
                            transport: online ? transport : HTTPRegistryTransport(baseURL: running.baseURL, timeout: 1),
                            configuration: repoConfig)
        }
        var context = RenderContext()
        context.themes = ThemeCatalog([try Theme(contentsOf: URL(fileURLWithPath: examples)
            .appendingPathComponent("themes/theme_nordlicht.json"))])
        context.flowThemeID = "theme_nordlicht"
        context.strings = try StringFolder.catalog(URL(fileURLWithPath: examples).appendingPathComponent("strings"),
                                                   defaultLocale: "en")
        context.fallbackPack = fallback
        context.logger = quietLogger("sdui.render")
        let resolver = ScreenResolver(context)
        let screenIDs = ["onboarding_welcome", "onboarding_goal", "onboarding_profile", "login", "checkout", "team_page"]

        // 3. and 4.
        // Asked before the repository opens (and so creates) the file.
        let keptCache = FileManager.default.fileExists(atPath: cachePath)
        let firstRepo = try repository(disk: cachePath, online: true)
        try await phase("1. online" + (keptCache ? " (disk cache kept from an earlier run)" : ""),
                        screenIDs, repo: firstRepo, resolver: resolver, previews: previews, prefix: "")
        try await phase("2. online again, with an empty memory cache: the disk cache at work", screenIDs,
                        repo: try repository(disk: cachePath, online: true), resolver: resolver,
                        previews: previews, prefix: nil)
        try await flowPhase(running: running, store: store, bearer: bearer, dir: dir)
        try await screensPhase(repository: try repository(disk: cachePath, online: true), resolver: resolver,
                               running: running, store: store, bearer: bearer, dir: dir, budget: budget,
                               candidates: candidates)
        await running.stop()
        print("server stopped\n")
        try await phase("3. offline, warm disk cache: payloads and tokens kept from the online runs", screenIDs,
                        repo: try repository(disk: cachePath, online: false), resolver: resolver, previews: previews, prefix: nil)
        let emptyCache = dir.appendingPathComponent("cache-new-device.db").path
        Self.remove(emptyCache)
        try await phase("4. offline, a new device (core pack only): the Fallback Pack's screens", screenIDs,
                        repo: try repository(disk: emptyCache, online: false), resolver: resolver,
                        previews: previews, prefix: "offline-")
        try await firstRunOffline(fallback: fallback, dir: dir)
        print("HTML previews: \(previews.path)/<screen>.html (online) and offline-<screen>.html")
    }

    /// 6. The checkout acting and reporting: a tap whose validation fails,
    /// the promo applied, a request to the app's API written into the
    /// store, a navigation and back; the events at the registry, the usage
    /// file the registry makes of them, and a pack ranked by it.
    func screensPhase(repository: TokenRepository, resolver: ScreenResolver, running: RunningRegistry,
                      store: SQLiteRegistryStore, bearer: String, dir: URL, budget: Int,
                      candidates: [PackCandidate]) async throws {
        print("6. screens act and report: the checkout's buttons, its events at the registry, the usage loop")
        let api = try await DemoAPI.start(logger: quietLogger("sdui.demo.api"))
        let outboxPath = dir.appendingPathComponent("screen-outbox.sqlite").path
        Self.remove(outboxPath)
        let outbox = try FlowJournal(path: outboxPath, limits: .init(fullSync: false))
        let data = DefaultStore(appID: "sdui.demo").store(.scenarioSession(id: "demo-checkout"))
        try data.setValidation(ValidationOptions(mode: .strict, schema: [
            "promoCode": ValidationRule(kind: .string, pattern: "^[A-Z0-9]{4,12}$")]))
        let loader = ScreenLoader(repository: repository, resolver: resolver, logger: quietLogger("sdui.screens"))
        let session = ScreenSession(provider: loader, resolver: resolver, store: data, journal: outbox,
                                    configuration: .init(userID: "demo", logger: quietLogger("sdui.screen"),
                                                         apiBase: api.baseURL))
        func field() -> RenderNode? { session.input(for: "promoCode") }
        do {
            _ = try await session.open("checkout")
            var u = try await session.tap("Apply")
            print("  tap \"Apply\" (empty code)     → \(Self.describe(u.step)); the field shows \"\(field()?.props["message"]?.stringValue ?? "")\"")
            u = try session.input("promoCode", "autumn 15")
            print("  type \"autumn 15\"              → refused by the store's pattern: \"\(field()?.props["message"]?.stringValue ?? "")\"")
            u = try session.input("promoCode", "AUTUMN15")
            u = try await session.tap("Apply")
            print("  type \"AUTUMN15\", tap \"Apply\" → cart.promoCode = \(data.get("cart.promoCode")?.jsonValue.scalarText ?? "-"), "
                  + "\(u.changes.count) node(s) changed")
            u = try await session.tap("Add")
            print("  tap \"Add\"                    → POST \(api.baseURL.absoluteString)cart/items: cart.added = "
                  + Self.compact(data.get("cart.added")?.jsonValue ?? .null))
            u = try await session.tap("Change")
            print("  tap \"Change\"                 → \(Self.describe(u.step)), back stack \(session.backStack)")
            u = try await session.tap("Use this address")
            print("  tap \"Use this address\"       → \(Self.describe(u.step))")
        } catch {
            await api.stop()
            throw error
        }
        await api.stop()
        let uploader = EventUploader(journal: outbox, configuration: .init(
            endpoint: running.baseURL.appendingPathComponent("events"), headers: ["Authorization": "Bearer \(bearer)"]))
        let sent = try await uploader.flush()
        let names = session.emittedEvents
        print("  events: \(names.count) committed (\(Self.tally(names))); sent: \(sent.events) in \(sent.batches) batch(es)")
        let atServer = try await store.events(limit: 100_000).filter { $0.userID == "demo" && $0.flowID.isEmpty }
        print("  stored by the registry for this session: \(atServer.count) (\(Set(atServer.map(\.id)).count) distinct ids)")
        // The usage job over this week, then a pack ranked by it.
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: Date())
        let week = String(format: "%04d-W%02d", now.yearForWeekOfYear ?? 0, now.weekOfYear ?? 0)
        let period = try UsagePeriod(isoWeek: week)
        let counts = try await store.tokenUsage(fromMilliseconds: period.fromMilliseconds, toMilliseconds: period.toMilliseconds)
        let usage = UsageTelemetry(counts: counts, period: week)
        let usageURL = dir.appendingPathComponent("usage-from-events.json")
        try usage.json.write(to: usageURL)
        let top = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(3)
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("  sdui registry usage --period \(week): \(counts.count) token(s) shown (\(top)…) → \(usageURL.path)")
        var planner = CorePackPlanner()
        planner.budgetBytes = budget
        let build = try planner.build(candidates, usage: usage)
        let packURL = dir.appendingPathComponent("core-pack-from-usage.json.gz")
        try build.pack.write(to: packURL)
        print("  sdui pack build --usage-period \(week): \(build.manifest.tokens.count) of \(candidates.count) tokens, "
              + "\(build.pack.count) bytes gzipped → \(packURL.path)\n")
    }

    /// 7. A new device with no network starts the onboarding flow from the
    /// Fallback Pack (the registry is stopped; nothing is kept).
    func firstRunOffline(fallback: FallbackPack, dir: URL) async throws {
        print("7. a new device, no network: onboarding starts from the Fallback Pack")
        let path = dir.appendingPathComponent("flow-new-device.sqlite").path
        Self.remove(path)
        let journal = try FlowJournal(path: path)
        let loader = FlowLoader(registry: URL(string: "http://127.0.0.1:9/")!, journal: journal,
                                client: HTTPClient(timeout: 2, maxBodyBytes: 1 << 20), logger: quietLogger("sdui.flow.loader"),
                                fallbackPack: fallback)
        let (flow, source) = try await loader.load("onboarding")
        let session = try FlowSession(definition: flow, journal: journal,
                                      configuration: .init(userID: "new-device", logger: quietLogger("sdui.flow")))
        var steps = [try session.start()]
        steps.append(try session.next())
        print("  flow \(flow.id) v\(flow.version) from \(source.rawValue) (themes in the pack: "
              + fallback.themes.map(\.id).joined(separator: ", ") + "): "
              + steps.map(Self.describe).joined(separator: " → ") + "; events queued for later: \(try journal.stats().events)\n")
    }

    /// A step in words.
    static func describe(_ step: FlowStep) -> String {
        switch step {
        case .screen(let id): return id
        case .stayed(let why): return "stayed (\(why))"
        case .completed: return "completed"
        case .exited: return "exited"
        }
    }

    /// `screen_view ×3, action ×5, …`: names counted in first-seen order.
    static func tally(_ names: [String]) -> String {
        var order: [String] = [], n: [String: Int] = [:]
        for name in names {
            if n[name] == nil { order.append(name) }
            n[name, default: 0] += 1
        }
        return order.map { n[$0]! > 1 ? "\($0) ×\(n[$0]!)" : $0 }.joined(separator: ", ")
    }

    /// 5. The example flow fetched from the registry by a child `sdui flow
    /// run`, killed with SIGKILL mid-flow, resumed by a second child that
    /// finishes it; both send their events to POST /events.  Shows that
    /// the server holds every event of the session exactly once.
    func flowPhase(running: RunningRegistry, store: SQLiteRegistryStore, bearer: String, dir: URL) async throws {
        print("5. a flow that survives a kill: onboarding from GET /flows/onboarding, events to POST /events")
        let state = dir.appendingPathComponent("flow-state.sqlite").path
        for suffix in ["", "-wal", "-shm"] { Self.remove(state + suffix) }
        let events = running.baseURL.appendingPathComponent("events").absoluteString
        let common = ["flow", "run", "onboarding", "--registry", running.baseURL.absoluteString, "--events", events,
                      "--bearer", bearer, "--state", state, "--user", "demo", "--trace"]
        let script1 = dir.appendingPathComponent("flow-run-1.json")
        try Data(#"["next", {"answer": {"goal": "strength"}}, "next", {"answer": {"days_per_week": 4}}, "next", "next"]"#.utf8)
            .write(to: script1)
        let script2 = dir.appendingPathComponent("flow-run-2.json")
        try Data(#"[{"answer": {"days_per_week": 4}}, "next", {"answer": {"name": "Ada"}}, "next", "next"]"#.utf8)
            .write(to: script2)
        let me = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])

        // Run 1: killed with SIGKILL right after it committed the step into screen_strength.
        let p1 = Process()
        p1.executableURL = me
        p1.arguments = common + ["--script", script1.path, "--step-delay-ms", "300"]
        let err1 = Pipe()
        p1.standardError = err1
        p1.standardOutput = FileHandle.nullDevice
        try p1.run()
        var seen = ""
        while !seen.contains(" screen_strength\n") {
            let chunk = err1.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        kill(p1.processIdentifier, SIGKILL)
        p1.waitUntilExit()
        let acks1 = Self.screens(seen)
        print("  run 1  " + acks1.joined(separator: " → ") + "   killed: SIGKILL to pid \(p1.processIdentifier)")

        // Run 2: resumes from the state file and finishes.
        let p2 = Process()
        p2.executableURL = me
        p2.arguments = common + ["--script", script2.path]
        let out2 = Pipe(), err2 = Pipe()
        p2.standardOutput = out2
        p2.standardError = err2
        try p2.run()
        let result = try JSONValue(json: out2.fileHandleForReading.readDataToEndOfFile(), source: "sdui flow run")
        let trace2 = String(decoding: err2.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p2.waitUntilExit()
        let acks2 = Self.screens(trace2)
        print("  run 2  " + acks2.joined(separator: " → ") + "   status: \(result["status"]?.stringValue ?? "?"), "
              + "answers: \(Self.compact(result["answers"] ?? [:]))")

        // The server's side.
        let stored = try await store.events(limit: 100_000).filter { $0.userID == "demo" }
        let seqs = stored.compactMap { (try? JSONValue(json: $0.json))?["seq"]?.intValue }.sorted()
        let journal = try FlowJournal(path: state)
        let progress = try journal.state("flow/onboarding/demo").flatMap { try? JSONDecoder().decode(FlowProgress.self, from: $0) }
        let emitted = progress?.eventSeq ?? 0
        let exactlyOnce = seqs == (emitted > 0 ? Array(1...Int64(emitted)) : [])
        print("  events emitted by the two runs: \(emitted); stored by the server: \(stored.count) "
              + "(\(Set(stored.map(\.id)).count) distinct ids); still queued on the device: \(try journal.stats().events)")
        print("  every event exactly once at the server: \(exactlyOnce ? "yes" : "NO")\n")
        guard exactlyOnce else {
            throw SDUIError(.io, "the server holds events \(seqs), not 1…\(emitted) once each", input: "sdui demo")
        }
    }

    /// Loads every screen once and prints a line for each.
    func phase(_ title: String, _ ids: [String], repo: TokenRepository, resolver: ScreenResolver,
               previews: URL, prefix: String?) async throws {
        print(title)
        print("  screen              first paint  payload       pack  memory  disk  network  skeleton  hit ratio  shown")
        let loader = ScreenLoader(repository: repo, resolver: resolver, logger: quietLogger("sdui.screens"))
        var totals: [TokenSource: Int] = [:]
        var lookups = 0
        for id in ids {
            let clock = ContinuousClock()
            let start = clock.now
            let screen: LoadedScreen
            do {
                screen = try await loader.load(id)
            } catch let e as SDUIError where e.category == .network {
                say("  " + id.padding(toLength: 18, withPad: " ", startingAt: 0) + "   not cached and offline: nothing to show")
                continue
            }
            let ms = (clock.now - start).milliseconds
            var count: [TokenSource: Int] = [:]
            var skeletons = 0
            for l in screen.lookups.values {
                switch l {
                case .found(_, let s): count[s, default: 0] += 1
                case .offline: skeletons += 1
                case .unavailable: break
                }
            }
            for (k, v) in count { totals[k, default: 0] += v }
            let asked = screen.lookups.count
            lookups += asked
            let tree = screen.tree
            let shown = tree.renderedScreen == id ? "" : "→ \(tree.renderedScreen)"
            say("  " + id.padding(toLength: 18, withPad: " ", startingAt: 0)
                  + String(format: "%9.2f ms  ", ms) + screen.source.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
                  + String(format: "%4d %7d %5d %8d %9d %9.0f%%  ", count[.pack] ?? 0, count[.memory] ?? 0,
                           (count[.disk] ?? 0) + (count[.stale] ?? 0), (count[.network] ?? 0) + (count[.revalidated] ?? 0),
                           skeletons, TokenSource.hitRatio(count, misses: asked - count.values.reduce(0, +)) * 100)
                  + shown)
            if let prefix {
                let html = HTMLPreview.render(tree, title: tree.renderedScreen)
                try Data(html.utf8).write(to: previews.appendingPathComponent("\(prefix)\(id).html"))
            }
        }
        let ratio = TokenSource.hitRatio(totals, misses: lookups - totals.values.reduce(0, +))
        print(String(format: "  token_cache_hit_ratio over %d lookups: %.2f\n", lookups, ratio))
    }

    /// The screens of a `--trace` log (`ack SEQ SCREEN` lines), each run of
    /// one screen once.
    static func screens(_ trace: String) -> [String] {
        var out: [String] = []
        for line in trace.split(separator: "\n") where line.hasPrefix("ack ") {
            let parts = line.split(separator: " ")
            if parts.count == 3, out.last != String(parts[2]) { out.append(String(parts[2])) }
        }
        return out
    }

    /// `value` as compact JSON with sorted keys.
    static func compact(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func randomKey() -> Data {
        var g = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &g) })
    }
}
#endif
