// ScreenBenchmark.swift - a screen session's two hot paths against their
// floors: a tap that sets one bound value on the 1,001-node screen against
// resolving the screen whole, and events through the outbox, the uploader
// and the registry's ingest against a plain SQLite insert loop.
#if Server
import CSDUIBenchPeers
import Foundation
import Logging
import SDUI
import SDUICore
import SDUIFlow
import SDUIServer
import SDUIStore

/// Issue 25's two benchmarks, medians over rounds (the taps and the whole
/// resolve in rounds of their own, four times as many, before the event
/// rounds):
///
/// 1. **tap**: the screen of ``StoreBenchmark``'s re-resolve (100 tokens of
///    10 nodes, 1,001 render nodes) with row 0's last node a Button whose
///    action is `set rows.r50.qty = rows.r50.qty + 1`, which row 50's
///    `@{…}` text reads.  `ScreenSession.tap` finds the node by its id, runs
///    the action (its `action` event committed to an outbox on disk with
///    synchronous NORMAL, as analytics need, or to none), writes the store
///    and hands back the changed node; against `ScreenResolver.resolve` of
///    the whole screen with the same data.
/// 2. **events**: `events` events of 300 bytes: committed one per step
///    (`FlowJournal.commit`, what a session does), with synchronous FULL
///    (the journal's default, what a flow step needs) and NORMAL, each
///    against the floor with the same setting; sent by `EventUploader`
///    to an in-process registry on loopback (batches of 100, each stored
///    in one SQLite transaction: the end-to-end rate); and stored by the
///    registry's SQLite store directly (`storeEvents`, batches of 100: its
///    ingest).  The floors: the same rows inserted by a prepared SQLite
///    statement, one per transaction and 100 per transaction, in WAL mode
///    with synchronous NORMAL.
public struct ScreenBenchmark {
    public enum Method: String, CaseIterable, Sendable {
        case tapOutbox = "tap_to_updated_tree_outbox"
        case tapMemory = "tap_to_updated_tree_no_outbox"
        case resolve = "resolve_whole_screen"
        case outboxCommit = "outbox_commit_full_events_per_s"
        case floorSingle = "sqlite_insert_1_per_tx_full_events_per_s"
        case outboxCommitNormal = "outbox_commit_normal_events_per_s"
        case floorSingleNormal = "sqlite_insert_1_per_tx_normal_events_per_s"
        case uploader = "uploader_to_registry_events_per_s"
        case ingest = "registry_ingest_events_per_s"
        case floorBatch = "sqlite_insert_100_per_tx_events_per_s"
        case flowStep = "durable_flow_step_full_us"
        case floorStep = "sqlite_step_full_us"
    }

    public struct Result: Sendable {
        /// Milliseconds for the tap and the resolve; events per second for the rest.
        public var medians: [Method: Double]
        public var nodes: Int
        public var changedNodes: Int
        public var events: Int
        /// WAL frames (pages) one durable flow step writes, and its floor's.
        public var stepPages: Double = 0
        public var floorStepPages: Double = 0
        /// Bytes of the step's progress row and event.
        public var progressBytes = 0
        public var eventBytes = 0
    }

    public init() {}

    /// One screen served to a session as it is.
    struct Provider: ScreenProvider {
        let screen: ProvidedScreen
        func screen(_ id: String) async throws -> ProvidedScreen { screen }
    }

    /// The 1,001-node screen with its button, its lookups and its store.
    static func screenFixture() throws -> (ScreenPayload, [String: TokenLookup], ScenarioStore) {
        try StoreBenchmark.screenFixture(lastOfRow0:
            #"{"primitive":"Button","props":{"label":"Bump","action":{"type":"set","key":"rows.r50.qty","expr":"rows.r50.qty + 1"}}}"#)
    }

    /// A 300-byte event, numbered `i`.
    static func event(_ i: Int) -> Data {
        let e = FlowEvent(id: String(format: "%08x-9ddd-4096-b10f-ecd9e6694f75", i), name: "action", flowId: "", flowVersion: "",
                          screen: "bench_1000", timestamp: 1_795_815_787_815, seq: i + 1, userId: "u",
                          session: "0b7e5d2c-1f40-4a55-9b1e-6f6a0c8d9e21", properties: ["action": "set", "node": "row0/8"])
        var json = e.json
        json.removeLast()
        let pad = max(0, 300 - json.count - 11)
        json += Data(#","pad":"\#(String(repeating: " ", count: pad))"}"#.utf8)
        return json
    }

    /// The flow of the durable step: `next` from `form` to `review`, `back`
    /// again, each a step that commits the progress row and its events.
    static let stepFlow = """
    {"id": "bench_steps", "version": 1, "start": "form",
     "screens": [
      {"id": "form", "blocks": [{"type": "header", "title": "Your details"},
                                {"type": "text_input", "key": "name"},
                                {"type": "choice", "key": "goal", "options": [{"label": "Strength", "value": "strength"},
                                                                            {"label": "Muscles", "value": "muscles"}]},
                                {"type": "cta", "primary": {"label": "Next", "action": "next"}}],
       "next": [{"when": "answers.goal == 'strength'", "to": "review"}, {"to": "review"}]},
      {"id": "review", "blocks": [{"type": "header", "title": "Check"},
                                  {"type": "cta", "primary": {"label": "Back", "action": "back"}}]}
     ]}
    """

    /// A session of the step flow on a journal at `path` (synchronous FULL),
    /// started, with two answers given.
    static func stepSession(_ path: String, logger: Logger) throws -> (FlowSession, FlowJournal) {
        let journal = try FlowJournal(path: path, limits: FlowJournal.Limits(maxEvents: 1_000_000, maxBytes: 1 << 30))
        let session = try FlowSession(definition: FlowDefinition(json: Data(stepFlow.utf8), source: "bench"), journal: journal,
                                      configuration: .init(userID: "u", logger: logger))
        _ = try session.start()
        try session.answer("name", "Ada Lovelace")
        try session.answer("goal", "strength")
        return (session, journal)
    }

    /// `steps` steps (`next`, `back`, ...) of a started step session.
    static func walk(_ session: FlowSession, steps: Int) throws {
        for i in 0..<steps {
            let step = i % 2 == 0 ? try session.next() : try session.back()
            guard step == .screen(i % 2 == 0 ? "review" : "form") else {
                throw SDUIError(.schema, "step \(i) of the step flow went to \(step)")
            }
        }
    }

    /// WAL frames written to the journal at `path` while `body` runs (the
    /// WAL's growth; fewer than SQLite's 1,000-frame checkpoint).
    static func walFrames(_ path: String, _ body: () throws -> Void) throws -> Int {
        let size = { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0 }
        let before = size()
        try body()
        return (size() - before) / (4096 + 24)
    }

    /// Medians of every method over `rounds` rounds (after two warm-up rounds).
    public func measure(rounds: Int, events: Int = 2_000) async throws -> Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sdui-bench-screen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let quiet = quietLogger

        // The tap.
        let (payload, lookups, store) = try Self.screenFixture()
        var context = RenderContext()
        context.store = store
        context.logger = quiet
        let resolver = ScreenResolver(context)
        let provided = ProvidedScreen(requested: payload.id, items: payload.screenItems, lookups: lookups)
        let outbox = try FlowJournal(path: dir.appendingPathComponent("tap-outbox.sqlite").path,
                                     limits: FlowJournal.Limits(maxEvents: 1_000_000, maxBytes: 1 << 30, fullSync: false))
        let withOutbox = ScreenSession(provider: Provider(screen: provided), resolver: resolver, store: store, journal: outbox,
                                       configuration: .init(logger: quiet))
        // Its own store, so each session's tree follows its own writes.
        let (_, _, store2) = try Self.screenFixture()
        var context2 = context
        context2.store = store2
        let inMemory = ScreenSession(provider: Provider(screen: provided), resolver: ScreenResolver(context2), store: store2,
                                     configuration: .init(logger: quiet))
        let first = try await withOutbox.open(payload.id)
        _ = try await inMemory.open(payload.id)
        guard first.issues.isEmpty else { throw SDUIError(.schema, "the benchmark screen degraded: \(first.issues[0])") }
        let nodes = first.root.allNodes.count
        guard RenderNodeID.all(in: first).first(where: { $0.id == "row0/8" })?.node.primitive == "Button" else {
            throw SDUIError(.schema, "the benchmark screen has no button at row0/8")
        }

        // The rows of the event benchmarks.
        let rows = (0..<events).map(Self.event)
        let registryStore = try await SQLiteRegistryStore(path: dir.appendingPathComponent("registry.db").path, logger: quiet)
        var config = RegistryServerConfiguration()
        config.port = 0
        let server = try await RegistryServer(store: registryStore, configuration: config, logger: quiet).start()
        let outcome: Result
        do {
            outcome = try await run(rounds: rounds, events: events, rows: rows, dir: dir, sessions: (withOutbox, inMemory),
                                    resolver: resolver, payload: payload, lookups: lookups, nodes: nodes,
                                    registry: server.baseURL, store: registryStore)
        } catch {
            await server.stop()
            try? await registryStore.close()
            throw error
        }
        await server.stop()
        try await registryStore.close()
        return outcome
    }

    /// The measured rounds.
    private func run(rounds: Int, events: Int, rows: [Data], dir: URL, sessions: (ScreenSession, ScreenSession),
                     resolver: ScreenResolver, payload: ScreenPayload, lookups: [String: TokenLookup], nodes: Int,
                     registry: URL, store registryStore: SQLiteRegistryStore) async throws -> Result {
        let clock = ContinuousClock()
        var samples: [Method: [Double]] = [:]
        var changedNodes = 0
        let client = HTTPClient(timeout: 60, maxBodyBytes: 1 << 20)
        let cRows: [UnsafeMutablePointer<CChar>?] = rows.map { strdup(String(decoding: $0, as: UTF8.self)) }
        defer { cRows.forEach { free($0) } }
        let lens = rows.map(\.count)
        // The taps first, on their own: the event rounds' writes would
        // still be on their way to the disk while a tap commits.
        for round in -2..<rounds * 4 {
            for (method, session) in [(Method.tapOutbox, sessions.0), (.tapMemory, sessions.1)] {
                var update: ScreenUpdate?
                let t = try await clock.measure { update = try await session.tap("row0/8") }
                guard let update, update.step == .screen(payload.id) else {
                    throw SDUIError(.schema, "the tap did not apply: \(String(describing: update?.step))")
                }
                changedNodes = update.changes.count
                if round >= 0 { samples[method, default: []].append(t.milliseconds) }
            }
            var whole: RenderTree?
            let w = clock.measure { whole = resolver.resolve(payload, lookups: lookups) }
            guard whole == sessions.0.tree, sessions.1.resolver.resolve(payload, lookups: lookups) == sessions.1.tree else {
                throw SDUIError(.schema, "the tapped tree and a whole resolve disagree")
            }
            if round >= 0 { samples[.resolve, default: []].append(w.milliseconds) }
        }
        for round in -2..<rounds {

            // Events: the outbox, one per commit.
            let journal = try FlowJournal(path: dir.appendingPathComponent("outbox-\(round).sqlite").path,
                                          limits: FlowJournal.Limits(maxEvents: 1_000_000, maxBytes: 1 << 30))
            let c = try clock.measure { for r in rows.prefix(events / 10) { _ = try journal.commit(events: [r]) } }
            let normal = try FlowJournal(path: dir.appendingPathComponent("outbox-normal-\(round).sqlite").path,
                                         limits: FlowJournal.Limits(maxEvents: 1_000_000, maxBytes: 1 << 30, fullSync: false))
            let cn = try clock.measure { for r in rows { _ = try normal.commit(events: [r]) } }
            // The uploader to the loopback registry (ids are new each round).
            let fresh = (0..<events).map { Self.event($0 + (round + 3) * events) }
            let upJournal = try FlowJournal(path: dir.appendingPathComponent("up-\(round).sqlite").path,
                                            limits: FlowJournal.Limits(maxEvents: 1_000_000, maxBytes: 1 << 30))
            _ = try upJournal.commit(events: fresh)
            let uploader = EventUploader(journal: upJournal, configuration: .init(endpoint: registry.appendingPathComponent("events")),
                                         client: client)
            var report: EventUploader.Report?
            let u = try await clock.measure { report = try await uploader.flush() }
            guard report?.events == events else { throw SDUIError(.schema, "the uploader sent \(report?.events ?? 0) of \(events)") }
            // The registry's store directly, batches of 100 (ids new again).
            let stored = fresh.enumerated().map { i, json in
                StoredEvent(id: "ingest-\(round)-\(i)", name: "action", flowID: "", userID: "u", timestamp: 1, json: json)
            }
            let g = try await clock.measure {
                for start in stride(from: 0, to: stored.count, by: 100) {
                    _ = try await registryStore.storeEvents(Array(stored[start..<min(start + 100, stored.count)]))
                }
            }
            // The floors.
            let tenth = events / 10
            let f1 = try clock.measure {
                try Self.sqliteInserts(Array(cRows.prefix(tenth)), Array(lens.prefix(tenth)),
                                       dir.appendingPathComponent("floor1-\(round).sqlite"), batch: 1, full: true)
            }
            let f1n = try clock.measure {
                try Self.sqliteInserts(cRows, lens, dir.appendingPathComponent("floor1n-\(round).sqlite"), batch: 1, full: false)
            }
            let f100 = try clock.measure {
                try Self.sqliteInserts(cRows, lens, dir.appendingPathComponent("floor100-\(round).sqlite"), batch: 100, full: false)
            }
            // The durable flow step against its floor, the same bytes.
            let (steps, stepJournal) = try Self.stepSession(dir.appendingPathComponent("steps-\(round).sqlite").path,
                                                            logger: quietLogger)
            let st = try clock.measure { try Self.walk(steps, steps: stepCount) }
            let (progress, event) = try stepRows(stepJournal, key: steps.progressKey)
            var floorFrames: Int64 = 0
            let fs = try clock.measure {
                try Self.sqliteSteps(progress, event, stepCount, dir.appendingPathComponent("floor-steps-\(round).sqlite"),
                                     frames: &floorFrames)
            }
            guard round >= 0 else { continue }
            samples[.flowStep, default: []].append(st.milliseconds * 1000 / Double(stepCount))
            samples[.floorStep, default: []].append(fs.milliseconds * 1000 / Double(stepCount))
            let perSecond = { (d: Duration) in Double(events) / (d.milliseconds / 1000) }
            samples[.outboxCommit, default: []].append(Double(events / 10) / (c.milliseconds / 1000))
            samples[.outboxCommitNormal, default: []].append(perSecond(cn))
            samples[.floorSingleNormal, default: []].append(perSecond(f1n))
            samples[.uploader, default: []].append(perSecond(u))
            samples[.ingest, default: []].append(perSecond(g))
            samples[.floorSingle, default: []].append(Double(events / 10) / (f1.milliseconds / 1000))
            samples[.floorBatch, default: []].append(perSecond(f100))
        }
        // Pages: one short walk each on fresh files (no checkpoint inside).
        let (pageSession, pageJournal) = try Self.stepSession(dir.appendingPathComponent("pages.sqlite").path,
                                                              logger: quietLogger)
        try Self.walk(pageSession, steps: 2)
        let pageSteps = 100
        let frames = try Self.walFrames(pageJournal.path) { try Self.walk(pageSession, steps: pageSteps) }
        let (progress, event) = try stepRows(pageJournal, key: pageSession.progressKey)
        var floorFrames: Int64 = 0
        try Self.sqliteSteps(progress, event, pageSteps, dir.appendingPathComponent("floor-pages.sqlite"), frames: &floorFrames)
        var result = Result(medians: samples.mapValues { FirstPaintBenchmark.median($0) }, nodes: nodes,
                            changedNodes: changedNodes, events: events)
        result.stepPages = Double(frames) / Double(pageSteps)
        result.floorStepPages = Double(floorFrames) / Double(pageSteps)
        result.progressBytes = progress.count
        result.eventBytes = event.count
        return result
    }

    /// Steps per round of the durable step (each an fsync or more).
    private var stepCount: Int { 100 }

    /// A logger that prints nothing.
    private var quietLogger: Logger {
        var quiet = Logger(label: "bench")
        quiet.logLevel = .critical
        return quiet
    }

    /// The progress row and the last event a step session committed: what
    /// the floor writes per step.
    private func stepRows(_ journal: FlowJournal, key: String) throws -> (Data, Data) {
        guard let progress = try journal.state(key),
              let event = try journal.peek(maxEvents: 1_000_000, maxBytes: 1 << 30).last?.json else {
            throw SDUIError(.schema, "the step session committed no progress or no event")
        }
        return (progress, event)
    }

    /// The floor of a durable step: `steps` commits of `progress` over
    /// itself and `event` appended, synchronous FULL; `frames` gets the WAL
    /// frames they wrote.
    static func sqliteSteps(_ progress: Data, _ event: Data, _ steps: Int, _ file: URL, frames: inout Int64) throws {
        var err = [CChar](repeating: 0, count: 256)
        var count: Int64 = 0
        let status = progress.withUnsafeBytes { p in
            event.withUnsafeBytes { e in
                sdui_bench_sqlite_steps(file.path, p.baseAddress?.assumingMemoryBound(to: CChar.self), p.count,
                                        e.baseAddress?.assumingMemoryBound(to: CChar.self), e.count, steps, 1, &count,
                                        &err, err.count)
            }
        }
        guard status == 0 else { throw SDUIError(.io, String(cString: err), input: file.path) }
        frames = count
    }

    /// The floor: `rows` (NUL-terminated copies, made before the clock
    /// starts) inserted by a prepared statement, `batch` per transaction,
    /// synchronous FULL or NORMAL.
    static func sqliteInserts(_ rows: [UnsafeMutablePointer<CChar>?], _ lens: [Int], _ file: URL, batch: Int, full: Bool) throws {
        var err = [CChar](repeating: 0, count: 256)
        let status = sdui_bench_sqlite_inserts(file.path, rows.map { UnsafePointer($0) }, lens, rows.count, batch, full ? 1 : 0,
                                               &err, err.count)
        guard status == 0 else { throw SDUIError(.io, String(cString: err), input: file.path) }
    }
}
#endif
