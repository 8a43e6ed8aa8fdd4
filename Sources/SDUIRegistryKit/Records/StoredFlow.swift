// StoredFlow.swift - a flow definition as a registry stores it.
import Foundation

/// A published flow: its id and definition JSON (schemas/flow.json),
/// served as it is by `GET /flows/{id}`.
public struct StoredFlow: Sendable, Equatable {
    /// The flow's id.
    public var id: String
    /// The definition's JSON.
    public var json: Data
    /// The registry sequence number of the write that stored it; assigned
    /// by the store (0 in a record not yet written).
    public var seq: Int64

    /// A flow record.  Leave `seq` at 0 when publishing: the store assigns it.
    public init(id: String, json: Data, seq: Int64 = 0) {
        self.id = id
        self.json = json
        self.seq = seq
    }
}
