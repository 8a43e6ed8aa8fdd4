// FlowSession+Actions.swift - running a flow's actions (FlowActions' table)
// and what the session offers their handlers (ActionHost).

import Foundation
import Logging
import SDUI
import SDUICore
import SDUIStore

extension FlowSession {
    // MARK: Actions

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
            } catch let e as SDUIError where !e.isJournalFailure {
                return try refuse(action, FlowActions.refusal(of: name, e))
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

    // MARK: Action host

    /// The screen shown (the flow is running).
    func shownScreen() throws -> String {
        try locked { try running().screen.id }
    }

    /// Commits the flow's data with `key` set to what `value` computes (nil:
    /// removed); the screen stays.
    func write(_ key: KeyPath, _ value: (ScenarioStore, JSONValue?) throws -> JSONValue?) throws -> FlowStep {
        try locked {
            let (p0, screen, _) = try running()
            var p = p0
            var root = JSONValue.object(p.data)
            if let v = try value(store, key.get(in: root)) {
                try key.set(v, in: &root)
            } else {
                key.remove(from: &root)
            }
            p.data = root.objectValue ?? [:]
            try commit(p, [], from: p0.data)
            return .screen(screen.id)
        }
    }

    /// Goes to the flow's screen `id`, the one shown kept on the back stack
    /// (a `screen_view`); `.argument` when the flow has no such screen.
    func navigate(to id: String) async throws -> FlowStep {
        try locked {
            var p = try running().progress
            guard screenIndex[id] != nil else {
                throw SDUIError(.argument, "flow \"\(definition.id)\" has no screen \"\(id)\"", input: id)
            }
            if let shown = p.screen { p.backStack.append(shown) }
            p.screen = id
            try commit(p, [(EventKind.screenView.name, id, [:])], from: p.data)
            return .screen(id)
        }
    }

    /// Checks `keys` against the flow store's rules and the screen's
    /// required inputs (an input writes `answers.<key>`); the first failure
    /// is the step's reason, shown on the screen until it moves.
    func validate(_ keys: [String]) throws -> FlowStep {
        try locked {
            let r = try running()
            for key in keys {
                let input = r.screen.inputs.first { "answers.\($0.key)" == key || $0.key == key }
                if let input, input.required, !Self.answered(store.get("answers.\(input.key)")?.jsonValue) {
                    blockedReason = "validate: an answer to \"\(input.key)\" is required"
                    return .stayed(blockedReason!)
                }
                if case .failed(let why) = store.validate(key) {
                    blockedReason = "validate: \(why)"
                    return .stayed(blockedReason!)
                }
            }
            return .screen(r.screen.id)
        }
    }

    /// Whether `condition` holds in the flow's store (the flow is running).
    func holds(_ condition: String) throws -> Bool {
        try locked {
            _ = try running()
            return try CompiledExpression.cached(condition).isTrue(in: store)
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

    /// The configuration's API base.
    var apiBase: URL? { configuration.apiBase }
}
