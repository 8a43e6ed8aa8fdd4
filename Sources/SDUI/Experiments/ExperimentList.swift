// ExperimentList.swift - the experiments a registry serves (`GET
// /experiments`) or a Fallback Pack carries, parsed once.
import Foundation
import SDUICore

/// A list of experiment definitions: `{"experiments": [definition, …]}` as
/// the registry serves it, with its exact bytes and ETag (what the disk
/// cache keeps).
public struct ExperimentList: Sendable, Equatable {
    /// The definitions, in the order given.
    public var experiments: [Experiment]
    /// The document as it arrived.
    public var json: Data
    /// Its `ETag`, quotes included; nil when none was sent.
    public var etag: String?

    /// The most definitions one list may hold.
    public static let maxExperiments = 1_000

    /// Parses a list document.
    ///
    /// - Throws: `SDUIError` `.json` when it does not parse; `.schema` when
    ///   it is not an object with an `experiments` list, has more than
    ///   ``maxExperiments``, or a definition is not sound (naming
    ///   `experiments[i]`, the path inside it, and `source`).
    public init(json: Data, etag: String?, source: String) throws {
        let doc = try JSONValue(json: json, source: source)
        guard let items = doc["experiments"]?.arrayValue, doc.objectValue != nil else {
            throw SDUIError(.schema, "an experiment list is {\"experiments\": [...]}", input: source)
        }
        try self.init(values: items, source: source)
        self.json = json
        self.etag = etag
    }

    /// Parses the definitions `items` (a Fallback Pack's `experiments`).
    public init(values items: [JSONValue], source: String) throws {
        guard items.count <= Self.maxExperiments else {
            throw SDUIError(.schema, "\(items.count) experiments; at most \(Self.maxExperiments)", input: source)
        }
        var seen = Set<String>()
        experiments = try items.enumerated().map { i, value in
            let e: Experiment
            do {
                e = try Experiment(value: value, source: "\(source): experiments[\(i)]")
            } catch let error as SDUIError {
                throw SDUIError(error.category, "experiments[\(i)]: \(error.message)", input: source)
            }
            guard seen.insert(e.key).inserted else {
                throw SDUIError(.schema, "experiments[\(i)]: a second experiment \"\(e.key)\"", input: source)
            }
            return e
        }
        json = Data()
        etag = nil
    }
}

/// What `GET /experiments` answered (``RegistryTransport/fetchExperiments(ifNoneMatch:)``).
public enum ExperimentsFetchResult: Sendable, Equatable {
    /// A 200: the list.
    case fetched(ExperimentList)
    /// A 304: the list the client holds is current.
    case notModified

    /// The list a 200 brought; nil for a 304 (``KeptCopy``'s answer).
    var list: ExperimentList? {
        if case .fetched(let list) = self { return list }
        return nil
    }
}

extension ExperimentList: KeptDocument {
    /// A kept list: parsed as it came.
    init(kept json: Data, etag: String?, source: String) throws {
        try self.init(json: json, etag: etag, source: source)
    }
}
