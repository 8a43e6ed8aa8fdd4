// FlowProgress.swift - where a user is in a flow: what the journal keeps
// per flow key and user.
import Foundation
import SDUICore

/// A user's progress through a flow, committed with every transition.
public struct FlowProgress: Sendable, Hashable, Codable {
    /// Whether the flow is still running.
    public enum Status: String, Sendable, Hashable, Codable {
        case inProgress = "in_progress", completed, exited
    }

    /// The id of the flow.
    public var flowId: String
    /// The version of the definition the progress was made with.
    public var flowVersion: String
    /// The ``FlowDefinition/contentHash`` of the definition it was made with.
    public var contentHash: String
    /// The screen shown; nil once the flow completed or was exited.
    public var screen: String?
    /// The screens `back` returns to, oldest first.
    public var backStack: [String]
    /// The flow's scenario data: `answers` and what `set` actions wrote
    /// (the host's `attributes` are not kept: the host passes them each time).
    public var data: [String: JSONValue]
    /// Whether the flow is running, completed or was exited.
    public var status: Status
    /// The seq of the last event emitted: 0 to ``maxEventSeq``.
    public var eventSeq: Int
    /// When it was last committed (ms since the Unix epoch).
    public var updatedAt: Int64

    /// The largest event seq, 2^53 − 1: every seq is exact as a JSON
    /// number in any reader.  Saved progress past it is corrupt.
    public static let maxEventSeq = (1 << 53) - 1

    /// The answers given so far.
    public var answers: [String: JSONValue] { data["answers"]?.objectValue ?? [:] }

    /// The JSON the journal stores.
    var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }
}
