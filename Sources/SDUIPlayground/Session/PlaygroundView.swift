// PlaygroundView.swift - one open page of the playground: a screen or a
// flow run by the runtime an app runs, and the messages that keep the page
// showing what it shows.
//
// A screen runs in a ScreenSession over the folder's last good values; a
// flow in a FlowSession.  Both commit their events to the playground's
// scratch journal.  The page holds the tree last sent (`shown`); after a
// step the view sends the page only the nodes that changed: for a screen
// session's tap, input or store edit, the nodes ScreenResolver.update
// re-resolved (ScreenUpdate.changes); for a step whose tree is resolved
// whole (a flow's step, a file saved, a panel changed), the nodes
// TreeChanges finds different.  Another screen is sent whole.
//
// A file saved, or a panel changed, builds the session again over the
// same store (a flow: over the same journal progress, which it resumes),
// so what the author sees is what a fresh app would draw with the data
// as it is now.
//
// Thread safety: an actor; the connection sends it one message at a time.
#if Server
import Foundation
import Logging
import SDUI
import SDUICore
import SDUIFlow
import SDUIStore

/// One page's screen or flow (see the file's essay).
package actor PlaygroundView {
    /// What the page shows.
    package enum Target: Sendable, Equatable {
        case screen(String)
        case flow(String)

        /// `screen checkout`, `flow onboarding`.
        package var description: String {
            switch self {
            case .screen(let id): "screen \"\(id)\""
            case .flow(let id): "flow \"\(id)\""
            }
        }
    }

    /// The most changed nodes sent as patches; more are sent as one render.
    package static let maxPatches = 64
    /// The most events and issues the panels list (the latest).
    package static let maxListed = 200

    let folder: PlaygroundFolder
    let journal: FlowJournal
    package let target: Target
    package private(set) var options = PlaygroundOptions()
    /// The page's id: the sessions' ids and the flow's progress key start with it.
    let pageID = UUID().uuidString.lowercased()
    /// How many sessions this page has had (each a fresh id in the journal).
    private var generation = 0
    private var screenSession: ScreenSession?
    private var flowSession: FlowSession?
    /// The tree the page shows, for tests and the node panel.
    package var shownTree: RenderTree? { shown }
    /// The screen session's store, kept when the session is built again.
    private var screenStore: ScenarioStore
    /// The tree the page shows; nil when it shows a message.
    private var shown: RenderTree?
    /// Steps refused by the playground itself (no such node, bad value).
    private var refusals: [String] = []
    /// The events of the sessions this page had before the current one.
    private var earlierEvents: [String] = []
    /// The flow's progress key (kept across rebuilds of one run).
    private var flowKey = ""
    /// Why nothing can be shown, when nothing can.
    private var missing: String?
    /// The resolver of the current options (a flow renders with it).
    private var resolver = ScreenResolver()
    /// The tree the session has now, not yet sent (nil: ask the session).
    private var current: RenderTree?

    /// A view of `target` over `folder`'s files, its events going to `journal`.
    package init(folder: PlaygroundFolder, journal: FlowJournal, target: Target) {
        self.folder = folder
        self.journal = journal
        self.target = target
        screenStore = DefaultStore(appID: "sdui.dev").store(.scenarioSession(id: "dev-\(pageID)"))
    }

    // MARK: Messages

    /// The first messages of a page: its render and its panels.
    package func start() async -> [JSONValue] {
        await rebuild(fresh: true)
        return [render(), state()]
    }

    /// The answer to one message from the page.  A message that cannot
    /// apply is an `error` message naming why; nothing is thrown.
    package func handle(_ message: JSONValue) async -> [JSONValue] {
        do {
            guard let type = message["type"]?.stringValue else {
                throw SDUIError(.argument, "a message is an object with a \"type\"", input: "message")
            }
            switch type {
            case "tap": return try await tap(try path(message))
            case "input":
                let (key, value) = try inputTarget(message)
                return try await input(key, value)
            case "refresh":
                current = nil
                return [render(), state()]
            case "store": return try await setStore(try key(message), message["value"] ?? .null)
            case "back": return try await step { try $0.back() } flow: { try $0.back() }
            case "next":
                guard case .flow = target else { throw SDUIError(.argument, "next is for flows", input: "next") }
                return try await step { _ in .stayed("") } flow: { try $0.next() }
            case "restart":
                screenStore = DefaultStore(appID: "sdui.dev").store(.scenarioSession(id: "dev-\(pageID)-\(generation + 1)"))
                await rebuild(fresh: true)
                return [render(), state()]
            case "options":
                options = try options.applying(message)
                await rebuild(fresh: false)
                return [changes(), state()].compactMap { $0 }
            case "select":
                let p = try path(message)
                guard let node = shown.flatMap({ Self.node(in: $0.root, at: p) }) else {
                    throw SDUIError(.notFound, "no node at path \"\(HTMLPreview.pathText(p))\"", input: "select")
                }
                return [["type": "node", "path": .string(HTMLPreview.pathText(p)), "node": Self.json(node)]]
            default:
                throw SDUIError(.argument, "unknown message type \"\(String(type.prefix(40)))\"", input: "message")
            }
        } catch {
            let text = (error as? SDUIError).map { e in (e.input.map { "\($0): " } ?? "") + e.message } ?? "\(error)"
            note(text)
            return [["type": "error", "message": .string(text)], state()]
        }
    }

    /// The answer to files of the folder changing (`paths` relative, already
    /// read again by the folder): the panels, and the screen drawn again
    /// when it uses one of them.
    package func folderChanged(_ paths: [String]) async -> [JSONValue] {
        guard paths.contains(where: uses) else { return [state()] }
        await rebuild(fresh: false)
        return [changes(), state()].compactMap { $0 }
    }

    /// Whether the page's screen or flow reads `path`.
    func uses(_ path: String) -> Bool {
        if path == FolderWatcher.everything || path.hasPrefix("themes/") { return true }
        switch target {
        case .flow(let id):
            return path == "flows/\(id).json"
        case .screen:
            for id in [screenSession?.currentScreen].compactMap({ $0 }) + (screenSession?.backStack ?? []) {
                if PlaygroundFolder.screenFolders.contains(where: { path == "\($0)/\(id).json" }) { return true }
                if path.hasPrefix("tokens/"), let items = folder.screen(id)?.items {
                    let token = String(path.dropFirst("tokens/".count).dropLast(".json".count))
                    if items.tokenIDs.contains(token) { return true }
                }
            }
            // A screen that could not be shown may be there now.
            return shown == nil
        }
    }

    // MARK: Steps

    /// Taps the node at `p`: its action, or the nearest one above it.
    private func tap(_ p: [Int]) async throws -> [JSONValue] {
        guard let tree = shown else { throw SDUIError(.argument, "nothing is shown", input: "tap") }
        switch target {
        case .screen:
            guard let session = screenSession,
                  let id = RenderNodeID.all(in: tree).first(where: { $0.path == p })?.id else {
                throw SDUIError(.notFound, "no node at path \"\(HTMLPreview.pathText(p))\"", input: "tap")
            }
            let update = try await session.tap(id)
            if case .stayed(let why) = update.step, !why.isEmpty { note("tap \(id): \(why)") }
            return [apply(update), state()].compactMap { $0 }
        case .flow:
            guard let session = flowSession else { throw SDUIError(.argument, "the flow is not running", input: "tap") }
            var action: JSONValue?
            for depth in stride(from: p.count, through: 1, by: -1) {
                if let a = Self.node(in: tree.root, at: Array(p.prefix(depth)))?.props["action"] {
                    action = a
                    break
                }
            }
            guard let action else {
                throw SDUIError(.notFound, "the node at \"\(HTMLPreview.pathText(p))\" has no action", input: "tap")
            }
            let step = try await session.perform(json: action)
            if case .stayed(let why) = step, !why.isEmpty { note(why) }
            return [changes(), state()].compactMap { $0 }
        }
    }

    /// An input's value: through the store (a screen) or as the flow's answer.
    private func input(_ key: String, _ value: JSONValue) async throws -> [JSONValue] {
        switch target {
        case .screen:
            guard let session = screenSession else { throw SDUIError(.argument, "nothing is shown", input: "input") }
            return [apply(try session.input(key, value)), state()].compactMap { $0 }
        case .flow:
            guard let session = flowSession else { throw SDUIError(.argument, "the flow is not running", input: "input") }
            try session.answer(key, value)
            return [changes(), state()].compactMap { $0 }
        }
    }

    /// The store panel's edit: `key` set to `value`; the nodes bound to it follow.
    private func setStore(_ key: String, _ value: JSONValue) async throws -> [JSONValue] {
        let store = flowSession?.store ?? screenStore
        if case .failed(let why) = store.set(key, StoreValue(value)) {
            throw SDUIError(.argument, why, input: "store \(key)")
        }
        if let session = screenSession, let update = session.storeChanged([key]) {
            return [apply(update), state()].compactMap { $0 }
        }
        return [changes(), state()].compactMap { $0 }
    }

    /// Back or next: `screen` runs on a screen session, `flow` on a flow's.
    private func step(_ screen: (ScreenSession) throws -> FlowStep,
                      flow: (FlowSession) throws -> FlowStep) async throws -> [JSONValue] {
        let result: FlowStep
        if let s = screenSession {
            result = try screen(s)
        } else if let f = flowSession {
            result = try flow(f)
        } else {
            throw SDUIError(.argument, "nothing is shown", input: "step")
        }
        if case .stayed(let why) = result, !why.isEmpty { note(why) }
        return [changes(), state()].compactMap { $0 }
    }

    // MARK: Sessions

    /// Builds the session again with the current options and files; `fresh`
    /// starts over (a new store for a screen, a new progress for a flow).
    private func rebuild(fresh: Bool) async {
        generation += 1
        let context = options.context(themes: folder.themeList, strings: folder.strings)
        var quiet = Logger(label: "sdui.dev")
        quiet.logLevel = .critical
        do {
            switch target {
            case .screen(let id):
                let current = screenSession?.currentScreen ?? id
                if let old = screenSession { keepEvents(of: old.emittedEvents) }
                let session = ScreenSession(provider: folder.provider, resolver: ScreenResolver(context), store: screenStore,
                                            journal: journal,
                                            configuration: .init(userID: "dev", sessionID: "\(pageID)-\(generation)",
                                                                 logger: quiet))
                screenSession = session
                _ = try await session.open(fresh ? id : current)
            case .flow(let id):
                guard let definition = folder.flow(id) else {
                    throw SDUIError(.notFound, "no flow \"\(id)\" in flows/ (or it never parsed)", input: id)
                }
                if let old = flowSession { keepEvents(of: old.emittedEvents) }
                if fresh || flowSession == nil { flowKey = "dev-\(pageID)-\(generation)" }
                let session = try FlowSession(definition: definition, journal: journal,
                                              configuration: .init(userID: "dev", flowKey: flowKey, logger: quiet))
                flowSession = session
                _ = try session.start()
            }
        } catch {
            screenSession = nil
            flowSession = nil
            missing = (error as? SDUIError).map { e in (e.input.map { "\($0): " } ?? "") + e.message } ?? "\(error)"
        }
        resolver = ScreenResolver(context)
        current = nil
    }

    /// The session's tree as it is now; nil when nothing can be shown.
    private func sessionTree() -> RenderTree? {
        if let current { return current }
        if let s = screenSession { return s.tree }
        if let f = flowSession {
            guard f.currentScreen != nil else {
                missing = "flow \"\(f.definition.id)\" is \(f.progress?.status.rawValue ?? "over"); restart to walk it again"
                return nil
            }
            do { return try f.render(with: resolver) } catch {
                missing = "\(error)"
                return nil
            }
        }
        return nil
    }

    // MARK: Outgoing

    /// The whole screen as the page shows it.
    private func render() -> JSONValue {
        shown = sessionTree()
        current = nil
        guard let tree = shown else {
            let text = HTMLPreview.escaped(missing ?? "nothing to show")
            return ["type": "render", "html": .string("<div class=\"sdui-dev-missing\" role=\"alert\">\(text)</div>")]
        }
        missing = nil
        return ["type": "render", "html": .string(HTMLPreview.annotatedFrame(tree))]
    }

    /// The page brought from the tree it shows to the session's, by the
    /// nodes that differ (TreeChanges).
    private func changes() -> JSONValue? {
        guard let old = shown, let new = sessionTree() else { return render() }
        return patch(TreeChanges.between(old, new), in: new)
    }

    /// A screen session's update: the nodes it re-resolved.
    private func apply(_ update: ScreenUpdate) -> JSONValue? {
        guard let old = shown, old.screen == update.tree.screen else {
            current = update.tree
            return render()
        }
        // The paths of the update, outermost only, are in update.tree.
        return patch(update.changes.map(\.path), in: update.tree)
    }

    /// A `patch` of `paths` in `tree` (a `render` for the root or too many).
    private func patch(_ paths: [[Int]], in tree: RenderTree) -> JSONValue? {
        if paths.contains([]) || paths.count > Self.maxPatches {
            current = tree
            return render()
        }
        var list: [JSONValue] = []
        for p in paths {
            guard let html = HTMLPreview.annotatedNode(in: tree, at: p) else {
                current = tree
                return render()
            }
            list.append(["path": .string(HTMLPreview.pathText(p)), "html": .string(html)])
        }
        shown = tree
        return list.isEmpty ? nil : ["type": "patch", "changes": .array(list)]
    }

    /// The panels: screen, store, events, issues, the banner's problems,
    /// the themes and the options.
    private func state() -> JSONValue {
        let store = flowSession?.store ?? screenStore
        let events = earlierEvents + (screenSession?.emittedEvents ?? flowSession?.emittedEvents ?? [])
        var issues = (shown?.issues ?? []).map(\.description)
        issues += (screenSession?.issues ?? []).map { i in (i.node.map { "\($0): " } ?? "") + i.message }
        if let reason = flowSession?.lastRefusal { issues.append(reason) }
        issues += refusals
        let screen: String? = screenSession?.currentScreen ?? flowSession?.currentScreen?.id
        let canBack = !(screenSession?.backStack.isEmpty ?? true)
            || (flowSession?.progress?.backStack.isEmpty == false)
        return [
            "type": "state",
            "target": .string(target.description),
            "screen": screen.map(JSONValue.string) ?? .null,
            "store": .object(store.snapshot().mapValues(\.jsonValue)),
            "events": .array(events.suffix(Self.maxListed).map { .string($0) }),
            "issues": .array(issues.suffix(Self.maxListed).map { .string($0) }),
            "errors": .array(folder.problemList.map(\.json)),
            "themes": .array(folder.themeList.map { .string($0.id) }),
            "locales": .array(folder.locales.map { .string($0) }),
            "options": options.json,
            "canBack": .bool(canBack),
        ]
    }

    /// Keeps the latest events of a session let go, for the event log.
    private func keepEvents(of names: [String]) {
        earlierEvents = Array((earlierEvents + names).suffix(Self.maxListed))
    }

    /// Keeps a refusal for the issues panel.
    private func note(_ text: String) {
        refusals.append(text)
        if refusals.count > Self.maxListed { refusals.removeFirst(refusals.count - Self.maxListed) }
    }

    // MARK: Helpers

    /// The `path` member: `""` or child indexes joined by dots.
    private func path(_ message: JSONValue) throws -> [Int] {
        guard let text = message["path"]?.stringValue, text.utf8.count <= 512 else {
            throw SDUIError(.argument, "\"path\" is a text of child indexes joined by dots", input: "path")
        }
        if text.isEmpty { return [] }
        var out: [Int] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard let i = Int(part), i >= 0, String(i) == part else {
                throw SDUIError(.argument, "\"\(text.prefix(80))\" is not a node path", input: "path")
            }
            out.append(i)
        }
        return out
    }

    /// The key and value of an `input` message: its `key`, or the `key`
    /// prop of the node at its `path`; a Choice's option texts become the
    /// options' own values.
    private func inputTarget(_ message: JSONValue) throws -> (String, JSONValue) {
        let value = message["value"] ?? .null
        if message["key"] != nil { return (try key(message), value) }
        let p = try path(message)
        guard let node = shown.flatMap({ Self.node(in: $0.root, at: p) }),
              let key = node.props["key"]?.stringValue else {
            throw SDUIError(.notFound, "no input at path \"\(HTMLPreview.pathText(p))\"", input: "input")
        }
        guard node.primitive == "Choice", let options = node.props["options"]?.arrayValue else { return (key, value) }
        /// The option whose text (its value as the page shows it, or its label) is `text`.
        func option(_ text: JSONValue) -> JSONValue {
            guard let t = text.stringValue else { return text }
            return options.first { ($0["value"]?.scalarText ?? $0["label"]?.scalarText) == t }?["value"] ?? text
        }
        if case .array(let items) = value { return (key, .array(items.map(option))) }
        return (key, option(value))
    }

    /// The `key` member: a store key path.
    private func key(_ message: JSONValue) throws -> String {
        guard let key = message["key"]?.stringValue, !key.isEmpty, key.utf8.count <= 256 else {
            throw SDUIError(.argument, "\"key\" is a key path of 1 to 256 bytes", input: "key")
        }
        _ = try KeyPath(key)
        return key
    }

    /// The node at `path` under `root`, if any.
    static func node(in root: RenderNode, at path: [Int]) -> RenderNode? {
        var node = root
        for i in path {
            guard node.children.indices.contains(i) else { return nil }
            node = node.children[i]
        }
        return node
    }

    /// A node as JSON, the members of its Codable form (kind, primitive,
    /// version, token, reason, props, children).
    static func json(_ node: RenderNode) -> JSONValue {
        var o: [String: JSONValue] = ["kind": .string(node.kind.rawValue), "primitive": .string(node.primitive),
                                      "version": .int(Int64(node.version)), "props": .object(node.props)]
        if let token = node.token { o["token"] = .string(token) }
        if let reason = node.reason { o["reason"] = .string(reason) }
        if !node.children.isEmpty { o["children"] = .array(node.children.map(json)) }
        return .object(o)
    }
}
#endif
