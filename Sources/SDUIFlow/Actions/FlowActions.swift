// FlowActions.swift - the action table: every action a button may name, one
// row each (name, fields, parser, handler), and the look-ups that parse,
// validation and the session's dispatch derive from it.
//
// Adding an action is a case of `FlowAction`, a row here with its parser
// and handler, a line in docs/flows.md's table, an entry in
// schemas/flow.json, and a test; FlowActionsTests fails until the docs and
// the schema agree with the rows.
import Foundation
import SDUICore
import SDUIStore

/// The action table (see the file's essay).
public enum FlowActions {
    /// Every action, one row each.
    public static let all: [ActionSpec] = [next, back, exit, set, toggle, openURL, submit, track, sequence, condition,
                                           navigate, request, validate]

    /// The most actions one `sequence` runs.
    public static let maxSequence = 16
    /// The most `sequence` and `if` levels one action nests.
    public static let maxDepth = 4
    /// The most actions one action holds, itself and all it nests included:
    /// what reading, validating or running one action costs at most.
    public static let maxActions = 32
    /// The most keys one `validate` checks.
    public static let maxValidateKeys = 32
    /// The longest a `request` may wait, in seconds.
    public static let maxRequestTimeout = 60.0
    /// The methods a `request` may use.
    public static let requestMethods: [String] = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    /// Where a failed `request` is recorded in the store: `{"url", "method",
    /// "status" (null without an answer), "message"}`; removed by the next
    /// request that succeeds.
    public static let requestErrorKey = "requestError"

    /// The row named `name`, if any.
    public static func spec(named name: String) -> ActionSpec? { byName[name] }

    /// The row of `action`.
    static func spec(for action: FlowAction) -> ActionSpec {
        // Every case has its row: FlowActionsTests parses each row's example
        // and finds the row again by the action's name.
        guard let spec = byName[action.name] else {
            preconditionFailure("FlowAction.\(action.name) has no row in FlowActions.all")
        }
        return spec
    }

    /// The names, sorted: the "known:" list of an unknown action.
    public static let names: [String] = all.map(\.name).sorted()

    private static let byName: [String: ActionSpec] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    // MARK: Rows

    static let next = ActionSpec(name: "next", example: "next", parse: { _, _ in .success(.next) },
                                 run: { _, host in try host.next() })

    static let back = ActionSpec(name: "back", example: "back", parse: { _, _ in .success(.back) },
                                 run: { _, host in try host.back() })

    static let exit = ActionSpec(name: "exit", example: "exit", parse: { _, _ in .success(.exit) },
                                 run: { _, host in try host.exit() })

    /// Writes a key path of the flow's data to a value or an expression's
    /// result (`expr` wins when both are given); `attributes.*` is refused.
    static let set = ActionSpec(
        name: "set", fields: [.init("key", required: true), .init("value", required: false), .init("expr", required: false)],
        example: ["type": "set", "key": "x", "value": 1], refusable: true,
        parse: { o, _ in
            if case .failure(let why) = dataKey(o, "set") { return .failure(why) }
            let key = o["key"]?.stringValue ?? ""
            if let e = o["expr"] {
                guard let text = e.stringValue else { return .failure(.init(message: "set: \"expr\" must be a string")) }
                if let why = unparsed(text, "set: \"expr\"") { return .failure(why) }
                return .success(.set(key: key, .expression(text)))
            }
            guard let v = o["value"] else { return .failure(.init(message: "set needs \"value\" or \"expr\"")) }
            return .success(.set(key: key, .value(v)))
        },
        run: { action, host in
            guard case .set(let key, let source) = action else { throw ActionSpec.mismatch("set", action) }
            return try host.write(try writablePath(key, "set")) { store, _ in
                switch source {
                case .value(let v): v
                case .expression(let text): try CompiledExpression.cached(text).evaluate(in: store)
                }
            }
        },
        writes: { if case .set(let key, _) = $0 { key } else { nil } })

    /// Flips a boolean key path of the flow's data: missing or null becomes
    /// true; a value that is not a boolean is refused.
    static let toggle = ActionSpec(
        name: "toggle", fields: [.init("key", required: true)], example: ["type": "toggle", "key": "x"], refusable: true,
        parse: { o, _ in dataKey(o, "toggle").map { .toggle(key: $0) } },
        run: { action, host in
            guard case .toggle(let key) = action else { throw ActionSpec.mismatch("toggle", action) }
            return try host.write(try writablePath(key, "toggle")) { _, held in
                let now: Bool
                switch held {
                case nil, .null?: now = true
                case .bool(let b)?: now = !b
                case .string?: throw SDUIError(.argument, "toggle: \"\(key)\" holds a string, not a boolean", input: key)
                case .array?: throw SDUIError(.argument, "toggle: \"\(key)\" holds an array, not a boolean", input: key)
                case .object?: throw SDUIError(.argument, "toggle: \"\(key)\" holds an object, not a boolean", input: key)
                case .int?, .double?: throw SDUIError(.argument, "toggle: \"\(key)\" holds a number, not a boolean", input: key)
                }
                return .bool(now)
            }
        },
        writes: { if case .toggle(let key) = $0 { key } else { nil } })

    /// Checks the URL against the link policy and hands it to the host.
    static let openURL = ActionSpec(
        name: "open_url", fields: [.init("url", required: true)], example: ["type": "open_url", "url": "https://example.com/"],
        refusable: true,
        parse: { o, _ in
            guard let url = o["url"]?.stringValue, !url.isEmpty else {
                return .failure(.init(message: "open_url needs a string \"url\""))
            }
            return .success(.openURL(url))
        },
        run: { action, host in
            guard case .openURL(let text) = action else { throw ActionSpec.mismatch("open_url", action) }
            let screen = try host.shownScreen()
            let url = try host.linkPolicy.check(text)
            host.open(url)
            return .screen(screen)
        },
        checkLinks: { action, validator in
            guard case .openURL(let url) = action, let why = validator.links.reason(for: url) else { return nil }
            return ("url", "open_url: link refused: \(why)")
        })

    /// POSTs `{"answers", "flowId", "flowVersion", "userId"}` to `endpoint`
    /// or the configured one.
    static let submit = ActionSpec(
        name: "submit", fields: [.init("endpoint", required: false)], example: "submit", refusable: true,
        parse: { o, _ in
            if let e = o["endpoint"], e.stringValue == nil {
                return .failure(.init(message: "submit: \"endpoint\" must be a string"))
            }
            return .success(.submit(endpoint: o["endpoint"]?.stringValue))
        },
        run: { action, host in
            guard case .submit(let endpoint) = action else { throw ActionSpec.mismatch("submit", action) }
            let (body, screen, configured, input) = try host.submission()
            let url: URL
            if let endpoint {
                do {
                    url = try LinkPolicy.endpoints.check(endpoint)
                } catch let e as SDUIError {
                    throw SDUIError(.schema, "submit: endpoint refused: "
                                    + e.message.replacingOccurrences(of: "link refused: ", with: ""), input: endpoint)
                }
            } else if let configured, configured.scheme == "https" || configured.scheme == "http" {
                url = configured
            } else {
                throw SDUIError(.argument, "submit: no endpoint (configure one, or give an absolute http(s) \"endpoint\")",
                                input: input)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let response = try await host.httpClient.post(url, body: try encoder.encode(body),
                                                         headers: ["Content-Type": "application/json"])
            guard (200..<300).contains(response.status) else {
                throw SDUIError(.http, "submit: HTTP \(response.status)", input: url.absoluteString)
            }
            return .screen(screen)
        },
        checkLinks: { action, validator in
            guard case .submit(let endpoint?) = action, let why = validator.endpoints.reason(for: endpoint) else {
                return nil
            }
            return ("endpoint", "submit: endpoint refused: \(why)")
        })

    /// Records a custom analytics event named `event`.
    static let track = ActionSpec(
        name: "track", fields: [.init("event", required: true), .init("properties", required: false)],
        example: ["type": "track", "event": "tap"],
        parse: { o, _ in
            guard let event = o["event"]?.stringValue, !event.isEmpty else {
                return .failure(.init(message: "track needs a string \"event\""))
            }
            if let why = EventKind.refusal(ofTrackName: event) {
                return .failure(.init(message: "track: \"event\" \(why)"))
            }
            if let p = o["properties"], p.objectValue == nil {
                return .failure(.init(message: "track: \"properties\" must be an object"))
            }
            return .success(.track(event: event, properties: o["properties"]?.objectValue ?? [:]))
        },
        run: { action, host in
            guard case .track(let event, let properties) = action else { throw ActionSpec.mismatch("track", action) }
            return try host.record(event: event, properties: properties)
        })

    /// Runs actions in order; stops at the first that cannot apply
    /// (`.stayed`, the step the sequence returns) or ends the flow, and at
    /// the first that is refused (a `render_error` naming it; the actions
    /// before it keep their effect).
    static let sequence = ActionSpec(
        name: "sequence", fields: [.init("actions", required: true)],
        example: ["type": "sequence", "actions": ["next"]], refusable: true,
        parse: { o, budget in
            guard let items = o["actions"]?.arrayValue, !items.isEmpty else {
                return .failure(.init(message: "sequence needs \"actions\", an array of 1 to \(maxSequence) actions"))
            }
            guard items.count <= maxSequence else {
                return .failure(.init(message: "sequence: \(items.count) actions; at most \(maxSequence)"))
            }
            var actions: [FlowAction] = []
            for (i, item) in items.enumerated() {
                switch FlowAction.parse(item, &budget) {
                case .success(let a): actions.append(a)
                case .failure(let why): return .failure(.init(message: "sequence: actions[\(i)]: \(why.message)"))
                }
            }
            return .success(.sequence(actions))
        },
        run: { action, host in
            guard case .sequence(let actions) = action else { throw ActionSpec.mismatch("sequence", action) }
            var step = FlowStep.screen(try host.shownScreen())
            for (i, a) in actions.enumerated() {
                step = try await inner(a, host, at: "actions[\(i)]")
                if case .screen = step { continue }
                break
            }
            return step
        })

    /// Runs `then` when the expression `when` holds in the flow's store,
    /// else `else`, if given (else the screen stays).  A condition that
    /// fails or gives anything but a boolean refuses the action.
    static let condition = ActionSpec(
        name: "if", fields: [.init("when", required: true), .init("then", required: true), .init("else", required: false)],
        example: ["type": "if", "when": "true", "then": "next"], refusable: true,
        parse: { o, budget in
            guard let when = o["when"]?.stringValue, !when.isEmpty else {
                return .failure(.init(message: "if needs \"when\", a condition"))
            }
            if let why = unparsed(when, "if: \"when\"") { return .failure(why) }
            guard let thenJSON = o["then"] else { return .failure(.init(message: "if needs \"then\", an action")) }
            let then: FlowAction
            switch FlowAction.parse(thenJSON, &budget) {
            case .success(let a): then = a
            case .failure(let why): return .failure(.init(message: "if: then: \(why.message)"))
            }
            var otherwise: FlowAction?
            if let elseJSON = o["else"] {
                switch FlowAction.parse(elseJSON, &budget) {
                case .success(let a): otherwise = a
                case .failure(let why): return .failure(.init(message: "if: else: \(why.message)"))
                }
            }
            return .success(.condition(when: when, then: then, otherwise: otherwise))
        },
        run: { action, host in
            guard case .condition(let when, let then, let otherwise) = action else { throw ActionSpec.mismatch("if", action) }
            let holds: Bool
            do {
                holds = try host.holds(when)
            } catch let e as SDUIError {
                throw SDUIError(e.category, "condition \(when): \(e.message)", input: e.input)
            }
            guard let chosen = holds ? then : otherwise else { return .screen(try host.shownScreen()) }
            return try await inner(chosen, host, at: holds ? "then" : "else")
        })

    /// Shows another screen, keeping the one shown on the back stack: in a
    /// flow, a screen of the flow (the validator checks it); in a screen
    /// session, any screen the loader can load.
    static let navigate = ActionSpec(
        name: "navigate", fields: [.init("to", required: true)], example: ["type": "navigate", "to": "home"],
        refusable: true,
        parse: { o, _ in
            guard let to = o["to"]?.stringValue, !to.isEmpty else {
                return .failure(.init(message: "navigate needs \"to\", a screen id"))
            }
            guard to.unicodeScalars.count <= 256, !to.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                return .failure(.init(message: "navigate: \"to\" must be a screen id of at most 256 characters, no control characters"))
            }
            return .success(.navigate(to: to))
        },
        run: { action, host in
            guard case .navigate(let to) = action else { throw ActionSpec.mismatch("navigate", action) }
            return try await host.navigate(to: to)
        })

    /// Sends `method url` (an absolute http(s) URL, or a path on the host's
    /// API base; the endpoint policy either way) with an optional JSON body; a 2xx JSON answer is written at `into`.  Any
    /// failure (no answer, a timeout, a status other than 2xx, an answer
    /// that is not JSON, a store that refuses it) is written at
    /// ``requestErrorKey``, `onError` runs, and the step stays, which stops
    /// a `sequence`.
    static let request = ActionSpec(
        name: "request",
        fields: [.init("method", required: true), .init("url", required: true), .init("body", required: false),
                 .init("into", required: false), .init("onError", required: false), .init("timeout", required: false)],
        example: ["type": "request", "method": "GET", "url": "https://example.com/api"], refusable: true,
        parse: { o, budget in
            guard let method = o["method"]?.stringValue, requestMethods.contains(method) else {
                return .failure(.init(message: "request needs \"method\", one of " + requestMethods.joined(separator: ", ")))
            }
            guard let url = o["url"]?.stringValue, !url.isEmpty else {
                return .failure(.init(message: "request needs \"url\", an absolute http(s) URL or a path starting with /"))
            }
            if let why = requestURLRefusal(url) {
                return .failure(.init(message: "request: url refused: \(why)"))
            }
            var into: String?
            if let i = o["into"] {
                guard let text = i.stringValue, !text.isEmpty, let path = try? KeyPath(text) else {
                    return .failure(.init(message: "request: \"into\" must be a key path"))
                }
                guard path.components.first != .key("attributes") else {
                    return .failure(.init(message: "request: \"attributes\" belong to the host"))
                }
                into = text
            }
            var timeout: Double?
            if let t = o["timeout"] {
                guard let d = t.doubleValue, d > 0, d <= maxRequestTimeout else {
                    return .failure(.init(message: "request: \"timeout\" must be seconds above 0 and at most \(Int(maxRequestTimeout))"))
                }
                timeout = d
            }
            var onError: FlowAction?
            if let e = o["onError"] {
                switch FlowAction.parse(e, &budget) {
                case .success(let a): onError = a
                case .failure(let why): return .failure(.init(message: "request: onError: \(why.message)"))
                }
            }
            return .success(.request(.init(method: method, url: url, body: o["body"], into: into, timeout: timeout,
                                           onError: onError)))
        },
        run: { action, host in
            guard case .request(let r) = action else { throw ActionSpec.mismatch("request", action) }
            let screen = try host.shownScreen()
            let url = try requestURL(r.url, base: host.apiBase)
            let failure: (status: Int?, message: String)
            do {
                var headers = ["Accept": "application/json"]
                var body: Data?
                if let b = r.body {
                    body = Data(b.jsonText.utf8)
                    headers["Content-Type"] = "application/json"
                }
                let response = try await host.httpClient.send(url, method: r.method, body: body, headers: headers,
                                                               timeout: r.timeout)
                if (200..<300).contains(response.status) {
                    let answer = response.body.isEmpty ? JSONValue.null
                        : try JSONValue(json: response.body, source: "the answer of \(r.method) \(r.url)")
                    if let into = r.into {
                        _ = try host.write(try KeyPath(into)) { _, _ in answer }
                    }
                    _ = try host.write(try KeyPath(requestErrorKey)) { _, _ in nil }
                    return .screen(screen)
                }
                failure = (response.status, "HTTP \(response.status)")
            } catch let e as SDUIError where !e.isJournalFailure {
                failure = (nil, e.message)
            }
            let record: JSONValue = ["url": .string(r.url), "method": .string(r.method),
                                     "status": failure.status.map { .int(Int64($0)) } ?? .null,
                                     "message": .string(failure.message)]
            _ = try host.write(try KeyPath(requestErrorKey)) { _, _ in record }
            if let onError = r.onError {
                let step = try await inner(onError, host, at: "onError")
                if case .screen = step {} else { return step }
            }
            return .stayed("request: \(r.method) \(r.url): \(failure.message)")
        },
        writes: { if case .request(let r) = $0 { r.into } else { nil } },
        checkLinks: { action, validator in
            guard case .request(let r) = action, !isPath(r.url), let why = validator.endpoints.reason(for: r.url) else { return nil }
            return ("url", "request: url refused: \(why)")
        })

    /// Whether a request's `url` is a path on the host's API (`/cart`), not
    /// a URL of its own (`//host/…` is a URL).
    static func isPath(_ url: String) -> Bool { url.hasPrefix("/") && !url.hasPrefix("//") }

    /// Why a request's `url` can never be used, or nil: a path must be a
    /// valid URL path (at most 2,048 bytes, no control characters or
    /// spaces); anything else must pass the endpoint policy.
    static func requestURLRefusal(_ url: String) -> String? {
        guard isPath(url) else { return LinkPolicy.endpoints.reason(for: url) }
        guard url.utf8.count <= 2048 else { return "a path of more than 2048 bytes" }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
              URL(string: url, relativeTo: URL(string: "https://api.invalid/")) != nil else {
            return "not a valid URL path"
        }
        return nil
    }

    /// The URL a request goes to: `url` itself, or a path resolved against
    /// the host's API base; either must pass the endpoint policy.
    static func requestURL(_ url: String, base: URL?) throws -> URL {
        guard isPath(url) else { return try LinkPolicy.endpoints.check(url) }
        guard let base else {
            throw SDUIError(.argument, "request: \"\(url)\" is a path and the host gives no API base (configure apiBase)", input: url)
        }
        if let why = requestURLRefusal(url) { throw SDUIError(.schema, "request: url refused: \(why)", input: url) }
        // The base's own path is kept: "/cart" on https://api.example/v1/ is https://api.example/v1/cart.
        let joined = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) + url : base.absoluteString + url
        return try LinkPolicy.endpoints.check(joined)
    }

    /// Checks store keys against the store's rules and the screen's
    /// `required` inputs; a failure keeps each failing key's message for
    /// the screen and stays, which stops a `sequence`.
    static let validate = ActionSpec(
        name: "validate", fields: [.init("keys", required: true)], example: ["type": "validate", "keys": ["email"]],
        refusable: true,
        parse: { o, _ in
            guard let items = o["keys"]?.arrayValue, !items.isEmpty, items.count <= maxValidateKeys else {
                return .failure(.init(message: "validate needs \"keys\", an array of 1 to \(maxValidateKeys) key paths"))
            }
            var keys: [String] = []
            for (i, item) in items.enumerated() {
                guard let k = item.stringValue, !k.isEmpty, (try? KeyPath(k)) != nil else {
                    return .failure(.init(message: "validate: keys[\(i)] must be a key path"))
                }
                keys.append(k)
            }
            return .success(.validate(keys: keys))
        },
        run: { action, host in
            guard case .validate(let keys) = action else { throw ActionSpec.mismatch("validate", action) }
            return try host.validate(keys)
        })

    /// Runs `action`, held by a `sequence` or an `if` at `member`; a refusal
    /// names the member and the action (`actions[1]: open_url: …`), while
    /// the journal's failures pass unchanged.
    static func inner(_ action: FlowAction, _ host: any ActionHost, at member: String) async throws -> FlowStep {
        do {
            return try await spec(for: action).run(action, host)
        } catch let e as SDUIError where !e.isJournalFailure {
            throw SDUIError(e.category, "\(member): \(refusal(of: action.name, e))", input: e.input)
        }
    }

    /// A refusal of the action `name` in words, named once: `set: …`
    /// whether or not the handler's message already starts with the name.
    static func refusal(of name: String, _ error: SDUIError) -> String {
        error.message.hasPrefix(name + ": ") ? error.message : "\(name): \(error.message)"
    }

    // MARK: Shared by rows

    /// Why the expression `text` (the member `what`) cannot be used: it
    /// does not parse, with the parser's offset; nil when it parses.
    static func unparsed(_ text: String, _ what: String) -> FlowAction.Invalid? {
        do {
            _ = try CompiledExpression.cached(text)
            return nil
        } catch let err as SDUIError {
            return .init(message: "\(what) does not parse: " + FlowValidator.exprMessage(err))
        } catch {
            return .init(message: "\(what) does not parse: \(error)")
        }
    }

    /// The `key` member of an action that writes the flow's data: a key
    /// path, not under `attributes` (which belong to the host).
    static func dataKey(_ o: [String: JSONValue], _ name: String) -> Result<String, FlowAction.Invalid> {
        guard let key = o["key"]?.stringValue, !key.isEmpty, let path = try? KeyPath(key) else {
            return .failure(.init(message: "\(name) needs \"key\", a key path"))
        }
        guard path.components.first != .key("attributes") else {
            return .failure(.init(message: "\(name): \"attributes\" belong to the host"))
        }
        return .success(key)
    }

    /// `key` as a key path an action may write, or the error saying why not.
    static func writablePath(_ key: String, _ name: String) throws -> KeyPath {
        let path = try KeyPath(key)
        guard path.components.first != .key("attributes") else {
            throw SDUIError(.argument, "\(name): \"attributes\" belong to the host", input: key)
        }
        return path
    }
}
