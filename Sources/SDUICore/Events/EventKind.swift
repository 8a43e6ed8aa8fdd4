// EventKind.swift - the analytics events the SDK itself emits: one list that
// the flow session, the outbox's uploader, the registry's POST /events and
// the docs read.
//
// Here, in the ground floor both the client modules and the registry
// import, so the server reads the same list without a client module, and a
// client without the server.  A `track` action's event is any other name;
// a name of either sort is 1 to ``EventKind/maxNameLength`` characters.
// EventKindTests checks that docs/flows.md's analytics table and the
// `name` member of schemas/events.json (and the OpenAPI bundle made from
// it) list exactly these, in this order, with this bound.

/// An analytics event the SDK emits (its JSON `name`).
public enum EventKind: String, CaseIterable, Sendable {
    /// A flow started afresh.
    case flowStart = "flow_start"
    /// A screen is shown (`resumed` or `back` when so).
    case screenView = "screen_view"
    /// An answer was recorded (`key`, `value`).
    case answer
    /// `next` on a screen without transitions completed the flow.
    case flowComplete = "flow_complete"
    /// `exit` ended the flow early.
    case flowExit = "flow_exit"
    /// A block that cannot be drawn, a condition that fails, an action that
    /// does not parse or is refused (`detail`, with `block` or `path`).
    case renderError = "render_error"
    /// A resume over progress that does not match the definition, belongs
    /// to another flow or does not decode, and what the policy did.
    case flowResumeMismatch = "flow_resume_mismatch"
    /// The outbox dropped events (`count`).
    case eventsDropped = "events_dropped"
    /// A screen session ran an action (`action`, its name; `node`, the
    /// node that gave it, when known).
    case action
    /// A node named a primitive this app does not know (`primitive`,
    /// `token`, `appVersion`).
    case unknownPrimitive = "unknown_primitive"
    /// The tokens a screen showed (`tokens`: `{id, version, source}` each,
    /// `source` one of pack, memory, disk, network, revalidated, stale,
    /// fallback): what the registry's usage job counts.
    case tokenUsage = "token_usage"
    /// The token cache's lookups and hits since the last report
    /// (`lookups`, `hits`): what the registry's hit-ratio counters sum.
    case cacheStats = "cache_stats"
    /// A user saw a screen an experiment concerns (`experiment`, its key;
    /// `variation`, the one assigned; `shown`, the one drawn; `phase`;
    /// `eligible`, false when the app cannot render the variation, with
    /// `reason`): committed with the `screen_view` it belongs to.
    case experimentExposure = "experiment_exposure"
    /// A `@string.…` key that no catalog of the locale's chain has: the
    /// key itself was shown (`key`, `locale`, `token`).
    case missingString = "missing_string"

    /// The event's JSON `name`.
    public var name: String { rawValue }

    /// Most characters (Unicode scalars, as JSON Schema's `maxLength`
    /// counts them) in any event's `name`, these or a `track` action's:
    /// `POST /events` refuses a longer one.
    public static let maxNameLength = 128

    /// Why `name` cannot be a `track` action's event, or nil when it can:
    /// empty, longer than ``maxNameLength`` (which `POST /events` would
    /// refuse, dropping the event after it was queued), or the name of a
    /// kind the SDK emits (which the registry would count with that kind's
    /// events).  The flow validator refuses such an action when the flow
    /// is imported or loaded, naming its place.
    public static func refusal(ofTrackName name: String) -> String? {
        let length = name.unicodeScalars.count
        if length == 0 { return "is empty" }
        if length > maxNameLength {
            return "is \(length) characters; an event name has at most \(maxNameLength)"
        }
        if let kind = EventKind(rawValue: name) {
            return "\"\(kind.name)\" is an event the SDK emits; a track event needs a name of its own"
        }
        return nil
    }
}
