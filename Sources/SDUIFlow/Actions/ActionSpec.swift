// ActionSpec.swift - one row of the action table: an action's name, the
// fields it takes, how its JSON is read, and what runs it.
import Foundation
import SDUICore

/// One action a button may name (a row of ``FlowActions/all``).
///
/// Everything about an action is here, so that reading it (`FlowAction.parse`),
/// validating a flow (``FlowValidator``), running it (`FlowSession.perform`),
/// the "known:" list of an unknown action and the completeness test against
/// docs/flows.md and schemas/flow.json all read the same row.
public struct ActionSpec: Sendable {
    /// One member of the action's JSON object besides `type`.
    public struct Field: Sendable, Hashable {
        /// The member's name.
        public let name: String
        /// Whether the action is refused without it.  A field that is one
        /// of a choice (`set`'s `value` or `expr`) is not required alone.
        public let required: Bool

        /// A field `name`, required or not.
        public init(_ name: String, required: Bool) {
            self.name = name
            self.required = required
        }
    }

    /// The action's name: a bare JSON string, or the object's `type`.
    public let name: String
    /// The members the action reads, in the order the docs give them.
    public let fields: [Field]
    /// Whether the name alone (`"next"`) is an action: none of its fields
    /// is needed.
    public let standalone: Bool
    /// A smallest JSON form of the action that parses (the completeness
    /// test reads each row through it).
    public let example: JSONValue
    /// Whether a refusal while it runs (any `SDUIError` but the journal's)
    /// is a `render_error` and a `.stayed` step in `perform(json:)`,
    /// rather than thrown.
    let refusable: Bool
    /// The action a JSON object stands for (its members; empty for a bare
    /// name), or why none.  A row that holds actions (`sequence`, `if`)
    /// reads them with `FlowAction.parse(_:_:)` and the budget it is given,
    /// which they share; the other rows leave it alone.
    let parse: @Sendable (_ members: [String: JSONValue], _ budget: inout FlowAction.Budget)
        -> Result<FlowAction, FlowAction.Invalid>
    /// Runs the action in a session.
    let run: @Sendable (_ action: FlowAction, _ host: any ActionHost) async throws -> FlowStep
    /// The key path of the flow's data the action itself writes, if any
    /// (the validator counts `answers.K` as written by the screen; it asks
    /// every action a `sequence` or an `if` holds).
    let writes: @Sendable (_ action: FlowAction) -> String?
    /// A URL of the action the validator's policies refuse: the member
    /// holding it and the message; nil when there is none or it is fine.
    let checkLinks: @Sendable (_ action: FlowAction, _ validator: FlowValidator) -> (member: String, message: String)?

    init(name: String, fields: [Field] = [], standalone: Bool? = nil, example: JSONValue, refusable: Bool = false,
         parse: @escaping @Sendable ([String: JSONValue], inout FlowAction.Budget)
             -> Result<FlowAction, FlowAction.Invalid>,
         run: @escaping @Sendable (FlowAction, any ActionHost) async throws -> FlowStep,
         writes: @escaping @Sendable (FlowAction) -> String? = { _ in nil },
         checkLinks: @escaping @Sendable (FlowAction, FlowValidator) -> (member: String, message: String)? = { _, _ in nil }) {
        self.name = name
        self.fields = fields
        self.standalone = standalone ?? !fields.contains(where: \.required)
        self.example = example
        self.refusable = refusable
        self.parse = parse
        self.run = run
        self.writes = writes
        self.checkLinks = checkLinks
    }

    /// The error a handler throws when given another row's action (the
    /// table dispatches by ``FlowAction/name``, so it is never reached).
    static func mismatch(_ name: String, _ action: FlowAction) -> SDUIError {
        SDUIError(.argument, "the \(name) handler was given a \(action.name) action", input: name)
    }
}
