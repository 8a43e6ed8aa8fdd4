// LoopbackEvents.swift - a real POST /events server on 127.0.0.1 for the
// uploader's tests: it keeps each event id once, and fails on demand
// (503 without storing, storing and then answering 500, or answering too
// late for the client's deadline); and POST /submit, which keeps the
// answers a flow submits.
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import SDUICore

final class LoopbackEvents: Sendable {
    enum Mode: Sendable { case ok, unavailable, storeThenFail, slow(Duration) }

    struct State {
        var ids: [String] = []          // each id once, in arrival order
        var received = 0                // events received, duplicates included
        var batches: [Int] = []         // sizes of every batch received
        var maxBody = 0
        var modes: [Mode] = []          // one per request; .ok when empty
        var submitted: [JSONValue] = [] // bodies of POST /submit
        var submitStatus = 200
    }

    let state = NIOLockedValueBox(State())
    private let task: NIOLockedValueBox<Task<Void, Error>?> = NIOLockedValueBox(nil)
    private let boundPort = NIOLockedValueBox(0)
    var url: URL { URL(string: "http://127.0.0.1:\(boundPort.withLockedValue { $0 })/events")! }
    var submitURL: URL { URL(string: "http://127.0.0.1:\(boundPort.withLockedValue { $0 })/submit")! }

    func start() async throws {
        let router = Router()
        router.post("events") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try await self.receive(Data(buffer: body))
        }
        router.post("submit") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let value = try JSONValue(json: Data(buffer: body))
            let status = state.withLockedValue { s -> Int in s.submitted.append(value); return s.submitStatus }
            return Response(status: .init(code: status))
        }
        let ports = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  ports.continuation.yield(channel.localAddress?.port ?? 0)
                                  ports.continuation.finish()
                              })
        task.withLockedValue { $0 = Task { try await app.run() } }
        for await p in ports.stream { boundPort.withLockedValue { $0 = p } }
    }

    func stop() async {
        let t = task.withLockedValue { $0 }
        t?.cancel()
        _ = try? await t?.value
    }

    private func receive(_ data: Data) async throws -> Response {
        let mode = state.withLockedValue { s -> Mode in s.modes.isEmpty ? .ok : s.modes.removeFirst() }
        if case .unavailable = mode { return Response(status: .serviceUnavailable) }
        if case .slow(let d) = mode { try await Task.sleep(for: d) }
        let value = try JSONValue(json: data)
        let ids = (value["events"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        state.withLockedValue { s in
            s.received += ids.count
            s.batches.append(ids.count)
            s.maxBody = max(s.maxBody, data.count)
            for id in ids where !s.ids.contains(id) { s.ids.append(id) }
        }
        if case .storeThenFail = mode { return Response(status: .internalServerError) }
        return Response(status: .ok, body: .init(byteBuffer: .init(string: #"{"accepted":\#(ids.count),"duplicates":0}"#)))
    }
}
