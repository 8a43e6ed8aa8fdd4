// DemoAPI.swift - the app's own API for `sdui demo`, on 127.0.0.1: what the
// example checkout's `request` actions post to (`/cart/items`, `/orders`).
#if Server
import Foundation
import Hummingbird
import Logging
import SDUICore
import ServiceLifecycle

/// A stand-in for an app's backend: `POST /cart/items` answers the item it
/// was given with the cart's new count, `POST /orders` an order number.
/// It runs until ``stop()``.
final class DemoAPI: Sendable {
    /// Where it listens (`http://127.0.0.1:PORT/`).
    let baseURL: URL
    private let group: ServiceGroup
    private let task: Task<Void, Error>

    private init(baseURL: URL, group: ServiceGroup, task: Task<Void, Error>) {
        self.baseURL = baseURL
        self.group = group
        self.task = task
    }

    /// Starts the API on a free loopback port.
    static func start(logger: Logger) async throws -> DemoAPI {
        let router = Router()
        let count = Locked(3)
        router.post("cart/items") { request, _ -> Response in
            let body = try JSONValue(json: Data(buffer: try await request.body.collect(upTo: 64 << 10)), source: "POST /cart/items")
            let n = count.withLock { c -> Int in c += 1; return c }
            return Self.json(["added": body["sku"] ?? .null, "cartCount": .int(Int64(n))], status: .ok)
        }
        router.post("orders") { _, _ -> Response in
            Self.json(["order": "A-1001", "status": "paid"], status: .created)
        }
        let ports = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  ports.continuation.yield(channel.localAddress?.port ?? 0)
                                  ports.continuation.finish()
                              }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            defer { ports.continuation.finish() }
            try await group.run()
        }
        var port = 0
        for await p in ports.stream { port = p }
        guard port > 0 else {
            await group.triggerGracefulShutdown()
            _ = await task.result
            throw SDUIError(.io, "the demo API did not start", input: "127.0.0.1")
        }
        return DemoAPI(baseURL: URL(string: "http://127.0.0.1:\(port)/")!, group: group, task: task)
    }

    /// A JSON answer.
    static func json(_ value: JSONValue, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: value.jsonText)))
    }

    /// Stops the API gracefully and waits for it.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
#endif
