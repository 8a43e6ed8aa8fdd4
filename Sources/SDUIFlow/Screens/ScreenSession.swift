// ScreenSession.swift - one user on any screen outside a flow: the screens
// shown and their back stack, the store the screens read and write, the
// action table run against them, and the events they report.
//
// A screen comes from a ScreenProvider (the registry through ScreenLoader,
// with its X-Primitives, ETag, 409 and offline rules; or a folder), is
// resolved once into a ScreenRender, and kept with its lookups on a back
// stack of at most ``ScreenSession/maxBackStack`` screens.  After that the
// session changes the tree only where the data changed: an action's or an
// input's write to the store gives the key paths written, and
// `ScreenResolver.update` re-resolves just the nodes bound to them; the
// session hands those nodes to the host (``ScreenUpdate``).  Going to
// another screen, or back, resolves that screen whole.
//
// Inputs.  A TextField, Slider, Choice or Toggle node names a store key in
// its `key` prop.  The session writes an input's value through the store,
// so the store's rules (type, min/max, pattern, required) apply, and keeps
// the store's message for a key whose value it refused, or that a
// `validate` action found wanting.  Each input node of the tree the session
// hands out carries the key's current value in `value` and its message, if
// any, in `message` (the HTML preview shows both).
//
// Events.  Every screen shown reports `screen_view` (`back` when so),
// `token_usage` (each token id, version and where it came from),
// `experiment_exposure` for each experiment the screen took part in,
// `cache_stats` (the screen's lookups and cache hits), and an
// `unknown_primitive` or `render_error` for each such event of its tree;
// every action reports `action`, and an action that does not parse or is
// refused a `render_error` (the screen stays).  They are committed to the
// outbox (a FlowJournal) in one transaction per step, with the session's
// id and a sequence 1, 2, 3… without gaps, and sent by the same uploader
// as a flow's.
//
// Thread safety: every member below is read and written under `lock`;
// loading a screen happens outside it, and what it found is committed
// under it.

import Foundation
import Logging
import SDUI
import SDUICore
import SDUIStore

/// One user's session on screens outside a flow (see the file's essay).
///
/// ```swift
/// let session = ScreenSession(provider: loader, store: store, journal: journal)
/// let tree = try await session.open("checkout")
/// let update = try await session.tap("checkout_pay_button")   // runs its action
/// ui.redraw(update.changes)                                   // only what changed
/// ```
///
/// Thread-safe: every step takes the session's lock (hence `@unchecked
/// Sendable`), so steps from many tasks apply one at a time.
public final class ScreenSession: @unchecked Sendable {
    /// What a session needs from its host.
    public struct Configuration: Sendable {
        /// The user the events are reported for.
        public var userID: String
        /// The session's id in its events (a fresh lowercase UUID by default).
        public var sessionID: String
        /// The client `request` sends with.
        public var httpClient: HTTPClient
        /// What a `request` whose `url` is a path (`/cart/items`) is
        /// resolved against: the app's API.
        public var apiBase: URL?
        /// What `open_url` accepts (HTTPS to any host by default).
        public var linkPolicy: LinkPolicy
        /// Receives a URL `open_url` accepted.
        public var openURL: @Sendable (URL) -> Void
        /// The clock of timestamps.
        public var now: @Sendable () -> Date
        /// Where refusals are logged (label `sdui.screen` by default).
        public var logger: Logger

        /// A configuration; everything has a default.
        public init(userID: String = "", sessionID: String = UUID().uuidString.lowercased(),
                    httpClient: HTTPClient = HTTPClient(timeout: 10, maxBodyBytes: 1 << 20),
                    linkPolicy: LinkPolicy = .https,
                    openURL: @escaping @Sendable (URL) -> Void = { _ in },
                    now: @escaping @Sendable () -> Date = { Date() },
                    logger: Logger = Logger(label: "sdui.screen"), apiBase: URL? = nil) {
            self.userID = userID
            self.sessionID = sessionID
            self.httpClient = httpClient
            self.apiBase = apiBase
            self.linkPolicy = linkPolicy
            self.openURL = openURL
            self.now = now
            self.logger = logger
        }
    }

    /// The most screens the back stack keeps (the oldest is let go).
    public static let maxBackStack = 64
    /// The primitives whose `key` prop binds a store key.
    public static let inputPrimitives: Set<String> = ["TextField", "Slider", "Choice", "Toggle"]

    /// Where screens come from.
    public let provider: any ScreenProvider
    /// Resolves screens, with ``store`` bound.
    public let resolver: ScreenResolver
    /// The data the screens read and write.
    public let store: ScenarioStore
    /// Where events are committed (nil: they are only counted in ``emittedEvents``).
    public let journal: FlowJournal?
    /// What the host gave the session.
    public let configuration: Configuration

    /// One screen on the stack: what was provided and its render.
    struct Shown {
        var screen: ProvidedScreen
        var render: ScreenRender
        /// The tree as handed out (inputs carry value and message).
        var tree: RenderTree
        /// Where the tree's input nodes are, and the key each binds.
        var inputs: [(path: [Int], key: String)]
    }

    let lock = NSLock()
    var stack: [Shown] = []
    var seq = 0
    var emittedNames: [String] = []
    var shownIDs: [String] = []
    var messageByKey: [String: String] = [:]
    var issueList: [ScreenSessionIssue] = []
    /// Key paths written since the tree was last brought up to date.
    var pending: [KeyPath] = []
    /// Whether the screen shown changed since the last update was handed out.
    var screenChanged = false

    /// A session showing screens from `provider`.
    ///
    /// - Parameters:
    ///   - resolver: resolves screens (its context's primitives, themes,
    ///     Fallback Pack…); by default a ``ScreenLoader``'s own resolver, or
    ///     the built-in one.  The session binds ``store`` into it.
    ///   - store: the screens' data; by default a fresh in-memory store.
    ///   - journal: the outbox events go to; nil keeps none.
    public init(provider: any ScreenProvider, resolver: ScreenResolver? = nil, store: ScenarioStore? = nil,
                journal: FlowJournal? = nil, configuration: Configuration = Configuration()) {
        self.provider = provider
        let store = store ?? DefaultStore(appID: "sdui.screen").store(.scenarioSession(id: "screen:\(configuration.sessionID)"))
        var context = resolver?.context ?? (provider as? ScreenLoader)?.resolver.context ?? RenderContext()
        context.store = store
        self.resolver = ScreenResolver(context)
        self.store = store
        self.journal = journal
        self.configuration = configuration
    }

    // MARK: State

    /// The session's id, as its events carry it.
    public var sessionID: String { configuration.sessionID }

    /// The tree of the screen shown; nil before ``open(_:)``.
    public var tree: RenderTree? { locked { stack.last?.tree } }

    /// The id of the screen shown (the one asked for); nil before ``open(_:)``.
    public var currentScreen: String? { locked { stack.last?.screen.requested } }

    /// The ids of the screens under the one shown, oldest first.
    public var backStack: [String] { locked { stack.dropLast().map(\.screen.requested) } }

    /// Every screen shown, in order (a screen shown again, by `back` too, again).
    public var screensShown: [String] { locked { shownIDs } }

    /// The names of the events committed, in order.
    public var emittedEvents: [String] { locked { emittedNames } }

    /// The message of each input key the store refused or `validate` found wanting.
    public var messages: [String: String] { locked { messageByKey } }

    /// What went wrong, in order: refused actions, refused inputs, render errors.
    public var issues: [ScreenSessionIssue] { locked { issueList } }

    /// Runs `body` under the session's lock.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Showing screens

    /// Shows screen `id` as the session's first screen (the back stack is
    /// emptied) and reports it.
    ///
    /// - Throws: the provider's `SDUIError` when the screen cannot be had;
    ///   the journal's errors.
    @discardableResult
    public func open(_ id: String) async throws -> RenderTree {
        try open(provided: try await provider.screen(id))
    }

    /// Shows `provided` as the session's first screen (``open(_:)`` once
    /// the provider has answered).
    func open(provided: ProvidedScreen) throws -> RenderTree {
        try locked {
            stack.removeAll()
            let tree = try show(provided, back: false)
            screenChanged = false   // the host gets this tree whole
            return tree
        }
    }

    /// A presenter that runs screen `id` through the screen state machine:
    /// FETCH asks the provider, LOAD shows it as the session's first screen
    /// (``open(_:)``), so a host watches START → FETCH → LOAD → PRESENT (or
    /// ERROR, and `present()` again to retry) as a flow's screens go.
    public func presenter(_ id: String) -> ScreenPresenter<ProvidedScreen, RenderTree> {
        ScreenPresenter(fetch: { [provider] in try await provider.screen(id) },
                        load: { [self] provided in try open(provided: provided) })
    }

    /// Resolves `provided`, pushes it, and commits its events; under the lock.
    func show(_ provided: ProvidedScreen, back: Bool) throws -> RenderTree {
        let render = resolver.render(provided.items, lookups: provided.lookups)
        let tree = decorate(render.tree)
        let shown = Shown(screen: provided, render: render, tree: tree, inputs: Self.inputs(in: tree.root, at: []))
        try commit(screenEvents(shown, back: back), screen: provided.requested)
        stack.append(shown)
        if stack.count > Self.maxBackStack { stack.removeFirst(stack.count - Self.maxBackStack) }
        shownIDs.append(provided.requested)
        screenChanged = true
        pending.removeAll()
        return shown.tree
    }

    /// The events of a screen shown: `screen_view`, `token_usage`,
    /// `cache_stats`, and its tree's `unknown_primitive`, `missing_string` and `render_error`.
    func screenEvents(_ shown: Shown, back: Bool) -> [(String, [String: JSONValue])] {
        let id = shown.screen.requested
        var events: [(String, [String: JSONValue])] = [(EventKind.screenView.name, back ? ["back": true] : [:])]
        // The experiments the screen took part in, in the same transaction.
        events += shown.screen.exposures.map { (EventKind.experimentExposure.name, $0) }
        var tokens: [JSONValue] = []
        var lookups = 0, hits = 0
        for tokenID in shown.screen.items.tokenIDs {
            guard let lookup = shown.screen.lookups[tokenID] else { continue }
            lookups += 1
            guard case .found(let token, let source) = lookup else { continue }
            if source.isCacheHit { hits += 1 }
            tokens.append(["id": .string(token.id), "version": .int(Int64(token.version)),
                           "source": .string(shown.screen.fromFallbackPack ? "fallback" : source.rawValue)])
        }
        if !tokens.isEmpty { events.append((EventKind.tokenUsage.name, ["tokens": .array(tokens)])) }
        events.append((EventKind.cacheStats.name, ["lookups": .int(Int64(lookups)), "hits": .int(Int64(hits))]))
        for e in shown.render.tree.events {
            if e.name == EventKind.unknownPrimitive.name {
                events.append((e.name, ["primitive": .string(e.detail), "token": e.token.map(JSONValue.string) ?? .null,
                                        "appVersion": .string(e.appVersion)]))
            } else if e.name == EventKind.missingString.name {
                let locale = resolver.context.textLocale
                events.append((e.name, ["key": .string(e.detail), "locale": locale.map(JSONValue.string) ?? .null,
                                        "token": e.token.map(JSONValue.string) ?? .null]))
            } else if e.name == EventKind.renderError.name {
                events.append((e.name, ["token": e.token.map(JSONValue.string) ?? .null, "detail": .string(e.detail)]))
                issueList.append(ScreenSessionIssue(kind: e.name, node: e.token, message: "\(id): \(e.detail)"))
            }
        }
        return events
    }

    /// Commits `events` on the screen shown (or `screen`) to the outbox in
    /// one transaction; under the lock.
    func commit(_ events: [(String, [String: JSONValue])], screen: String? = nil) throws {
        guard !events.isEmpty else { return }
        let screen = screen ?? stack.last?.screen.requested
        if let journal {
            let now = FlowSession.milliseconds(configuration.now())
            var encoded: [Data] = []
            var next = seq
            for (name, properties) in events {
                next += 1
                encoded.append(FlowEvent(name: name, flowId: "", flowVersion: "", screen: screen, timestamp: now, seq: next,
                                         userId: configuration.userID, session: sessionID, properties: properties).json)
            }
            _ = try journal.commit(events: encoded)
        }
        seq += events.count
        emittedNames += events.map(\.0)
    }

    // MARK: Inputs in the tree

    /// `tree` with each input node's current value (`value`) and message
    /// (`message`, when the key has one) from the store and the session.
    func decorate(_ tree: RenderTree) -> RenderTree {
        var tree = tree
        tree.root = decorate(tree.root)
        return tree
    }

    /// `node` and its children decorated as ``decorate(_:)`` says.
    func decorate(_ node: RenderNode) -> RenderNode {
        var node = node
        if Self.inputPrimitives.contains(node.primitive), node.kind == .primitive,
           let key = node.props["key"]?.stringValue {
            // The store's value wins; without one, what the node was given stays.
            if let value = store.get(key)?.jsonValue { node.props["value"] = value }
            node.props["message"] = messageByKey[key].map(JSONValue.string)
        }
        if !node.children.isEmpty { node.children = node.children.map(decorate) }
        return node
    }
}

/// Something that went wrong in a screen session: its kind (an event name
/// such as `render_error`, or `input` for a refused input), the node or
/// token it concerns, when known, and the message.
public struct ScreenSessionIssue: Sendable, Hashable, Codable {
    /// What kind of trouble: `render_error`, `input`, `step`.
    public var kind: String
    /// The node id or token it concerns, when known.
    public var node: String?
    /// What happened, for a person.
    public var message: String

    /// An issue from its parts.
    public init(kind: String, node: String?, message: String) {
        self.kind = kind
        self.node = node
        self.message = message
    }
}

/// What a step of a screen session did, for the host to draw.
public struct ScreenUpdate: Sendable {
    /// The step: the screen shown, or why the action stayed.
    public var step: FlowStep
    /// The tree after the step.
    public var tree: RenderTree
    /// The nodes that changed, outermost only (empty: none; a change of the
    /// root's path `[]`: the whole screen, after going to another one).
    public var changes: [RenderNodeChange]
}
