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
    /// Shows screen `to` (a flow's screen in a flow, any screen id in a
    /// screen session), keeping the one shown on the back stack.
    case navigate(to: String)
    /// Sends an HTTP request and writes its JSON answer into the store.
    indirect case request(Request)
    /// Checks store keys against the rules; stops a `sequence` on failure.
    case validate(keys: [String])
    /// Runs `actions` in order, stopping at the first that cannot apply or
    /// ends the flow (``FlowActions/maxSequence`` at most).
    indirect case sequence([FlowAction])
    /// Runs `then` when the expression `when` holds in the flow's store,
    /// else `otherwise` (JSON `else`), if any.
    indirect case condition(when: String, then: FlowAction, otherwise: FlowAction?)

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
        case .sequence: "sequence"
        case .condition: "if"
        case .navigate: "navigate"
        case .request: "request"
        case .validate: "validate"
        }
    }

    /// This action and the actions it holds, depth first, each with its
    /// JSON path under `path` (`$.….action.actions[1].then`).
    func walk(at path: String) -> [(path: String, action: FlowAction)] {
        switch self {
        case .sequence(let actions):
            [(path, self)] + actions.enumerated().flatMap { $0.element.walk(at: "\(path).actions[\($0.offset)]") }
        case .condition(_, let then, let otherwise):
            [(path, self)] + then.walk(at: path + ".then") + (otherwise?.walk(at: path + ".else") ?? [])
        case .request(let r):
            [(path, self)] + (r.onError?.walk(at: path + ".onError") ?? [])
        default:
            [(path, self)]
        }
    }

    /// A `request` action's members.
    public struct Request: Sendable, Hashable {
        /// GET, POST, PUT, PATCH or DELETE.
        public var method: String
        /// An absolute http(s) URL, or a path (`/cart/items`) on the host's
        /// API base; checked by the endpoint policy.
        public var url: String
        /// The JSON body sent (with `Content-Type: application/json`), if any.
        public var body: JSONValue?
        /// The key path the JSON answer is written to; nil: the answer is dropped.
        public var into: String?
        /// Seconds the request may take (at most ``FlowActions/maxRequestTimeout``);
        /// nil: the host client's timeout.
        public var timeout: Double?
        /// The action run when the request fails (after the failure is
        /// written to ``FlowActions/requestErrorKey``).
        public var onError: FlowAction?
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

    /// How much of an action's bounds is used up while it is read: the
    /// levels of actions above the one being read, and the actions read so
    /// far.
    struct Budget {
        var depth = 0
        var actions = 0
    }

    /// The action `json` stands for, or why it stands for none.  A
    /// `sequence` or `if` reads its inner actions with the same rule, within
    /// ``FlowActions/maxDepth`` levels and ``FlowActions/maxActions``
    /// actions in all, so reading one costs at most that many actions.
    public static func parse(_ json: JSONValue) -> Result<FlowAction, Invalid> {
        var budget = Budget()
        return parse(json, &budget)
    }

    /// `parse(_:)` within `budget` (a `sequence`'s or an `if`'s inner action).
    static func parse(_ json: JSONValue, _ budget: inout Budget) -> Result<FlowAction, Invalid> {
        budget.actions += 1
        guard budget.actions <= FlowActions.maxActions else {
            return .failure(Invalid(message: "more than \(FlowActions.maxActions) actions in one action"))
        }
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
        // An action inside maxDepth sequences and ifs is on level maxDepth + 1.
        budget.depth += 1
        defer { budget.depth -= 1 }
        guard budget.depth <= FlowActions.maxDepth + 1 else {
            return .failure(Invalid(message: "sequence and if nest more than \(FlowActions.maxDepth) deep"))
        }
        return spec.parse(o, &budget)
    }
}
