// FlowEvent.swift - one analytics event of a flow, as the outbox keeps it
// and POST /events receives it.
import Foundation
import SDUICore

/// One analytics event: one of the kinds the SDK emits (``EventKind``), or
/// the event of a `track` action.
///
/// In JSON (schemas/events.json), members sorted:
/// `{"flowId", "flowVersion", "id", "name", "properties", "screen", "seq",
/// "session", "timestamp", "userId"}`; `timestamp` is milliseconds since the
/// Unix epoch.  A flow's events leave `session` out (the flow and the user
/// name their session) and a screen session's events have empty `flowId`
/// and `flowVersion` and its id in `session`.
public struct FlowEvent: Sendable, Hashable, Codable {
    /// A unique id (a UUID): the server keeps an event seen twice once.
    public var id: String
    /// The event's name: an ``EventKind``'s, or a `track` action's event.
    public var name: String
    /// The id of the flow the event happened in.
    public var flowId: String
    /// The version of that flow's definition.
    public var flowVersion: String
    /// The screen the event is about (nil for `events_dropped`).
    public var screen: String?
    /// Milliseconds since the Unix epoch.
    public var timestamp: Int64
    /// The event's number in its flow session: 1, 2, 3… with no gaps,
    /// continued across a resume.
    public var seq: Int
    /// The user the session runs for (``FlowSession/Configuration/userID``).
    public var userId: String
    /// The screen session the event happened in (``ScreenSession/sessionID``);
    /// nil for a flow's events.
    public var session: String?
    /// What the event carries (`key` and `value` of an answer, say).
    public var properties: [String: JSONValue]

    /// An event from its fields; `id` is a fresh lowercase UUID by default.
    public init(id: String = UUID().uuidString.lowercased(), name: String, flowId: String, flowVersion: String,
                screen: String?, timestamp: Int64, seq: Int, userId: String, session: String? = nil,
                properties: [String: JSONValue] = [:]) {
        self.id = id
        self.name = name
        self.flowId = flowId
        self.flowVersion = flowVersion
        self.screen = screen
        self.timestamp = timestamp
        self.seq = seq
        self.userId = userId
        self.session = session
        self.properties = properties
    }

    /// The event's JSON, members sorted (what the outbox stores and sends),
    /// written by ``JSONValue/jsonText`` (what JSONEncoder would write, as
    /// JSON, at a fraction of its cost: an event is made on every step).
    public var json: Data {
        var members: [String: JSONValue] = [
            "flowId": .string(flowId), "flowVersion": .string(flowVersion), "id": .string(id), "name": .string(name),
            "properties": .object(properties), "seq": .int(Int64(seq)), "timestamp": .int(timestamp), "userId": .string(userId),
        ]
        if let screen { members["screen"] = .string(screen) }
        if let session { members["session"] = .string(session) }
        return Data(JSONValue.object(members).jsonText.utf8)
    }
}
