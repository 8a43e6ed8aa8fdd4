// FlowAction.swift - what a button does: an action of the action table
// (Actions/FlowActions.swift) as a typed value.
import SDUICore

/// What a button does.  In JSON an action is a name (`"next"`) or an
/// object with a string `type` and that type's fields.  The actions, their
/// fields, parsers and handlers are the rows of ``FlowActions``; the table
/// of docs/flows.md lists what each does.
public enum FlowAction: Sendable, Hashable {
    case next, back, exit
    /// Writes `key` (a key path in the flow's store) to a value or to an
    /// expression's result.
    case set(key: String, FlowValueSource)
    case openURL(String)
    /// POSTs the answers; `endpoint` overrides the session's configured one.
    case submit(endpoint: String?)
    case track(event: String, properties: [String: JSONValue])
    /// Flips the boolean at `key` (a key path in the flow's store).
    case toggle(key: String)

    /// The action's name: its row in ``FlowActions``.
    public var name: String {
        switch self {
        case .next: "next"
        case .back: "back"
        case .exit: "exit"
        case .set: "set"
        case .openURL: "open_url"
        case .submit: "submit"
        case .track: "track"
        case .toggle: "toggle"
        }
    }

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
        guard let spec = FlowActions.spec(named: type) else {
            return .failure(Invalid(message: "unknown action \"\(type)\" (known: \(FlowActions.names.joined(separator: ", ")))"))
        }
        return spec.parse(o)
    }
}
