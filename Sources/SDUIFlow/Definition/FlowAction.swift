// FlowAction.swift - what a button does: the seven actions of a flow.
import SDUICore

/// What a button does.  In JSON an action is a name (`"next"`) or an
/// object with a string `type` and that type's fields:
///
/// | action | fields | does |
/// |---|---|---|
/// | `next` | | leaves the screen by its first transition whose condition holds (waits for required answers) |
/// | `back` | | returns to the previous screen of the back stack |
/// | `exit` | | ends the flow (`flow_exit`) |
/// | `set` | `key`, and `value` or `expr` | writes a store key (a value, or an expression's result) |
/// | `open_url` | `url` | checks the URL against the policy and hands it to the host |
/// | `submit` | `endpoint`? | POSTs the answers to the configured endpoint |
/// | `track` | `event`, `properties`? | records a custom analytics event |
public enum FlowAction: Sendable, Hashable {
    case next, back, exit
    /// Writes `key` (a key path in the flow's store) to a value or to an
    /// expression's result.
    case set(key: String, FlowValueSource)
    case openURL(String)
    /// POSTs the answers; `endpoint` overrides the session's configured one.
    case submit(endpoint: String?)
    case track(event: String, properties: [String: JSONValue])

    /// What a `set` writes.
    public enum FlowValueSource: Sendable, Hashable {
        case value(JSONValue)
        /// An expression (docs/expressions.md) evaluated against the flow's store.
        case expression(String)
    }

    /// Why an action cannot be used.
    public struct Invalid: Error, Sendable, Hashable {
        /// What is wrong, for a person (`set needs "key", a key path`).
        public var message: String
    }

    /// The action `json` stands for, or why it stands for none.
    public static func parse(_ json: JSONValue) -> Result<FlowAction, Invalid> {
        let type: String
        let o: [String: JSONValue]
        switch json {
        case .string(let s): type = s; o = [:]
        case .object(let m):
            guard let t = m["type"]?.stringValue else {
                return .failure(Invalid(message: "an action object needs a string \"type\""))
            }
            type = t; o = m
        default:
            return .failure(Invalid(message: "an action must be a name or an object with a string \"type\""))
        }
        switch type {
        case "next": return .success(.next)
        case "back": return .success(.back)
        case "exit": return .success(.exit)
        case "set":
            guard let key = o["key"]?.stringValue, !key.isEmpty, let path = try? KeyPath(key) else {
                return .failure(Invalid(message: "set needs \"key\", a key path"))
            }
            guard path.components.first != .key("attributes") else {
                return .failure(Invalid(message: "set: \"attributes\" belong to the host"))
            }
            if let e = o["expr"] {
                guard let text = e.stringValue else { return .failure(Invalid(message: "set: \"expr\" must be a string")) }
                do {
                    _ = try CompiledExpression(text)
                } catch let err as SDUIError {
                    return .failure(Invalid(message: "set: \"expr\" does not parse: " + FlowValidator.exprMessage(err)))
                } catch {
                    return .failure(Invalid(message: "set: \"expr\" does not parse: \(error)"))
                }
                return .success(.set(key: key, .expression(text)))
            }
            guard let v = o["value"] else { return .failure(Invalid(message: "set needs \"value\" or \"expr\"")) }
            return .success(.set(key: key, .value(v)))
        case "open_url":
            guard let url = o["url"]?.stringValue, !url.isEmpty else {
                return .failure(Invalid(message: "open_url needs a string \"url\""))
            }
            return .success(.openURL(url))
        case "submit":
            if let e = o["endpoint"], e.stringValue == nil {
                return .failure(Invalid(message: "submit: \"endpoint\" must be a string"))
            }
            return .success(.submit(endpoint: o["endpoint"]?.stringValue))
        case "track":
            guard let event = o["event"]?.stringValue, !event.isEmpty else {
                return .failure(Invalid(message: "track needs a string \"event\""))
            }
            if let p = o["properties"], p.objectValue == nil {
                return .failure(Invalid(message: "track: \"properties\" must be an object"))
            }
            return .success(.track(event: event, properties: o["properties"]?.objectValue ?? [:]))
        default:
            return .failure(Invalid(message: "unknown action \"\(type)\" (known: back, exit, next, open_url, set, submit, track)"))
        }
    }
}
