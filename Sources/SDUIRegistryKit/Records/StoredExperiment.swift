// StoredExperiment.swift - an experiment definition as a registry stores it.
import Foundation

/// A published experiment: its key and definition JSON
/// (schemas/experiment.json), served as it is by `GET /experiments` and
/// assigned by `GET /screens/{id}` for requests that carry the user's
/// attributes.
public struct StoredExperiment: Sendable, Equatable {
    /// The experiment's key.
    public var key: String
    /// The definition's JSON.
    public var json: Data
    /// The registry sequence number of the write that stored it; assigned
    /// by the store (0 in a record not yet written).
    public var seq: Int64

    /// An experiment record.  Leave `seq` at 0 when publishing: the store assigns it.
    public init(key: String, json: Data, seq: Int64 = 0) {
        self.key = key
        self.json = json
        self.seq = seq
    }
}
