// LoopbackRegistry.swift - a real HTTP registry on 127.0.0.1 for the tests.
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import SDUI
import SDUIRegistryKit

/// A small registry serving `GET /design-tokens?ids=…` on an ephemeral
/// loopback port, as the repository's tests need it: per-token and batch
/// ETags, 304 on a matching `If-None-Match`, `Cache-Control: max-age`,
/// optional JWS signing, and switchable failures.  Every request is recorded.
public final class LoopbackRegistry: Sendable {
    public struct Request: Sendable, Equatable {
        public var ids: [String]
        public var ifNoneMatch: String?
        public var authorization: String?
        public var primitives: String?

        /// What a request asked for, with the headers the tests look at.
        init(_ r: Hummingbird.Request, ids: [String]) {
            self.ids = ids
            ifNoneMatch = r.headers[.ifNoneMatch]
            authorization = r.headers[.authorization]
            primitives = r.headers.first { $0.name.canonicalName == "x-primitives" }?.value
        }
    }

    /// How the next requests are answered.
    public enum Mode: Sendable, Equatable {
        case normal
        case status(Int)
        /// Wrong bytes for every token (e.g. a tampered signature).
        case tampered
    }

    struct State {
        var screens: [String: Data] = [:]
        /// Screens answered with 409, and their fallback ids.
        var incompatible: [String: String] = [:]
        var tokens: [String: Data] = [:]
        var requests: [Request] = []
        var mode: Mode = .normal
        var maxAge = 60
    }

    private let state = NIOLockedValueBox(State())
    private let signer: TokenSigner?
    private let task: Task<Void, Error>
    /// The base URL, e.g. `http://127.0.0.1:54321/`.
    public let baseURL: URL

    private init(signer: TokenSigner?, task: Task<Void, Error>, port: Int) {
        self.signer = signer
        self.task = task
        self.baseURL = URL(string: "http://127.0.0.1:\(port)/")!
    }

    /// Starts a registry serving `tokens` (JSON texts by id).
    public static func start(tokens: [String: Data] = [:], signer: TokenSigner? = nil) async throws -> LoopbackRegistry {
        let box = NIOLockedValueBox<LoopbackRegistry?>(nil)
        let portStream = AsyncStream<Int>.makeStream()
        let router = Router()
        router.get("design-tokens") { request, _ -> Response in
            guard let registry = box.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            return registry.answer(request)
        }
        router.get("screens/:id") { request, context -> Response in
            guard let registry = box.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            return registry.screen(request, id: context.parameters.get("id") ?? "")
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portStream.continuation.yield(channel.localAddress?.port ?? 0)
                portStream.continuation.finish()
            })
        let task = Task { try await app.run() }
        var port = 0
        for await p in portStream.stream { port = p }
        let registry = LoopbackRegistry(signer: signer, task: task, port: port)
        registry.state.withLockedValue { $0.tokens = tokens }
        box.withLockedValue { $0 = registry }
        return registry
    }

    /// Stops serving.
    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    public var requests: [Request] { state.withLockedValue { $0.requests } }

    public func setMode(_ m: Mode) { state.withLockedValue { $0.mode = m } }
    public func setMaxAge(_ s: Int) { state.withLockedValue { $0.maxAge = s } }
    public func publish(_ json: Data, id: String) { state.withLockedValue { $0.tokens[id] = json } }
    public func publishScreen(_ json: Data, id: String) { state.withLockedValue { $0.screens[id] = json } }
    public func makeIncompatible(_ id: String, fallback: String) {
        state.withLockedValue { $0.incompatible[id] = fallback }
    }

    /// `GET /screens/{id}`: the payload with its ETag (304 when
    /// `If-None-Match` names it), 409 with a fallback, or 404.
    func screen(_ r: Hummingbird.Request, id: String) -> Response {
        let record = Request(r, ids: [id])
        let (payload, fallback) = state.withLockedValue { s -> (Data?, String?) in
            s.requests.append(record)
            return (s.screens[id], s.incompatible[id])
        }
        let json: HTTPFields = [.contentType: "application/json"]
        if let fallback {
            let body = #"{"error":"Incompatible-Primitives","fallbackScreenId":"\#(fallback)"}"#
            return Response(status: .conflict, headers: json, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        guard let payload else { return Response(status: .notFound, headers: json) }
        let etag = ETag.of(json: payload)
        if record.ifNoneMatch == etag { return Response(status: .notModified, headers: [.eTag: etag]) }
        var headers = json
        headers[.eTag] = etag
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: payload)))
    }

    /// The answer to one request.
    func answer(_ r: Hummingbird.Request) -> Response {
        let ids = (r.uri.queryParameters.get("ids") ?? "").split(separator: ",").map(String.init)
        let record = Request(r, ids: ids)
        let inm = record.ifNoneMatch
        let (mode, tokens, maxAge) = state.withLockedValue { s -> (Mode, [String: Data], Int) in
            s.requests.append(record)
            return (s.mode, s.tokens, s.maxAge)
        }
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "max-age=\(maxAge)"]
        if case .status(let code) = mode {
            headers[.cacheControl] = "no-store"
            return Response(status: .init(code: code), headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: #"{"error":"forced"}"#)))
        }
        let found = ids.compactMap { id in tokens[id].map { (id, $0) } }
        if found.count == ids.count {
            let tag = ETag.batch(found.map { ETag.of(json: $0.1) })
            headers[.eTag] = tag
            if inm == tag { return Response(status: .notModified, headers: headers) }
        }
        var body = Data("[".utf8)
        for (i, (_, json)) in found.enumerated() {
            if i > 0 { body.append(UInt8(ascii: ",")) }
            var bytes = json
            if mode == .tampered, let j = bytes.lastIndex(of: UInt8(ascii: "}")) { bytes.insert(UInt8(ascii: " "), at: j) }
            if let signer {
                var jws = (try? signer.sign(json)) ?? ""
                if mode == .tampered { jws = String(jws.dropLast(2)) + (jws.hasSuffix("AA") ? "BA" : "AA") }
                body.append(contentsOf: Array("\"\(jws)\"".utf8))
            } else {
                body.append(bytes)
            }
        }
        body.append(UInt8(ascii: "]"))
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// A clock a test moves by hand.
public final class ManualClock: Sendable {
    private let box: NIOLockedValueBox<Date>
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { box = NIOLockedValueBox(start) }
    public var now: Date { box.withLockedValue { $0 } }
    public func advance(_ seconds: TimeInterval) { box.withLockedValue { $0 = $0.addingTimeInterval(seconds) } }
}
