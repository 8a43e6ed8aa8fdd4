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
// Data.  The flow's data lives once: the journal's progress is its durable
// truth, the session's ``FlowSession/store`` its working copy, which flow
// code reads (conditions, `set` expressions, bound screens) and the host may
// write.  A step starts from the store's data (the host's writes included),
// computes its change as patches (FlowDataPatch: a set or a remove at a key
// path), commits the progress with the patched data, and then applies only
// those patches to the store, so answering `answers.email` reaches only the
// observers of `answers.email`.  A write the host makes to the store is
// therefore journaled by the session's next commit (any step, answer,
// action or event) and survives it; until then it is in memory only, as the
// host wrote it, and a kill before that commit loses it: after a kill the
// data is exactly what was last committed, never half of a step.  Only
// ``FlowSession/start()`` puts the journal's data into the store wholesale
// (what the store held before is not the flow's), and ``FlowSession/reset()``
// removes it.  `attributes` belong to the host: never journaled, set from
// the configuration by `start()` (and whenever the store has none), and the
// host's writes under them are left alone.
//
// Resume policy.  A session started over saved progress that does not
// match the definition (made with another definition, its content hash
// differs; or naming a screen, or back-stack screens, the definition does
// not have, as a file edited on disk may; or running without a screen)
// keeps the saved screen when the definition has it; otherwise it goes
// back to the nearest screen of the back stack that exists (dropping the
// stack above it), else to the start.  Back-stack entries that do not
// exist are dropped.  Either way a `flow_resume_mismatch` event records
// both hashes, the saved and the resumed screen, why, and what the policy
// did: a changed flow is never resumed silently.
//
// Saved progress is input like any file: the journal may have been edited
// or damaged.  Progress that does not decode (a number out of range, a
// member of the wrong type, an unknown status) is moved aside to a key of
// its own in the same journal, in the transaction that starts the flow
// afresh, and a `flow_resume_mismatch` and ``FlowSession/notices`` say
// where.  An event counter no run can reach (negative, or past
// FlowProgress.maxEventSeq) is a `corrupt` error naming the journal and the
// field, and the progress is left as it is (``FlowSession/reset()`` forgets
// it).  Nothing read from the journal is force-unwrapped or added to
// without a bound.

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
public final class FlowSession: @unchecked Sendable, ActionHost {
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
        /// What `open_url` accepts (HTTPS to any host by default); the
        /// session's validation checks the flow's `open_url` actions with it.
        public var linkPolicy: LinkPolicy
        /// Receives a URL `open_url` accepted.
        public var openURL: @Sendable (URL) -> Void
        /// The clock of timestamps.
        public var now: @Sendable () -> Date
        /// Where the session reports a resume mismatch (notice) and a
        /// condition or action it could not use (warning); label `sdui.flow` by default.
        public var logger: Logger

        /// A configuration for `userID`; everything else has a default: no submit
        /// endpoint, HTTPS links only, an `openURL` that does nothing, the system clock.
        public init(userID: String, flowKey: String? = nil, attributes: [String: JSONValue] = [:],
                    submitEndpoint: URL? = nil,
                    httpClient: HTTPClient = HTTPClient(timeout: 10, maxBodyBytes: 1 << 20),
                    linkPolicy: LinkPolicy = .https,
                    openURL: @escaping @Sendable (URL) -> Void = { _ in },
                    now: @escaping @Sendable () -> Date = { Date() },
                    logger: Logger = Logger(label: "sdui.flow")) {
            self.userID = userID
            self.flowKey = flowKey
            self.attributes = attributes
            self.submitEndpoint = submitEndpoint
            self.httpClient = httpClient
            self.linkPolicy = linkPolicy
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
    /// What ``start()`` had to repair, in words.
    private var repairs: [String] = []
    /// Each screen id's index in the definition (the first, should ids repeat).
    private let screenIndex: [String: Int]
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
    ///   errors (``FlowValidator``, its `open_url` links checked with the
    ///   configuration's ``Configuration/linkPolicy``), listing them.  A
    ///   block type this app does not know is no reason to refuse a flow (a
    ///   newer server may send one): it is drawn as a placeholder with a
    ///   `render_error`.
    public init(definition: FlowDefinition, journal: FlowJournal, store: ScenarioStore? = nil,
                validator: FlowValidator = FlowValidator(), configuration: Configuration) throws {
        var validator = validator
        validator.links = configuration.linkPolicy
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
        var index: [String: Int] = [:]
        for (i, s) in definition.screens.enumerated() where index[s.id] == nil { index[s.id] = i }
        self.screenIndex = index
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
        locked { current?.screen.flatMap(screen(_:)) }
    }

    /// What ``start()`` had to repair in the saved progress, in words: a
    /// resume mismatch and the policy taken, progress that did not decode
    /// and the key it was moved aside to.  Empty when it resumed (or
    /// started) as saved.
    public var notices: [String] { locked { repairs } }

    /// The names of the events this session committed, in order.
    public var emittedEvents: [String] { locked { emittedNames } }

    /// Why the last step stayed on the screen (nil once the screen changed).
    public var lastRefusal: String? { locked { blockedReason } }

    // MARK: Steps

    /// Starts the flow, or resumes it where the journal says it stopped.
    ///
    /// Fresh: `flow_start` and the start screen's `screen_view`.  Resumed
    /// in progress: the saved screen's `screen_view`, after a
    /// `flow_resume_mismatch` when the saved progress does not match the
    /// definition (see the file's essay).  Resumed after the end: nothing
    /// changes and no event is emitted.  Progress that does not decode is
    /// moved aside and the flow starts afresh (``notices`` says where).
    /// Calling it again is a no-op that returns the screen.
    ///
    /// - Throws: `SDUIError` `.corrupt` (naming the journal, the progress
    ///   key and the field) for an event counter no run can reach; the
    ///   journal's errors.
    @discardableResult
    public func start() throws -> FlowStep {
        try locked {
            if let p = current { return Self.step(p) }
            var events: [Event] = []
            var aside: [(key: String, value: Data?)] = []
            var saved: FlowProgress?
            if let raw = try journal.state(progressKey) {
                do {
                    // As deep as JSONDecoder read it (512 levels): what was saved resumes.
                    saved = try JSONValueDecoder().decode(FlowProgress.self, json: raw, source: journal.path, maxDepth: 512)
                } catch {
                    let key = asideKey()
                    // The one decoder's SDUIError names the journal, the category and the place.
                    let why = "\(error)"
                    aside.append((key, raw))
                    let note = "saved progress \"\(progressKey)\" in \(journal.path) does not decode (\(why)); "
                        + "moved aside to the key \"\(key)\", the flow starts afresh"
                    repairs.append(note)
                    configuration.logger.warning("\(EventKind.flowResumeMismatch.name)", metadata: [
                        "flow": "\(definition.id)", "policy": "restart", "detail": "\(note)"])
                    events.append((EventKind.flowResumeMismatch.name, nil, [
                        "policy": "restart", "reason": "the saved progress does not decode",
                        "detail": .string(why), "movedTo": .string(key)]))
                }
            }
            if let p = saved { try checkCounters(p) }
            guard var p = saved, p.flowId == definition.id else {
                // Fresh (or saved under this key by another flow: start over, saying so).
                if let old = saved {
                    repairs.append("saved progress \"\(progressKey)\" belongs to flow \"\(old.flowId)\"; "
                                   + "the flow starts afresh")
                    events.append((EventKind.flowResumeMismatch.name, old.screen, [
                        "savedFlowId": .string(old.flowId), "policy": "restart",
                        "reason": "the saved progress belongs to another flow"]))
                }
                let fresh = FlowProgress(flowId: definition.id, flowVersion: definition.version,
                                         contentHash: definition.contentHash, screen: definition.start,
                                         backStack: [], data: [:], status: .inProgress,
                                         eventSeq: saved?.eventSeq ?? 0, updatedAt: 0)
                events.append((EventKind.flowStart.name, definition.start, [:]))
                events.append((EventKind.screenView.name, definition.start, [:]))
                try commit(fresh, events, states: aside, from: nil)
                return .screen(definition.start)
            }
            guard p.status == .inProgress else {
                apply(p, from: nil)
                return Self.step(p)
            }
            let known = { (id: String) in self.screenIndex[id] != nil }
            let reason: String?
            if p.contentHash != definition.contentHash {
                reason = "the definition changed"
            } else if p.screen == nil {
                reason = "the saved progress has no screen"
            } else if let s = p.screen, !known(s) {
                reason = "the saved screen is not in the definition"
            } else if !p.backStack.allSatisfy(known) {
                reason = "screens of the back stack are not in the definition"
            } else {
                reason = nil
            }
            if let reason {
                let savedScreen = p.screen
                let keptStack = p.backStack.filter(known)
                let policy: String
                if let s = p.screen, known(s) {
                    policy = "kept"
                    p.backStack = keptStack
                } else if let i = p.backStack.lastIndex(where: known) {
                    policy = "back_stack"
                    p.screen = p.backStack[i]
                    p.backStack = Array(p.backStack[..<i]).filter(known)
                } else {
                    policy = "start"
                    p.screen = definition.start
                    p.backStack = []
                }
                let resumed = p.screen ?? definition.start
                repairs.append("saved progress \"\(progressKey)\" does not match flow \"\(definition.id)\" "
                               + "(\(reason)): resumed on \"\(resumed)\" (policy \(policy))")
                configuration.logger.notice("\(EventKind.flowResumeMismatch.name)", metadata: [
                    "flow": "\(definition.id)", "policy": "\(policy)", "reason": "\(reason)",
                    "savedScreen": "\(savedScreen ?? "-")", "resumedScreen": "\(resumed)"])
                events.append((EventKind.flowResumeMismatch.name, resumed, [
                    "savedHash": .string(p.contentHash), "hash": .string(definition.contentHash),
                    "savedVersion": .string(p.flowVersion), "savedScreen": savedScreen.map { .string($0) } ?? .null,
                    "resumedScreen": .string(resumed), "policy": .string(policy), "reason": .string(reason)]))
                p.contentHash = definition.contentHash
                p.flowVersion = definition.version
            }
            let screen = p.screen ?? definition.start
            p.screen = screen
            events.append((EventKind.screenView.name, screen, ["resumed": true]))
            try commit(p, events, states: aside, from: nil)
            return .screen(screen)
        }
    }

    /// Records an answer: `answers.<key>` in the store, and an `answer` event.
    ///
    /// - Throws: `SDUIError` `.argument` when the flow is not running or the
    ///   current screen has no block writing `key`.
    public func answer(_ key: String, _ value: JSONValue) throws {
        try locked {
            var (p, screen, _) = try running()
            guard screen.inputs.contains(where: { $0.key == key }) else {
                throw SDUIError(.argument, "screen \"\(screen.id)\" has no input with key \"\(key)\" (it has: "
                                + screen.inputs.map(\.key).joined(separator: ", ") + ")", input: definition.id)
            }
            let base = p.data
            var answers = p.answers
            answers[key] = value
            p.data["answers"] = .object(answers)
            try commit(p, [(EventKind.answer.name, screen.id, ["key": .string(key), "value": value])], from: base)
        }
    }

    /// Leaves the screen by its first transition whose condition holds, or
    /// completes the flow when it has none.  Stays (and says why) while a
    /// required answer is missing or when no condition holds.
    @discardableResult
    public func next() throws -> FlowStep {
        try locked {
            var (p, screen, index) = try running()
            if let missing = screen.inputs.first(where: { $0.required && !Self.answered(p.answers[$0.key]) }) {
                let why = "an answer to \"\(missing.key)\" is required"
                blockedReason = why
                return .stayed(why)
            }
            if screen.completes {
                p.backStack.append(screen.id)
                p.screen = nil
                p.status = .completed
                try commit(p, [(EventKind.flowComplete.name, screen.id, [:])], from: p.data)
                return .completed
            }
            var renderErrors: [Event] = []
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
                    configuration.logger.warning("\(EventKind.renderError.name)", metadata: [
                        "flow": "\(definition.id)", "screen": "\(screen.id)", "path": "\(t.jsonPath).when",
                        "error": "\(error)"])
                    renderErrors.append((EventKind.renderError.name, screen.id, [
                        "path": .string("\(t.jsonPath).when"),
                        "detail": .string("condition \(t.when ?? ""): " + (e.map { "\($0.category.rawValue): \($0.message)" } ?? "\(error)"))]))
                }
            }
            guard let to = target else {
                let why = "no transition's condition holds on screen \"\(screen.id)\""
                if !renderErrors.isEmpty { try commit(p, renderErrors, from: p.data) }
                blockedReason = why
                return .stayed(why)
            }
            p.backStack.append(screen.id)
            p.screen = to
            try commit(p, renderErrors + [(EventKind.screenView.name, to, [:])], from: p.data)
            return .screen(to)
        }
    }

    /// Returns to the previous screen of the back stack.
    @discardableResult
    public func back() throws -> FlowStep {
        try locked {
            var p = try running().progress
            guard let previous = p.backStack.popLast() else {
                blockedReason = "there is no previous screen"
                return .stayed("there is no previous screen")
            }
            p.screen = previous
            try commit(p, [(EventKind.screenView.name, previous, ["back": true])], from: p.data)
            return .screen(previous)
        }
    }

    /// Ends the flow early (`flow_exit`).
    @discardableResult
    public func exit() throws -> FlowStep {
        try locked {
            var p = try running().progress
            let screen = p.screen
            p.screen = nil
            p.status = .exited
            try commit(p, [(EventKind.flowExit.name, screen, [:])], from: p.data)
            return .exited
        }
    }

    /// Runs an action as a button gives it (a name or an object; see
    /// ``FlowAction``).  An action that does not parse, and one that is
    /// refused (a URL the link policy refuses, a `set` whose expression
    /// fails, a `submit` that has no endpoint, cannot reach it or gets a
    /// status other than 2xx), is a `render_error` event and a `.stayed`
    /// step saying why, never a crash; the flow goes on.
    ///
    /// - Throws: `.argument` when the flow is not running; the journal's
    ///   errors.
    @discardableResult
    public func perform(json action: JSONValue) async throws -> FlowStep {
        switch FlowAction.parse(action) {
        case .success(let a):
            let spec = FlowActions.spec(for: a)
            guard spec.refusable else { return try await spec.run(a, self) }
            let name = spec.name
            _ = try locked { try running() }
            do {
                return try await spec.run(a, self)
            } catch let e as SDUIError where !Self.journalFailure(e) {
                // "set: …" for every refusal, once.
                let why = e.message.hasPrefix(name + ": ") ? String(e.message.dropFirst(name.count + 2)) : e.message
                return try refuse(action, "\(name): \(why)")
            }
        case .failure(let why):
            return try refuse(action, "action: \(why.message)")
        }
    }

    /// Runs `action` with its row's handler (``FlowActions``).
    ///
    /// - Throws: `SDUIError`: `.argument` when the flow is not running;
    ///   `set`: an expression error; `toggle`: `.argument` when the key
    ///   holds something other than a boolean; `open_url`: the link
    ///   policy's refusal (`.schema`); `submit`: `.argument` without an
    ///   endpoint, `.schema` for an endpoint that is not an absolute
    ///   http(s) URL, `.network`, or `.http` for a status other than 2xx.
    @discardableResult
    public func perform(_ action: FlowAction) async throws -> FlowStep {
        try await FlowActions.spec(for: action).run(action, self)
    }

    /// Commits a `render_error` for an action that could not be used, and
    /// stays.
    private func refuse(_ action: JSONValue, _ detail: String) throws -> FlowStep {
        configuration.logger.warning("\(EventKind.renderError.name)", metadata: [
            "flow": "\(definition.id)", "action": "\(action)", "error": "\(detail)"])
        try locked {
            let r = try running()
            try commit(r.progress, [(EventKind.renderError.name, r.screen.id, ["detail": .string(detail)])],
                       from: r.progress.data)
        }
        return .stayed(detail)
    }

    /// Whether `e` is the journal failing (the step cannot be recorded),
    /// rather than the action being refused.
    private static func journalFailure(_ e: SDUIError) -> Bool {
        [.sqlite, .io, .oom, .corrupt].contains(e.category)
    }

    /// Forgets the saved progress of this flow key and user (the next
    /// ``start()`` begins afresh); queued events stay queued.
    public func reset() throws {
        try locked {
            try journal.commit(states: [(progressKey, nil)])
            current = nil
            blockedReason = nil
            apply(nil, from: nil)
        }
    }

    // MARK: Action host

    /// The screen shown (the flow is running).
    func shownScreen() throws -> String {
        try locked { try running().screen.id }
    }

    /// Commits `change` to the flow's data; the screen stays.
    func updateData(_ change: (inout JSONValue, ScenarioStore) throws -> Void) throws -> FlowStep {
        try locked {
            let (p0, screen, _) = try running()
            var p = p0
            var root = JSONValue.object(p.data)
            try change(&root, store)
            p.data = root.objectValue ?? [:]
            try commit(p, [], from: p0.data)
            return .screen(screen.id)
        }
    }

    /// Commits `event` on the screen shown; the screen stays.
    func record(event: String, properties: [String: JSONValue]) throws -> FlowStep {
        try locked {
            let r = try running()
            try commit(r.progress, [(event, r.screen.id, properties)], from: r.progress.data)
            return .screen(r.screen.id)
        }
    }

    /// The configuration's link policy.
    var linkPolicy: LinkPolicy { configuration.linkPolicy }

    /// Hands `url` to the configuration's `openURL`.
    func open(_ url: URL) { configuration.openURL(url) }

    /// The answers as `submit` posts them, the screen, the configured endpoint.
    func submission() throws -> (body: JSONValue, screen: String, endpoint: URL?, input: String) {
        let (p, screen) = try locked { () throws -> (FlowProgress, String) in
            let r = try running()
            return (r.progress, r.screen.id)
        }
        let body = JSONValue.object(["flowId": .string(definition.id), "flowVersion": .string(definition.version),
                                     "userId": .string(configuration.userID), "answers": .object(p.answers)])
        return (body, screen, configuration.submitEndpoint, definition.id)
    }

    /// The configuration's HTTP client.
    var httpClient: HTTPClient { configuration.httpClient }

    // MARK: Rendering

    /// The current screen's render tree: theme by screen, then flow, then
    /// the resolver's fallback; the flow's store bound; when the last `next`
    /// stayed, its reason drawn under the blocks.  The `render_error` events
    /// of the tree are committed once per screen view.
    ///
    /// - Throws: `SDUIError` `.argument` when no screen is shown.
    public func render(with resolver: ScreenResolver) throws -> RenderTree {
        let (screen, reason, view) = try locked { () throws -> (FlowScreen, String?, Int) in
            guard let p = current, let id = p.screen, let s = self.screen(id) else {
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
        let errors = tree.events.filter { $0.name == EventKind.renderError.name }
        if !errors.isEmpty {
            try locked {
                guard reportedRenderFor != view, viewSeq == view, var p = current,
                      p.screen == screen.id else { return }
                p.data = storeData()
                let events = errors.map { (EventKind.renderError.name, screen.id, ["block": JSONValue.string($0.token ?? ""),
                                                                                 "detail": .string($0.detail)]) }
                try commit(p, events, from: p.data)
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

    /// One event to commit: name, screen, properties.
    typealias Event = (String, String?, [String: JSONValue])

    /// The screen `id` of the definition, if any.
    private func screen(_ id: String) -> FlowScreen? {
        screenIndex[id].map { definition.screens[$0] }
    }

    /// The progress of a running flow, its screen and the screen's index.
    private func running() throws -> (progress: FlowProgress, screen: FlowScreen, index: Int) {
        guard let p = current else {
            throw SDUIError(.argument, "the flow has not started (call start())", input: definition.id)
        }
        guard p.status == .inProgress, let id = p.screen else {
            throw SDUIError(.argument, "the flow is \(p.status.rawValue.replacingOccurrences(of: "_", with: " "))",
                            input: definition.id)
        }
        guard let i = screenIndex[id] else {
            // start() resumes only on screens of the definition.
            throw SDUIError(.corrupt, "the flow's screen \"\(id)\" is not in the definition", input: definition.id)
        }
        var live = p
        live.data = storeData()
        return (live, definition.screens[i], i)
    }

    /// The flow's data as the store holds it now: every top-level member but
    /// the host's `attributes`.
    private func storeData() -> [String: JSONValue] {
        var data = store.snapshot().mapValues(\.jsonValue)
        data["attributes"] = nil
        return data
    }

    /// Refuses saved progress whose event counter no run can reach.
    private func checkCounters(_ p: FlowProgress) throws {
        guard (0...FlowProgress.maxEventSeq).contains(p.eventSeq) else {
            throw SDUIError(.corrupt, "saved progress \"\(progressKey)\": eventSeq \(p.eventSeq) is impossible "
                            + "(0 to \(FlowProgress.maxEventSeq)); the journal was changed outside the flow "
                            + "(reset() forgets the progress)", input: journal.path)
        }
    }

    /// A key of its own for progress that does not decode:
    /// `<progress key>#undecodable-<ms>-<random>` (a random one when that
    /// would be too long for a journal key).
    private func asideKey() -> String {
        let stamp = Self.milliseconds(configuration.now())
        let tag = UUID().uuidString.lowercased().prefix(8)
        let key = "\(progressKey)#undecodable-\(stamp)-\(tag)"
        return key.utf8.count <= 1024 ? key : "undecodable/\(UUID().uuidString.lowercased())"
    }

    /// Milliseconds since the Unix epoch of `date`, clamped to Int64.
    static func milliseconds(_ date: Date) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite else { return 0 }
        return Int64(exactly: ms) ?? (ms < 0 ? Int64.min : Int64.max)
    }

    /// Commits `p` with `events` (name, screen, properties) and the extra
    /// `states` rows in one transaction, then makes it the session's state
    /// and publishes its data's change from `base` (the data the step
    /// started from; nil: what the store holds now) to the store.
    ///
    /// - Throws: `.corrupt` when the event counter would pass
    ///   FlowProgress.maxEventSeq; the journal's errors.
    private func commit(_ p: FlowProgress, _ events: [Event], states: [(key: String, value: Data?)] = [],
                        from base: [String: JSONValue]?) throws {
        var next = p
        next.data["attributes"] = nil
        let now = Self.milliseconds(configuration.now())
        next.updatedAt = now
        guard next.eventSeq >= 0, events.count <= FlowProgress.maxEventSeq - next.eventSeq else {
            throw SDUIError(.corrupt, "progress \"\(progressKey)\": eventSeq \(next.eventSeq) leaves no room for "
                            + "\(events.count) more event(s) (at most \(FlowProgress.maxEventSeq))", input: journal.path)
        }
        var encoded: [Data] = []
        for (name, screen, properties) in events {
            next.eventSeq += 1
            encoded.append(FlowEvent(name: name, flowId: definition.id, flowVersion: definition.version,
                                     screen: screen, timestamp: now, seq: next.eventSeq,
                                     userId: configuration.userID, properties: properties).json)
        }
        try journal.commit(states: states + [(progressKey, next.json)], events: encoded)
        if next.screen != current?.screen { blockedReason = nil }
        if let i = events.lastIndex(where: { $0.0 == EventKind.screenView.name }) {
            viewSeq = next.eventSeq - (events.count - 1 - i)
        }
        emittedNames += events.map(\.0)
        apply(next, from: base)
    }

    /// Makes `p` the session's state (nil: none, after a reset) and
    /// publishes the change of its data (none: empty) from `base` (nil: what
    /// the store holds now) to the store, with the host's attributes when
    /// the store has none (or `base` is nil: the store is taken over).
    private func apply(_ p: FlowProgress?, from base: [String: JSONValue]?) {
        current = p
        var (patches, unnamed) = FlowDataPatch.diff(from: base ?? storeData(), to: p?.data ?? [:], skipping: ["attributes"])
        let attributes = JSONValue.object(configuration.attributes)
        if base == nil ? store.get("attributes")?.jsonValue != attributes : store.get("attributes") == nil,
           let path = try? KeyPath(components: [.key("attributes")]) {
            patches.append(FlowDataPatch(path: path, op: .set(attributes)))
        }
        let refused = FlowDataPatch.publish(patches, to: store)
        for why in refused + unnamed.map({ "the key \"\($0.prefix(64))…\" cannot be named as a key path" }) {
            configuration.logger.warning("the flow's store did not take a change of its data", metadata: [
                "flow": "\(definition.id)", "detail": "\(why)"])
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
