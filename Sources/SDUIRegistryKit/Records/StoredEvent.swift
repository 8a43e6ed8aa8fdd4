// StoredEvent.swift - an analytics event as the registry keeps it.
import Foundation

/// An analytics event received by `POST /events`: the fields the registry
/// indexes, and the event's JSON as the client sent it.
public struct StoredEvent: Sendable, Equatable {
    /// The event's unique id; an id stored once is never stored again.
    public var id: String
    /// The event's name (`screen_view`, `answer`…).
    public var name: String
    /// The id of the flow it happened in (the event's `flowId`).
    public var flowID: String
    /// The user it happened to (the event's `userId`).
    public var userID: String
    /// The client's timestamp (ms since the Unix epoch).
    public var timestamp: Int64
    /// The event's JSON, as received.
    public var json: Data

    /// An event from its parts.
    public init(id: String, name: String, flowID: String, userID: String, timestamp: Int64, json: Data) {
        self.id = id
        self.name = name
        self.flowID = flowID
        self.userID = userID
        self.timestamp = timestamp
        self.json = json
    }
}
