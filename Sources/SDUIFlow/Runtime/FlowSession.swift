// FlowSession.swift - one user walking one flow: the session's state, its
// lock and the lookups every step shares.  The steps live by concept in the
// files beside it: FlowSession+Start.swift (start and the resume policy),
// FlowSession+Steps.swift (answer, next, back, exit), FlowSession+Actions.swift
// (actions and the action host), FlowSession+Data.swift (the commit and the
// data path: the journal and the store), FlowSession+Rendering.swift.
//
// Every step is computed first and then committed: the new progress and the
// events the step caused go to the journal in one transaction, and only
// when that commit returns does the session (and its store) take the new
// state.  So what the session shows was committed, and after a kill the
// next session resumes exactly at the last committed step, with its events
// queued once.
//
// Thread safety: every member below is read and written under `lock` only;
// the members are internal (not private) so that the session's extension
// files can share them.

import Foundation
import Logging
import SDUI
import SDUICore
import SDUIStore

/// One user's run through a ``FlowDefinition`` (see the essays of FlowSession*.swift).
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
        /// The client `submit` and `request` use.
        public var httpClient: HTTPClient
        /// What a `request` whose `url` is a path is resolved against.
        public var apiBase: URL?
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
                    logger: Logger = Logger(label: "sdui.flow"),
                    apiBase: URL? = nil) {
            self.userID = userID
            self.flowKey = flowKey
            self.attributes = attributes
            self.submitEndpoint = submitEndpoint
            self.httpClient = httpClient
            self.apiBase = apiBase
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

    let lock = NSLock()
    var current: FlowProgress?
    /// What ``start()`` had to repair, in words.
    var repairs: [String] = []
    /// Each screen id's index in the definition (the first, should ids repeat).
    let screenIndex: [String: Int]
    /// Names of the events this session committed, in order.
    var emittedNames: [String] = []
    /// Why the last `next` stayed, shown on the screen until it moves.
    var blockedReason: String?
    /// The event seq of the current screen's view (its `screen_view`), and
    /// the view whose render errors were already reported.
    var viewSeq = -1
    var reportedRenderFor = -2
    /// Each screen's compiled conditions, by screen index (nil: does not parse).
    let conditions: [[Result<CompiledExpression, SDUIError>?]]

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

    // MARK: Internals

    /// Runs `body` under the session's lock.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// One event to commit: name, screen, properties.
    typealias Event = (String, String?, [String: JSONValue])

    /// The screen `id` of the definition, if any.
    func screen(_ id: String) -> FlowScreen? {
        screenIndex[id].map { definition.screens[$0] }
    }

    /// The progress of a running flow (its data as the store holds it), its
    /// screen and the screen's index.
    func running() throws -> (progress: FlowProgress, screen: FlowScreen, index: Int) {
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

    /// Milliseconds since the Unix epoch of `date`, clamped to Int64.
    static func milliseconds(_ date: Date) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite else { return 0 }
        return Int64(exactly: ms) ?? (ms < 0 ? Int64.min : Int64.max)
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
