// FlowLoader.swift - fetches a published flow from the registry and keeps
// the last good definition for offline starts.
import Foundation
import Logging
import SDUI
import SDUICore

/// Loads `GET /flows/{id}` from a registry, with the app's `X-Primitives`
/// and the ETag of the definition it holds (an unchanged flow costs a
/// 304).  Every definition that decodes and validates is kept in the
/// journal (row `definition/<id>`, with its ETag) before it is returned, so
/// when the registry cannot be reached the last good one is used.
public struct FlowLoader: Sendable {
    /// Where the registry is (`…/flows/{id}` is resolved against it).
    public var registry: URL
    /// The primitives this app renders, sent as `X-Primitives`.
    public var primitives: PrimitiveMap
    /// The client of the `GET` (timeout, largest body).
    public var client: HTTPClient
    /// Extra header fields sent with every `GET` (an `Authorization`, say).
    public var headers: [String: String]
    /// Where the last good definition of each flow is kept, with its ETag.
    public let journal: FlowJournal
    /// Logs each fall-back to a kept definition (label `sdui.flow.loader` by default).
    public var logger: Logger
    /// What a fetched definition must pass before it is kept (give it the
    /// app's link policy when the app allows schemes besides https).
    public var validator: FlowValidator
    /// The app's Fallback Pack: a flow it carries starts a first run when
    /// the registry cannot be reached and no definition is kept yet.
    public var fallbackPack: FallbackPack?

    /// A loader of `registry`'s flows that keeps them in `journal`.
    public init(registry: URL, journal: FlowJournal, primitives: PrimitiveMap = .builtIn,
                client: HTTPClient = HTTPClient(timeout: 10, maxBodyBytes: FileInput.documentLimit),
                headers: [String: String] = [:], logger: Logger = Logger(label: "sdui.flow.loader"),
                validator: FlowValidator = FlowValidator(), fallbackPack: FallbackPack? = nil) {
        self.registry = registry
        self.journal = journal
        self.primitives = primitives
        self.client = client
        self.headers = headers
        self.logger = logger
        self.validator = validator
        self.fallbackPack = fallbackPack
    }

    /// Where a definition came from.
    public enum Source: String, Sendable {
        case network, revalidated, offline
        /// The Fallback Pack's copy: offline, with nothing kept yet.
        case fallbackPack = "fallback-pack"
    }

    /// The flow `id`: fetched, revalidated, or (offline) the last good one.
    ///
    /// - Throws: `SDUIError` `.network` when the registry cannot be reached
    ///   and no definition is kept; `.http` for an answer other than 200/304
    ///   (a 404, a 409 naming primitives this app lacks); `.json`/`.schema`
    ///   for a definition that does not decode or validate (the kept one is
    ///   left as it was).
    public func load(_ id: String) async throws -> (FlowDefinition, Source) {
        let key = "definition/\(id)"
        let kept = try journal.state(key).flatMap { try? JSONValue(json: $0) }
        let keptETag = kept?["etag"]?.stringValue
        let url = registry.appendingPathComponent("flows").appendingPathComponent(id)
        var h = headers
        h["X-Primitives"] = primitives.headerValue
        if let keptETag { h["If-None-Match"] = keptETag }
        let response: HTTPClientResponse
        do {
            response = try await client.get(url, headers: h)
        } catch let e as SDUIError where e.category == .network {
            guard let def = kept?["json"] else {
                if let packed = fallbackPack?.flow(id) {
                    logger.info("registry unreachable and no flow kept; starting the Fallback Pack's", metadata: ["flow": "\(id)"])
                    let flow = try FlowDefinition(value: packed, source: "\(fallbackPack!.pack.source): flow \(id)")
                    try check(flow, "the Fallback Pack's flow \"\(id)\"", input: fallbackPack!.pack.source)
                    return (flow, .fallbackPack)
                }
                throw SDUIError(.network, "flow \"\(id)\" is not kept, not in a Fallback Pack, and the registry cannot be reached (\(e.message))",
                                input: url.absoluteString)
            }
            logger.info("registry unreachable; using the kept flow", metadata: ["flow": "\(id)"])
            return (try FlowDefinition(value: def, source: "kept flow \(id)"), .offline)
        }
        switch response.status {
        case 304:
            guard let def = kept?["json"] else {
                throw SDUIError(.http, "HTTP 304 for flow \"\(id)\", but no definition is kept", input: url.absoluteString)
            }
            return (try FlowDefinition(value: def, source: "kept flow \(id)"), .revalidated)
        case 200:
            let value = try JSONValue(json: response.body, source: url.absoluteString)
            let flow = try FlowDefinition(value: value, source: url.absoluteString)
            try check(flow, "flow \"\(id)\"", input: url.absoluteString)
            var record: [String: JSONValue] = ["json": value]
            if let etag = response.header("ETag") { record["etag"] = .string(etag) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try journal.commit(states: [(key, try encoder.encode(JSONValue.object(record)))])
            return (flow, .network)
        default:
            let text = String(decoding: response.body.prefix(300), as: UTF8.self)
            throw SDUIError(.http, "HTTP \(response.status) for flow \"\(id)\": \(text)", input: url.absoluteString)
        }
    }

    /// Throws `.schema` listing the validation errors of `flow` (named
    /// `what`; a block type this app does not know is no error: it draws as
    /// a placeholder), before a definition is used or kept.
    private func check(_ flow: FlowDefinition, _ what: String, input: String) throws {
        let errors = validator.errors(flow).filter { $0.kind != .unknownBlock }
        guard errors.isEmpty else {
            throw SDUIError(.schema, "\(what) does not validate: " + errors.map(\.description).joined(separator: "; "), input: input)
        }
    }
}
