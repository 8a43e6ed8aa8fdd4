// LoopbackStoreBackend.swift - a real HTTP store backend on 127.0.0.1 for
// the backend scope's tests: last-writer-wins per key path, idempotent
// patch ids, and failures on demand (503 answers, or no server at all).
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import SDUICore
import SDUIStore

final class LoopbackStoreBackend: Sendable {
    struct State {
        var root: StoreValue = .object([:])
        var updatedAt: [String: Int64] = [:]
        var seen: Set<String> = []
        var failing = false
        var pushes = 0
        /// The id of every patch pushed, in order, repeats included.
        var received: [String] = []
    }

    let state = NIOLockedValueBox(State())
    private let task: NIOLockedValueBox<Task<Void, Error>?> = NIOLockedValueBox(nil)
    private let boundPort = NIOLockedValueBox(0)
    /// The port it listens on (0 before `start`).
    var port: Int { boundPort.withLockedValue { $0 } }
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Starts serving (on `port`, or an ephemeral one).
    func start(port wanted: Int = 0) async throws {
        let router = Router()
        router.get("store/:ns") { [self] _, _ -> Response in
            try self.pull()
        }
        router.post("store/:ns") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try self.push(Data(buffer: body))
        }
        let ports = AsyncStream<Int>.makeStream()
        let app = Application(router: router,
                              configuration: .init(address: .hostname("127.0.0.1", port: wanted)),
                              onServerRunning: { channel in
                                  ports.continuation.yield(channel.localAddress?.port ?? 0)
                                  ports.continuation.finish()
                              })
        task.withLockedValue { $0 = Task { try await app.run() } }
        for await p in ports.stream { boundPort.withLockedValue { $0 = p } }
    }

    /// Stops serving: connections are refused until `start(port:)` again.
    func stop() async {
        let t = task.withLockedValue { t -> Task<Void, Error>? in
            let old = t
            t = nil
            return old
        }
        t?.cancel()
        _ = try? await t?.value
    }

    /// The value the server holds at `path`, if any.
    func value(at path: String) -> StoreValue? {
        guard let p = try? KeyPath(path) else { return nil }
        return state.withLockedValue { p.get(in: $0.root) }
    }

    /// The server's own write of `path` at `time` (another client's).
    func write(_ path: String, _ value: StoreValue, at time: Int64) throws {
        let p = try KeyPath(path)
        try state.withLockedValue {
            try p.set(value, in: &$0.root)
            $0.updatedAt[p.description] = time
        }
    }

    private func pull() throws -> Response {
        try state.withLockedValue { s in
            if s.failing { return Response(status: .serviceUnavailable) }
            let body: JSONValue = ["values": s.root.jsonValue, "updatedAt": .object(s.updatedAt.mapValues { .int($0) })]
            return Response(status: .ok, body: .init(byteBuffer: .init(data: try JSONEncoder().encode(body))))
        }
    }

    private func push(_ data: Data) throws -> Response {
        let request = try JSONValue(json: data)
        return try state.withLockedValue { s in
            if s.failing { return Response(status: .serviceUnavailable) }
            s.pushes += 1
            var accepted: [JSONValue] = []
            var conflicts: [JSONValue] = []
            for p in request["patches"]?.arrayValue ?? [] {
                guard let id = p["id"]?.stringValue, let text = p["keyPath"]?.stringValue,
                      let path = try? KeyPath(text), let t = p["timestamp"]?.intValue else { continue }
                s.received.append(id)
                if s.seen.contains(id) { accepted.append(.string(id)); continue }
                let serverTime = s.updatedAt.filter { (try? KeyPath($0.key))?.intersects(path) == true }.values.max() ?? 0
                if t < serverTime {
                    var c: [String: JSONValue] = ["id": .string(id), "updatedAt": .int(serverTime)]
                    if let v = path.get(in: s.root) { c["value"] = v.jsonValue }
                    conflicts.append(.object(c))
                    continue
                }
                if p["op"]?.stringValue == "remove" {
                    path.remove(from: &s.root)
                } else if let v = p.objectValue?["value"] {
                    try? path.set(StoreValue(v), in: &s.root)
                }
                s.updatedAt[path.description] = t
                s.seen.insert(id)
                accepted.append(.string(id))
            }
            let body: JSONValue = ["accepted": .array(accepted), "conflicts": .array(conflicts)]
            return Response(status: .ok, body: .init(byteBuffer: .init(data: try JSONEncoder().encode(body))))
        }
    }
}
