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
    public static let all: [ActionSpec] = [next, back, exit, set, toggle, openURL, submit, track]

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

    static let next = ActionSpec(name: "next", example: "next", parse: { _ in .success(.next) },
                                 run: { _, host in try host.next() })

    static let back = ActionSpec(name: "back", example: "back", parse: { _ in .success(.back) },
                                 run: { _, host in try host.back() })

    static let exit = ActionSpec(name: "exit", example: "exit", parse: { _ in .success(.exit) },
                                 run: { _, host in try host.exit() })

    /// Writes a key path of the flow's data to a value or an expression's
    /// result (`expr` wins when both are given); `attributes.*` is refused.
    static let set = ActionSpec(
        name: "set", fields: [.init("key", required: true), .init("value", required: false), .init("expr", required: false)],
        example: ["type": "set", "key": "x", "value": 1], refusable: true,
        parse: { o in
            if case .failure(let why) = dataKey(o, "set") { return .failure(why) }
            let key = o["key"]?.stringValue ?? ""
            if let e = o["expr"] {
                guard let text = e.stringValue else { return .failure(.init(message: "set: \"expr\" must be a string")) }
                do {
                    _ = try CompiledExpression(text)
                } catch let err as SDUIError {
                    return .failure(.init(message: "set: \"expr\" does not parse: " + FlowValidator.exprMessage(err)))
                } catch {
                    return .failure(.init(message: "set: \"expr\" does not parse: \(error)"))
                }
                return .success(.set(key: key, .expression(text)))
            }
            guard let v = o["value"] else { return .failure(.init(message: "set needs \"value\" or \"expr\"")) }
            return .success(.set(key: key, .value(v)))
        },
        run: { action, host in
            guard case .set(let key, let source) = action else { throw ActionSpec.mismatch("set", action) }
            return try host.updateData { root, store in
                let value: JSONValue
                switch source {
                case .value(let v): value = v
                case .expression(let text): value = try CompiledExpression(text).evaluate(in: store)
                }
                let path = try writablePath(key, "set")
                try path.set(value, in: &root)
            }
        },
        writes: { if case .set(let key, _) = $0 { key } else { nil } })

    /// Flips a boolean key path of the flow's data: missing or null becomes
    /// true; a value that is not a boolean is refused.
    static let toggle = ActionSpec(
        name: "toggle", fields: [.init("key", required: true)], example: ["type": "toggle", "key": "x"], refusable: true,
        parse: { o in dataKey(o, "toggle").map { .toggle(key: $0) } },
        run: { action, host in
            guard case .toggle(let key) = action else { throw ActionSpec.mismatch("toggle", action) }
            return try host.updateData { root, _ in
                let path = try writablePath(key, "toggle")
                let now: Bool
                switch path.get(in: root) {
                case nil, .null?: now = true
                case .bool(let b)?: now = !b
                case .string?: throw SDUIError(.argument, "toggle: \"\(key)\" holds a string, not a boolean", input: key)
                case .array?: throw SDUIError(.argument, "toggle: \"\(key)\" holds an array, not a boolean", input: key)
                case .object?: throw SDUIError(.argument, "toggle: \"\(key)\" holds an object, not a boolean", input: key)
                case .int?, .double?: throw SDUIError(.argument, "toggle: \"\(key)\" holds a number, not a boolean", input: key)
                }
                try path.set(.bool(now), in: &root)
            }
        },
        writes: { if case .toggle(let key) = $0 { key } else { nil } })

    /// Checks the URL against the link policy and hands it to the host.
    static let openURL = ActionSpec(
        name: "open_url", fields: [.init("url", required: true)], example: ["type": "open_url", "url": "https://example.com/"],
        refusable: true,
        parse: { o in
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
        parse: { o in
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
        parse: { o in
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

    // MARK: Shared by rows

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
