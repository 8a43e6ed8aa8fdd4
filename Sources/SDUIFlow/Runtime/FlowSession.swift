// FlowSession.swift - one user walking one flow: the current screen, the
// answers, the back stack, the actions, and the journal that makes every
// step survive a kill.
//
// Every step is computed first and then committed: the new progress and the
// events the step caused go to the journal in one transaction, and only
// when that commit returns does the session (and its store) take the new
// state.  So what the session shows was committed, and after a kill the
// next session resumes exactly at the last committed step, with its events
// queued once.
//
// Resume policy.  A session started over saved progress made with another
// definition (its content hash differs) keeps the saved screen when the new
// definition still has it; otherwise it goes back to the nearest screen of
// the back stack that still exists (dropping the stack above it), else to
// the start.  Back-stack entries that no longer exist are dropped.  Either
// way a `flow_resume_mismatch` event records both hashes, the saved and the
// resumed screen and what the policy did: a changed flow is never resumed
// silently.

import Foundation
import Logging
import SDUI
import SDUICore
import SDUIStore

/// The result of a step.
public enum FlowStep: Sendable, Hashable {
    /// The flow shows this screen now.
    case screen(String)
    /// `next` on a screen without transitions: the flow completed.
    case completed
    /// `exit`: the flow ended early.
    case exited
    /// The step could not apply (a required answer is missing, no
    /// transition's condition held, no screen to go back to, the flow is
    /// over, an unknown action); the screen stays, and this says why.
    case stayed(String)
}

/// One user's run through a ``FlowDefinition`` (see the file's essay).
///
/// ```swift
/// let journal = try FlowJournal(path: dir + "/flows.sqlite")
/// let session = try FlowSession(definition: flow, journal: journal,
///                               configuration: .init(userID: "u1", attributes: ["country": "DE"]))
/// try session.start()                         // resumes, or flow_start + screen_view
/// try session.answer("goal", "strength")
/// try session.next()                          // .screen("screen_strength")
/// let tree = session.render(with: resolver)   // the screen's render tree
/// ```
///
/// Thread-safe: every step takes the session's lock (hence `@unchecked
/// Sendable`), so steps from many tasks apply one at a time.
public final class FlowSession: @unchecked Sendable {
    /// What a session needs from its host.
    public struct Configuration: Sendable {
        /// The user; progress is kept per flow key and user.
        public var userID: String
        /// The key progress is kept under; by default the flow's id.
        public var flowKey: String?
        /// The host's attributes, read by conditions as `attributes.*`.
        public var attributes: [String: JSONValue]
        /// Where `submit` POSTs the answers (an action's `endpoint` overrides it).
        public var submitEndpoint: URL?
        /// The client `submit` uses.
        public var httpClient: HTTPClient
        /// What `open_url` accepts (HTTPS to any host by default).
        public var urlPolicy: ImageURLPolicy
        /// Receives a URL `open_url` accepted.
        public var openURL: @Sendable (URL) -> Void
        /// The clock of timestamps.
        public var now: @Sendable () -> Date
        /// Where the session reports a resume mismatch (notice) and a
        /// condition or action it could not use (warning); label `sdui.flow` by default.
        public var logger: Logger

        /// A configuration for `userID`; everything else has a default: no submit
        /// endpoint, HTTPS URLs only, an `openURL` that does nothing, the system clock.
        public init(userID: String, flowKey: String? = nil, attributes: [String: JSONValue] = [:],
                    submitEndpoint: URL? = nil,
                    httpClient: HTTPClient = HTTPClient(timeout: 10, maxBodyBytes: 1 << 20),
                    urlPolicy: ImageURLPolicy = .anyHTTPSHost,
                    openURL: @escaping @Sendable (URL) -> Void = { _ in },
                    now: @escaping @Sendable () -> Date = { Date() },
                    logger: Logger = Logger(label: "sdui.flow")) {
            self.userID = userID
            self.flowKey = flowKey
            self.attributes = attributes
            self.submitEndpoint = submitEndpoint
            self.httpClient = httpClient
            self.urlPolicy = urlPolicy
            self.openURL = openURL
            self.now = now
            self.logger = logger
        }
    }

    /// The flow being run.
    public let definition: FlowDefinition
    /// Where progress and events are committed.
    public let journal: FlowJournal
    /// The flow's scenario data: `answers.*`, `attributes.*` and what `set`
    /// actions wrote.  Screens bind it; conditions read it.
    public let store: ScenarioStore
    /// What the host gave the session.
    public let configuration: Configuration
    /// The journal row of this flow key and user.
    public let progressKey: String

    private let lock = NSLock()
    private var current: FlowProgress?
    /// Names of the events this session committed, in order.
    private var emittedNames: [String] = []
    /// Why the last `next` stayed, shown on the screen until it moves.
    private var blockedReason: String?
    /// The event seq of the current screen's view (its `screen_view`), and
    /// the view whose render errors were already reported.
    private var viewSeq = -1
    private var reportedRenderFor = -2
    /// Each screen's compiled conditions, by screen index (nil: does not parse).
    private let conditions: [[Result<CompiledExpression, SDUIError>?]]

    /// A session of `definition` for `configuration.userID`, over `journal`.
    ///
    /// - Parameter store: the flow's scenario store; by default a fresh
    ///   in-memory one (the journal keeps what must survive).
    /// - Throws: `SDUIError` `.schema` when the definition has validation
    ///   errors (``FlowValidator``), listing them.  A block type this app
    ///   does not know is no reason to refuse a flow (a newer server may
    ///   send one): it is drawn as a placeholder with a `render_error`.
    public init(definition: FlowDefinition, journal: FlowJournal, store: ScenarioStore? = nil,
                validator: FlowValidator = FlowValidator(), configuration: Configuration) throws {
        let errors = validator.errors(definition).filter { $0.kind != .unknownBlock }
        guard errors.isEmpty else {
            throw SDUIError(.schema, "flow \"\(definition.id)\" does not validate: "
                            + errors.map(\.description).joined(separator: "; "), input: definition.id)
        }
        self.definition = definition
        self.journal = journal
        self.configuration = configuration
        let key = configuration.flowKey ?? definition.id
        self.progressKey = "flow/\(key)/\(configuration.userID)"
        self.store = store ?? DefaultStore(appID: "sdui.flow")
            .store(.scenarioSession(id: "flow:\(key):\(configuration.userID)"))
        self.conditions = definition.screens.map { s in
            s.next.map { t in
                t.when.map { w in Result { try CompiledExpression(w) }.mapError { $0 as? SDUIError ?? SDUIError(.exprParse, "\($0)") } }
            }
        }
    }

    // MARK: State

    /// The progress as last committed; nil before ``start()``.
    public var progress: FlowProgress? { locked { current } }

    /// The screen shown; nil before ``start()`` and after the flow ended.
    public var currentScreen: FlowScreen? {
        locked { current?.screen.flatMap { definition.screen($0) } }
    }

    /// The names of the events this session committed, in order.
    public var emittedEvents: [String] { locked { emittedNames } }

    /// Why the last step stayed on the screen (nil once the screen changed).
    public var lastRefusal: String? { locked { blockedReason } }

    // MARK: Steps

    /// Starts the flow, or resumes it where the journal says it stopped.
    ///
    /// Fresh: `flow_start` and the start screen's `screen_view`.  Resumed
    /// in progress: the saved screen's `screen_view`, after a
    /// `flow_resume_mismatch` when the definition changed (see the file's
    /// essay).  Resumed after the end: nothing changes and no event is
    /// emitted.  Calling it again is a no-op that returns the screen.
    @discardableResult
    public func start() throws -> FlowStep {
        try locked {
            if let p = current { return Self.step(p) }
            let saved = try journal.state(progressKey).map { data -> FlowProgress in
                do {
                    return try JSONDecoder().decode(FlowProgress.self, from: data)
                } catch {
                    throw SDUIError(.corrupt, "saved progress \"\(progressKey)\" does not decode: \(error)",
                                    input: journal.path)
                }
            }
            guard var p = saved, p.flowId == definition.id else {
                // Fresh (or saved under this key by another flow: start over, saying so).
                var events: [(String, String?, [String: JSONValue])] = []
                if let old = saved {
                    events.append(("flow_resume_mismatch", old.screen, [
                        "savedFlowId": .string(old.flowId), "policy": "restart",
                        "reason": "the saved progress belongs to another flow"]))
                }
                let fresh = FlowProgress(flowId: definition.id, flowVersion: definition.version,
                                         contentHash: definition.contentHash, screen: definition.start,
                                         backStack: [], data: [:], status: .inProgress,
                                         eventSeq: saved?.eventSeq ?? 0, updatedAt: 0)
                events.append(("flow_start", definition.start, [:]))
                events.append(("screen_view", definition.start, [:]))
                try commit(fresh, events)
                return .screen(definition.start)
            }
            guard p.status == .inProgress else {
                apply(p)
                return Self.step(p)
            }
            var events: [(String, String?, [String: JSONValue])] = []
            if p.contentHash != definition.contentHash {
                let savedScreen = p.screen
                let keptStack = p.backStack.filter { definition.screen($0) != nil }
                let policy: String
                if let s = p.screen, definition.screen(s) != nil {
                    policy = "kept"
                    p.backStack = keptStack
                } else if let i = p.backStack.lastIndex(where: { definition.screen($0) != nil }) {
                    policy = "back_stack"
                    p.screen = p.backStack[i]
                    p.backStack = Array(p.backStack[..<i]).filter { definition.screen($0) != nil }
                } else {
                    policy = "start"
                    p.screen = definition.start
                    p.backStack = []
                }
                configuration.logger.notice("flow_resume_mismatch", metadata: [
                    "flow": "\(definition.id)", "policy": "\(policy)",
                    "savedScreen": "\(savedScreen ?? "-")", "resumedScreen": "\(p.screen ?? definition.start)"])
                events.append(("flow_resume_mismatch", p.screen, [
                    "savedHash": .string(p.contentHash), "hash": .string(definition.contentHash),
                    "savedVersion": .string(p.flowVersion), "savedScreen": savedScreen.map { .string($0) } ?? .null,
                    "resumedScreen": .string(p.screen ?? definition.start), "policy": .string(policy)]))
                p.contentHash = definition.contentHash
                p.flowVersion = definition.version
            }
            let screen = p.screen ?? definition.start
            p.screen = screen
            events.append(("screen_view", screen, ["resumed": true]))
            try commit(p, events)
            return .screen(screen)
        }
    }

    /// Records an answer: `answers.<key>` in the store, and an `answer` event.
    ///
    /// - Throws: `SDUIError` `.argument` when the flow is not running or the
    ///   current screen has no block writing `key`.
    public func answer(_ key: String, _ value: JSONValue) throws {
        try locked {
            var p = try running()
            let screen = definition.screen(p.screen!)!
            guard screen.inputs.contains(where: { $0.key == key }) else {
                throw SDUIError(.argument, "screen \"\(screen.id)\" has no input with key \"\(key)\" (it has: "
                                + screen.inputs.map(\.key).joined(separator: ", ") + ")", input: definition.id)
            }
            var answers = p.answers
            answers[key] = value
            p.data["answers"] = .object(answers)
            try commit(p, [("answer", screen.id, ["key": .string(key), "value": value])])
        }
    }

    /// Leaves the screen by its first transition whose condition holds, or
    /// completes the flow when it has none.  Stays (and says why) while a
    /// required answer is missing or when no condition holds.
    @discardableResult
    public func next() throws -> FlowStep {
        try locked {
            var p = try running()
            let index = definition.index(of: p.screen!)!
            let screen = definition.screens[index]
            if let missing = screen.inputs.first(where: { $0.required && !Self.answered(p.answers[$0.key]) }) {
                let why = "an answer to \"\(missing.key)\" is required"
                blockedReason = why
                return .stayed(why)
            }
            if screen.completes {
                p.backStack.append(screen.id)
                p.screen = nil
                p.status = .completed
                try commit(p, [("flow_complete", screen.id, [:])])
                return .completed
            }
            var renderErrors: [(String, String?, [String: JSONValue])] = []
            var target: String?
            for (k, t) in screen.next.enumerated() {
                guard let cond = conditions[index][k] else { target = t.to; break }
                do {
                    let expr = try cond.get()
                    let v = try expr.evaluate(in: store)
                    guard let b = v.boolValue else {
                        throw SDUIError(.exprType, "the condition gave \(v.scalarText ?? "a non-boolean"), not a boolean")
                    }
                    if b { target = t.to; break }
                } catch {
                    let e = error as? SDUIError
                    configuration.logger.warning("render_error", metadata: [
                        "flow": "\(definition.id)", "screen": "\(screen.id)", "path": "\(t.jsonPath).when",
                        "error": "\(error)"])
                    renderErrors.append(("render_error", screen.id, [
                        "path": .string("\(t.jsonPath).when"),
                        "detail": .string("condition \(t.when ?? ""): " + (e.map { "\($0.category.rawValue): \($0.message)" } ?? "\(error)"))]))
                }
            }
            guard let to = target else {
                let why = "no transition's condition holds on screen \"\(screen.id)\""
                if !renderErrors.isEmpty { try commit(p, renderErrors) }
                blockedReason = why
                return .stayed(why)
            }
            p.backStack.append(screen.id)
            p.screen = to
            try commit(p, renderErrors + [("screen_view", to, [:])])
            return .screen(to)
        }
    }

    /// Returns to the previous screen of the back stack.
    @discardableResult
    public func back() throws -> FlowStep {
        try locked {
            var p = try running()
            guard let previous = p.backStack.popLast() else {
                blockedReason = "there is no previous screen"
                return .stayed("there is no previous screen")
            }
            p.screen = previous
            try commit(p, [("screen_view", previous, ["back": true])])
            return .screen(previous)
        }
    }

    /// Ends the flow early (`flow_exit`).
    @discardableResult
    public func exit() throws -> FlowStep {
        try locked {
            var p = try running()
            let screen = p.screen
            p.screen = nil
            p.status = .exited
            try commit(p, [("flow_exit", screen, [:])])
            return .exited
        }
    }

    /// Runs an action as a button gives it (a name or an object; see
    /// ``FlowAction``).  An action that does not parse is a `render_error`
    /// event and a `.stayed` step, never a crash.
    ///
    /// - Throws: what the action throws (``perform(_:)``).
    @discardableResult
    public func perform(json action: JSONValue) async throws -> FlowStep {
        switch FlowAction.parse(action) {
        case .success(let a):
            return try await perform(a)
        case .failure(let why):
            configuration.logger.warning("render_error", metadata: [
                "flow": "\(definition.id)", "action": "\(action)", "error": "\(why.message)"])
            try locked {
                let p = try running()
                try commit(p, [("render_error", p.screen, ["detail": .string("action: \(why.message)")])])
            }
            return .stayed(why.message)
        }
    }

    /// Runs `action`.
    ///
    /// - Throws: `SDUIError`: `.argument` when the flow is not running;
    ///   `set`: an expression error; `open_url`: the policy's refusal;
    ///   `submit`: `.argument` without an endpoint, `.network`, or `.http`
    ///   for a status other than 2xx.
    @discardableResult
    public func perform(_ action: FlowAction) async throws -> FlowStep {
        switch action {
        case .next: return try next()
        case .back: return try back()
        case .exit: return try exit()
        case .set(let key, let source):
            return try locked {
                var p = try running()
                let value: JSONValue
                switch source {
                case .value(let v): value = v
                case .expression(let text): value = try CompiledExpression(text).evaluate(in: store)
                }
                let path = try KeyPath(key)
                guard path.components.first != .key("attributes") else {
                    throw SDUIError(.argument, "set: \"attributes\" belong to the host", input: key)
                }
                var root = JSONValue.object(p.data)
                try path.set(value, in: &root)
                p.data = root.objectValue ?? [:]
                try commit(p, [])
                return .screen(p.screen!)
            }
        case .openURL(let text):
            let screen: String = try locked { try running().screen! }
            let url = try configuration.urlPolicy.check(text)
            configuration.openURL(url)
            return .screen(screen)
        case .submit(let endpoint):
            let (p, screen) = try locked { () throws -> (FlowProgress, String) in
                let p = try running()
                return (p, p.screen!)
            }
            guard let url = endpoint.flatMap(URL.init(string:)) ?? configuration.submitEndpoint,
                  url.scheme == "https" || url.scheme == "http" else {
                throw SDUIError(.argument, "submit: no endpoint (configure one, or give an absolute http(s) \"endpoint\")",
                                input: endpoint ?? definition.id)
            }
            let body = JSONValue.object(["flowId": .string(definition.id), "flowVersion": .string(definition.version),
                                         "userId": .string(configuration.userID), "answers": .object(p.answers)])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let response = try await configuration.httpClient.post(url, body: try encoder.encode(body),
                                                                  headers: ["Content-Type": "application/json"])
            guard (200..<300).contains(response.status) else {
                throw SDUIError(.http, "submit: HTTP \(response.status)", input: url.absoluteString)
            }
            return .screen(screen)
        case .track(let event, let properties):
            return try locked {
                let p = try running()
                try commit(p, [(event, p.screen, properties)])
                return .screen(p.screen!)
            }
        }
    }

    /// Forgets the saved progress of this flow key and user (the next
    /// ``start()`` begins afresh); queued events stay queued.
    public func reset() throws {
        try locked {
            try journal.commit(states: [(progressKey, nil)])
            current = nil
            blockedReason = nil
            store.replaceAll(with: ["attributes": StoreValue(.object(configuration.attributes))])
        }
    }

    // MARK: Rendering

    /// The current screen's render tree: theme by screen, then flow, then
    /// the resolver's fallback; the flow's store bound; when the last `next`
    /// stayed, its reason drawn under the blocks.  The `render_error` events
    /// of the tree are committed once per screen view.
    ///
    /// - Throws: `SDUIError` `.argument` when no screen is shown.
    public func render(with resolver: ScreenResolver) throws -> RenderTree {
        let (screen, reason, view) = try locked { () throws -> (FlowScreen, String?, Int) in
            guard let p = current, let id = p.screen, let s = definition.screen(id) else {
                throw SDUIError(.argument, "the flow shows no screen", input: definition.id)
            }
            return (s, blockedReason, self.viewSeq)
        }
        var context = resolver.context
        context.flowThemeID = definition.themeId
        context.store = store
        var blocks = screen.blockScreen
        if let reason {
            blocks.blocks.append(.object(["type": "footer", "text": .string("⚠ \(reason)")]))
        }
        let tree = ScreenResolver(context).resolve(blocks)
        let errors = tree.events.filter { $0.name == "render_error" }
        if !errors.isEmpty {
            try locked {
                guard reportedRenderFor != view, viewSeq == view, let p = current,
                      p.screen == screen.id else { return }
                try commit(p, errors.map { ("render_error", screen.id, ["block": .string($0.token ?? ""),
                                                                         "detail": .string($0.detail)]) })
                reportedRenderFor = view
            }
        }
        return tree
    }

    /// A presenter that runs this flow's current screen through the screen
    /// state machine: FETCH takes the screen from the definition, LOAD
    /// renders it.
    public func presenter(resolver: ScreenResolver) -> ScreenPresenter<FlowScreen, RenderTree> {
        ScreenPresenter(fetch: { [self] in
            guard let s = currentScreen else {
                throw SDUIError(.notFound, "the flow shows no screen", input: definition.id)
            }
            return s
        }, load: { [self] _ in try render(with: resolver) })
    }

    // MARK: Internals

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The progress of a running flow.
    private func running() throws -> FlowProgress {
        guard let p = current else {
            throw SDUIError(.argument, "the flow has not started (call start())", input: definition.id)
        }
        guard p.status == .inProgress, p.screen != nil else {
            throw SDUIError(.argument, "the flow is \(p.status.rawValue.replacingOccurrences(of: "_", with: " "))",
                            input: definition.id)
        }
        return p
    }

    /// Commits `p` with `events` (name, screen, properties) in one
    /// transaction, then makes it the session's state.
    private func commit(_ p: FlowProgress, _ events: [(String, String?, [String: JSONValue])]) throws {
        var next = p
        let now = Int64((configuration.now().timeIntervalSince1970 * 1000).rounded())
        next.updatedAt = now
        var encoded: [Data] = []
        for (name, screen, properties) in events {
            next.eventSeq += 1
            encoded.append(FlowEvent(name: name, flowId: definition.id, flowVersion: definition.version,
                                     screen: screen, timestamp: now, seq: next.eventSeq,
                                     userId: configuration.userID, properties: properties).json)
        }
        try journal.commit(states: [(progressKey, next.json)], events: encoded)
        if next.screen != current?.screen { blockedReason = nil }
        if let i = events.lastIndex(where: { $0.0 == "screen_view" }) {
            viewSeq = next.eventSeq - (events.count - 1 - i)
        }
        emittedNames += events.map(\.0)
        apply(next)
    }

    /// Makes `p` the session's state and its data the store's.
    private func apply(_ p: FlowProgress) {
        let changedData = current?.data != p.data
        current = p
        if changedData || store.get("attributes") == nil {
            var root = p.data.mapValues(StoreValue.init)
            root["attributes"] = StoreValue(.object(configuration.attributes))
            store.replaceAll(with: root)
        }
    }

    /// Whether `v` counts as an answer (not missing, null, "" or []).
    static func answered(_ v: JSONValue?) -> Bool {
        switch v {
        case nil, .null?: return false
        case .string(let s)?: return !s.trimmingCharacters(in: .whitespaces).isEmpty
        case .array(let a)?: return !a.isEmpty
        default: return true
        }
    }

    /// The step a progress stands at.
    static func step(_ p: FlowProgress) -> FlowStep {
        switch p.status {
        case .completed: return .completed
        case .exited: return .exited
        case .inProgress: return p.screen.map { .screen($0) } ?? .stayed("no screen")
        }
    }
}
