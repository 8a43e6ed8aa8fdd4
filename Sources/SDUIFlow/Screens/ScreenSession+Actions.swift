// ScreenSession+Actions.swift - a screen session's steps (actions, taps,
// inputs, back) and what it offers the action table's handlers (ActionHost).

import Foundation
import Logging
import SDUI
import SDUICore
import SDUIStore

extension ScreenSession: ActionHost {
    // MARK: Steps

    /// Runs an action as a node gives it (a name or an object; the rows of
    /// ``FlowActions``), reported as an `action` event.  An action that does
    /// not parse, or is refused (a URL the policy refuses, a `set` the store
    /// refuses, `next` outside a flow, a screen that cannot be loaded), is a
    /// `render_error` event and a `.stayed` step; the screen stays.
    ///
    /// - Parameter node: the id of the node that gave the action (see
    ///   ``RenderNodeID``), for the events and issues.
    /// - Throws: `.argument` before ``open(_:)``; the journal's errors.
    @discardableResult
    public func perform(json action: JSONValue, node: String? = nil) async throws -> ScreenUpdate {
        _ = try shownScreen()
        let parsed: FlowAction
        switch FlowAction.parse(action) {
        case .success(let a): parsed = a
        case .failure(let why): return try refuse("action: \(why.message)", node: node)
        }
        let name = parsed.name
        try locked {
            var properties: [String: JSONValue] = ["action": .string(name)]
            if let node { properties["node"] = .string(node) }
            try commit([(EventKind.action.name, properties)])
        }
        let step: FlowStep
        do {
            step = try await FlowActions.spec(for: parsed).run(parsed, self)
        } catch let e as SDUIError where !e.isJournalFailure {
            return try refuse(FlowActions.refusal(of: name, e), node: node)
        }
        return locked { updated(step) }
    }

    /// Runs the action of the node `target` names: a node id (``RenderNodeID``)
    /// or the label of a button or the text of a node with an action, the
    /// first in the tree; a node without an action runs the action of the
    /// nearest node above it that has one.
    ///
    /// - Throws: `.notFound` when no node of the tree shown matches or none
    ///   above it has an action; as ``perform(json:node:)``.
    @discardableResult
    public func tap(_ target: String) async throws -> ScreenUpdate {
        let (action, id) = try locked { () throws -> (JSONValue, String) in
            let tree = try shownLocked().tree
            // An id is found by its path; a label or text by the walk.
            let match: RenderNodeID
            if let found = RenderNodeID.find(target, in: tree) {
                match = found
            } else {
                let nodes = RenderNodeID.all(in: tree)
                guard let byText = nodes.first(where: { n in
                    n.node.props["action"] != nil
                        && (n.node.props["label"]?.stringValue == target || n.node.props["text"]?.stringValue == target)
                }) ?? nodes.first(where: { $0.node.props["label"]?.stringValue == target || $0.node.props["text"]?.stringValue == target })
                else {
                    throw SDUIError(.notFound, "no node \"\(target)\" on screen \"\(tree.screen)\" (no id, label or text matches)",
                                    input: target)
                }
                match = byText
            }
            // The node's action, else the nearest ancestor's.
            for depth in stride(from: match.path.count, through: 1, by: -1) {
                let path = Array(match.path.prefix(depth))
                guard let a = tree.root.descendant(at: path).props["action"] else { continue }
                return (a, RenderNodeID.ancestorID(of: match.id, at: match.path, path: path, in: tree) ?? match.id)
            }
            throw SDUIError(.notFound, "node \"\(match.id)\" on screen \"\(tree.screen)\" has no action", input: target)
        }
        return try await perform(json: action, node: id)
    }

    /// A swipe the UI layer recognised on node `target` (an id, or a label
    /// or text as ``tap(_:)`` finds them) in `direction` (left, right, up,
    /// down): runs the action of the node's `gestures.swipe` for that
    /// direction, or the nearest node above it that has one.
    ///
    /// - Throws: `.notFound` when no node matches or none above it swipes
    ///   that way; as ``perform(json:node:)``.
    @discardableResult
    public func swipe(_ target: String, direction: String) async throws -> ScreenUpdate {
        try await gesture(target, "swipe") { $0["direction"]?.stringValue == direction }
    }

    /// A long press the UI layer recognised on node `target`: runs the
    /// action of its `gestures.longPress`, or the nearest node above it that has one.
    ///
    /// - Throws: `.notFound` when no node matches or none above it takes a
    ///   long press; as ``perform(json:node:)``.
    @discardableResult
    public func longPress(_ target: String) async throws -> ScreenUpdate {
        try await gesture(target, "longPress") { _ in true }
    }

    /// Runs the action of the gesture `kind` (passing `matches`) of node
    /// `target` or its nearest ancestor that has one.
    private func gesture(_ target: String, _ kind: String,
                         matches: @Sendable (JSONValue) -> Bool) async throws -> ScreenUpdate {
        let (action, id) = try locked { () throws -> (JSONValue, String) in
            let tree = try shownLocked().tree
            let nodes = RenderNodeID.all(in: tree)
            guard let match = RenderNodeID.find(target, in: tree) ?? nodes.first(where: {
                $0.node.props["gestures"]?[kind] != nil
                    && ($0.node.props["label"]?.stringValue == target || $0.node.props["text"]?.stringValue == target)
            }) ?? nodes.first(where: { $0.node.props["label"]?.stringValue == target || $0.node.props["text"]?.stringValue == target })
            else {
                throw SDUIError(.notFound, "no node \"\(target)\" on screen \"\(tree.screen)\" (no id, label or text matches)",
                                input: target)
            }
            for depth in stride(from: match.path.count, through: 1, by: -1) {
                let path = Array(match.path.prefix(depth))
                guard let g = tree.root.descendant(at: path).props["gestures"]?[kind], matches(g),
                      let a = g["action"] else { continue }
                return (a, RenderNodeID.ancestorID(of: match.id, at: match.path, path: path, in: tree) ?? match.id)
            }
            throw SDUIError(.notFound, "node \"\(match.id)\" on screen \"\(tree.screen)\" takes no such \(kind)", input: target)
        }
        return try await perform(json: action, node: id)
    }

    /// Writes an input's value through the store, so the store's rules
    /// apply; a refused value keeps the store's message for `key` (shown in
    /// the input's `message`) and is an `input` issue, and an accepted one
    /// clears it.
    ///
    /// - Throws: `.argument` before ``open(_:)``, or when `key` is not a key path.
    @discardableResult
    public func input(_ key: String, _ value: JSONValue) throws -> ScreenUpdate {
        let path = try KeyPath(key)
        return try locked {
            let shown = try shownLocked()
            if let why = requiredMessage(key, value) {
                messageByKey[key] = why
            } else {
                switch store.set(key, StoreValue(value)) {
                case .ok: messageByKey[key] = nil
                case .failed(let why): messageByKey[key] = why
                }
            }
            if let why = messageByKey[key] {
                issueList.append(ScreenSessionIssue(kind: "input", node: key, message: why))
            }
            pending.append(path)
            return updated(.screen(shown.screen.requested), force: [key])
        }
    }

    /// Brings the tree up to date after the host wrote `keys` to the store
    /// itself (writes made through the session are followed already).
    public func storeChanged(_ keys: [String]) -> ScreenUpdate? {
        locked {
            guard let shown = stack.last else { return nil }
            pending += keys.compactMap { try? KeyPath($0) }
            return updated(.screen(shown.screen.requested), force: keys)
        }
    }

    /// Goes back to the screen under the one shown, resolved again with
    /// the store as it is now (`screen_view` with `back`); `.stayed` when
    /// there is none.
    @discardableResult
    public func back() throws -> FlowStep {
        try locked {
            guard stack.count > 1 else { return .stayed("there is no previous screen") }
            stack.removeLast()
            let previous = stack.removeLast()
            _ = try show(previous.screen, back: true)
            return .screen(previous.screen.requested)
        }
    }

    /// The update a finished step hands out, under the lock: the whole
    /// screen when another is shown; else the nodes bound to what was
    /// written, and the input nodes of `force` (their value or message).
    func updated(_ step: FlowStep, force: [String] = []) -> ScreenUpdate {
        // Every step checks that a screen is shown first, and the stack
        // never empties once one is (open replaces, back keeps one).
        guard var shown = stack.last else { preconditionFailure("a screen session step ran with no screen shown") }
        if screenChanged {
            screenChanged = false
            pending.removeAll()
            return ScreenUpdate(step: step, tree: shown.tree, changes: [RenderNodeChange(path: [], node: shown.tree.root)])
        }
        let written = pending
        pending.removeAll()
        let resolved = written.isEmpty ? [] : resolver.update(&shown.render, changed: written)
        // The changed nodes, decorated, put into the tree as handed out: the
        // rest of it is as it was (an update's changes are outermost).
        var root = shown.tree.root
        var changes: [RenderNodeChange] = []
        for c in resolved {
            let node = decorate(c.node)
            root.replaceDescendant(at: c.path, with: node)
            changes.append(RenderNodeChange(path: c.path, node: node))
        }
        if !changes.isEmpty {
            shown.inputs.removeAll { i in changes.contains { i.path.starts(with: $0.path) } }
            for c in changes { shown.inputs += Self.inputs(in: c.node, at: c.path) }
        }
        // Input nodes whose key was written (their value) or checked (their
        // message), outside the changes above.
        let keys = Set(force + written.map(\.description))
        if !keys.isEmpty {
            for i in shown.inputs where Self.touches(keys, i.key) && !changes.contains(where: { i.path.starts(with: $0.path) }) {
                let old = root.descendant(at: i.path)
                let node = decorate(old)
                guard node != old else { continue }
                root.replaceDescendant(at: i.path, with: node)
                changes.append(RenderNodeChange(path: i.path, node: node))
            }
        }
        if !changes.isEmpty {
            var tree = shown.render.tree
            tree.root = root
            shown.tree = tree
            stack[stack.count - 1] = shown
        }
        return ScreenUpdate(step: step, tree: shown.tree, changes: changes)
    }

    /// The input nodes (a `key` prop on an input primitive) of `node`'s
    /// subtree, `node` being at `path`.
    static func inputs(in node: RenderNode, at path: [Int]) -> [(path: [Int], key: String)] {
        var out: [(path: [Int], key: String)] = []
        func visit(_ n: RenderNode, _ p: [Int]) {
            if inputPrimitives.contains(n.primitive), n.kind == .primitive, let key = n.props["key"]?.stringValue {
                out.append((p, key))
            }
            for (i, c) in n.children.enumerated() { visit(c, p + [i]) }
        }
        visit(node, path)
        return out
    }

    /// Commits a `render_error` for an action that could not be used, and stays.
    private func refuse(_ detail: String, node: String?) throws -> ScreenUpdate {
        configuration.logger.warning("\(EventKind.renderError.name)", metadata: [
            "session": "\(sessionID)", "node": "\(node ?? "")", "error": "\(detail)"])
        return try locked {
            var properties: [String: JSONValue] = ["detail": .string(detail)]
            if let node { properties["node"] = .string(node) }
            try commit([(EventKind.renderError.name, properties)])
            issueList.append(ScreenSessionIssue(kind: EventKind.renderError.name, node: node, message: detail))
            return updated(.stayed(detail))
        }
    }

    /// The input node of the screen shown that binds `key`, if any.
    public func input(for key: String) -> RenderNode? {
        locked { inputNode(key) }
    }

    /// ``input(for:)`` under the lock already held.
    func inputNode(_ key: String) -> RenderNode? {
        guard let shown = stack.last, let i = shown.inputs.first(where: { $0.key == key }) else { return nil }
        return shown.tree.root.descendant(at: i.path)
    }

    /// Whether one of `keys` and `key` name the same value or one holds the other.
    static func touches(_ keys: Set<String>, _ key: String) -> Bool {
        guard let path = try? KeyPath(key) else { return false }
        return keys.contains { (try? KeyPath($0))?.intersects(path) ?? false }
    }

    // MARK: Action host

    /// `next` belongs to flows.
    func next() throws -> FlowStep {
        throw SDUIError(.argument, "next: only a flow has a next screen; use navigate", input: sessionID)
    }

    /// `exit` belongs to flows.
    func exit() throws -> FlowStep {
        throw SDUIError(.argument, "exit: only a flow can be exited; use back", input: sessionID)
    }

    /// Loads screen `id` and shows it over the one shown.
    func navigate(to id: String) async throws -> FlowStep {
        _ = try shownScreen()
        let provided = try await provider.screen(id)
        return try locked {
            _ = try show(provided, back: false)
            return .screen(id)
        }
    }

    /// The screen shown.
    func shownScreen() throws -> String {
        try locked { try shownLocked().screen.requested }
    }

    /// The screen shown, under the lock already held; `.argument` before
    /// ``open(_:)``.
    func shownLocked() throws -> Shown {
        guard let s = stack.last else { throw SDUIError(.argument, "no screen is shown (call open(_:))", input: sessionID) }
        return s
    }

    /// The message of a required input at `key` left empty (`value`: what
    /// it holds or is given), or nil: the one `required` rule of `input`
    /// and `validate`.
    func requiredMessage(_ key: String, _ value: JSONValue?) -> String? {
        guard inputNode(key)?.props["required"]?.boolValue == true, !FlowSession.answered(value) else { return nil }
        return "\(key) is required"
    }

    /// Writes `key` through the store (its rules apply; a refusal is thrown
    /// as `.argument`) and notes it for the next update.
    func write(_ key: KeyPath, _ value: (ScenarioStore, JSONValue?) throws -> JSONValue?) throws -> FlowStep {
        try locked {
            let s = try shownLocked()
            let text = key.description
            let result: ValidationResult
            if let v = try value(store, store.get(text)?.jsonValue) {
                result = store.set(text, StoreValue(v))
            } else if store.exists(text) {
                result = store.remove(text)
            } else {
                return .screen(s.screen.requested)
            }
            if case .failed(let why) = result {
                throw SDUIError(.argument, "the store refused \(text): \(why)", input: text)
            }
            messageByKey[text] = nil
            pending.append(key)
            return .screen(s.screen.requested)
        }
    }

    /// Whether `condition` holds in the store.
    func holds(_ condition: String) throws -> Bool {
        _ = try shownScreen()
        return try CompiledExpression.cached(condition).isTrue(in: store)
    }

    /// Checks each key against the store's rules and the screen's required
    /// inputs, keeping a message for every key that fails; `.stayed` naming
    /// the first.
    func validate(_ keys: [String]) throws -> FlowStep {
        try locked {
            let s = try shownLocked()
            var first: String?
            for key in keys {
                var why = requiredMessage(key, store.get(key)?.jsonValue)
                if why == nil, case .failed(let reason) = store.validate(key) { why = reason }
                messageByKey[key] = why
                if let why { first = first ?? why }
                pending.append(try KeyPath(key))
            }
            if let first { return .stayed("validate: \(first)") }
            return .screen(s.screen.requested)
        }
    }

    /// Commits a `track` event on the screen shown.
    func record(event: String, properties: [String: JSONValue]) throws -> FlowStep {
        try locked {
            let s = try shownLocked()
            try commit([(event, properties)])
            return .screen(s.screen.requested)
        }
    }

    /// The configuration's link policy.
    var linkPolicy: LinkPolicy { configuration.linkPolicy }

    /// Hands `url` to the configuration's `openURL`.
    func open(_ url: URL) { configuration.openURL(url) }

    /// `submit` belongs to flows.
    func submission() throws -> (body: JSONValue, screen: String, endpoint: URL?, input: String) {
        throw SDUIError(.argument, "submit: only a flow has answers to submit; use request", input: sessionID)
    }

    /// The configuration's HTTP client.
    var httpClient: HTTPClient { configuration.httpClient }

    /// The configuration's API base.
    var apiBase: URL? { configuration.apiBase }
}
