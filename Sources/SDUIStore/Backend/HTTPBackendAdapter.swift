// HTTPBackendAdapter.swift - the backend scope over HTTP, on SDUICore's HTTPClient.
import Foundation
import SDUICore

/// A ``BackendAdapter`` that speaks JSON over HTTP:
///
/// - `GET {base}/store/{namespace}[?scenario=ID]` answers
///   `{"values": {...}, "updatedAt": {"key.path": ms, ...}}`;
/// - `POST {base}/store/{namespace}[?scenario=ID]` with
///   `{"patches": [{"id", "op", "keyPath", "value"?, "timestamp"}, ...]}`
///   answers `{"accepted": [id, ...], "conflicts": [{"id", "value"?,
///   "updatedAt"}, ...]}`.
///
/// An answer other than 200 is an ``SDUIError`` `.http`; a body that is not
/// that shape is `.schema`; an unreachable server is `.network` (the
/// backend scope then keeps its queue and retries).
public struct HTTPBackendAdapter: BackendAdapter {
    /// The server's base URL.
    public let baseURL: URL
    /// Extra header fields on every request (authorization, say).
    public let headers: [String: String]
    private let client: HTTPClient

    /// An adapter for `baseURL`.
    public init(baseURL: URL, headers: [String: String] = [:],
                client: HTTPClient = HTTPClient(timeout: 10, maxBodyBytes: 8 << 20)) {
        self.baseURL = baseURL
        self.headers = headers
        self.client = client
    }

    /// The URL of a namespace.
    private func url(_ namespace: String, _ scenarioID: String?) -> URL {
        var c = URLComponents(url: baseURL.appendingPathComponent("store").appendingPathComponent(namespace),
                              resolvingAgainstBaseURL: false)!
        if let scenarioID { c.queryItems = [URLQueryItem(name: "scenario", value: scenarioID)] }
        return c.url!
    }

    /// Reads the namespace's values.
    public func pull(namespace: String, scenarioID: String?) async throws -> BackendSnapshot {
        let u = url(namespace, scenarioID)
        let body = try Self.answer(try await client.get(u, headers: headers), u)
        guard case .object(let values)? = body["values"] else {
            throw SDUIError(.schema, "the answer has no \"values\" object", input: u.absoluteString)
        }
        var times: [String: Int64] = [:]
        for (k, v) in body["updatedAt"]?.objectValue ?? [:] { if let t = v.intValue { times[k] = t } }
        return BackendSnapshot(values: values.mapValues(StoreValue.init), updatedAt: times)
    }

    /// Sends the patches.
    public func push(namespace: String, scenarioID: String?, patches: [BackendPatch]) async throws -> BackendPushResult {
        let u = url(namespace, scenarioID)
        let payload = try JSONEncoder().encode(["patches": patches])
        var h = headers
        h["Content-Type"] = "application/json"
        let body = try Self.answer(try await client.post(u, body: payload, headers: h), u)
        let accepted = (body["accepted"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(UUID.init(uuidString:)) }
        let byID = Dictionary(patches.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var conflicts: [BackendConflict] = []
        for c in body["conflicts"]?.arrayValue ?? [] {
            guard let id = c["id"]?.stringValue.flatMap(UUID.init(uuidString:)), let patch = byID[id] else {
                throw SDUIError(.schema, "a conflict names no pushed patch", input: u.absoluteString)
            }
            conflicts.append(BackendConflict(patch: patch, serverValue: c.objectValue?["value"].map(StoreValue.init),
                                             serverTimestamp: c["updatedAt"]?.intValue ?? 0))
        }
        return BackendPushResult(accepted: accepted, conflicts: conflicts)
    }

    /// The JSON body of a 200 answer.
    private static func answer(_ r: HTTPClientResponse, _ u: URL) throws -> JSONValue {
        guard r.status == 200 else {
            throw SDUIError(.http, "the server answered \(r.status)", input: u.absoluteString)
        }
        return try JSONValue(json: r.body, source: u.absoluteString)
    }
}
