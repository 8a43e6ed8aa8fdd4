// RegistryRefresherTests.swift - the registry inside a host's ServiceGroup: its
// routes mounted in the host's own application, publishes still arriving.
#if Server
import Foundation
import Hummingbird
import Logging
import SDUI
@testable import SDUIServer
import SDUITestSupport
import ServiceLifecycle
import Testing

@Suite struct RegistryRefresherTests: RegistryServerFixtures {
    @Test func routesMountedInAHostAppSeeNewPublishes() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            var config = RegistryServerConfiguration()
            config.refreshInterval = .milliseconds(50)
            var quiet = Logger(label: "host")
            quiet.logLevel = .critical
            let registry = RegistryServer(store: store, configuration: config, logger: quiet)
            try await registry.refresh()
            let ports = AsyncStream<Int>.makeStream()
            // The host's own router: its own route, and the registry's under /sdui.
            let router = Router()
            router.get("/") { _, _ in "host" }
            router.addRoutes(registry.routes(), atPath: "/sdui")
            let app = Application(router: router,
                                  configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  onServerRunning: { ports.continuation.yield($0.localAddress?.port ?? 0) },
                                  logger: quiet)
            let group = ServiceGroup(services: [app, RegistryRefresher(registry)], logger: quiet)
            let running = Task { try await group.run() }
            var port = 0
            for await p in ports.stream { port = p; break }
            let base = URL(string: "http://127.0.0.1:\(port)/")!
            func status(_ path: String) async throws -> Int {
                try await HTTPProbe.get(URL(string: path, relativeTo: base)!.absoluteURL,
                                        headers: ["X-Primitives": Self.modern]).status
            }
            #expect(try await status("design-tokens?ids=plain") == 404, "the registry is not at the root")
            #expect(try await status("/") == 200, "the host's own route")
            #expect(try await status("sdui/design-tokens?ids=plain") == 200)
            #expect(try await status("sdui/health/live") == 200)
            #expect(try await status("sdui/design-tokens?ids=newcomer") == 404)
            try await store.publish([stored("newcomer")])
            // The refresher applies it within a few intervals; poll, no fixed sleep.
            var seen = false
            for _ in 0..<100 where !seen {
                seen = try await status("sdui/design-tokens?ids=newcomer") == 200
                if !seen { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(seen, "a publish reached the host's routes")
            // Metrics name the registry's routes, not the host's prefix, so
            // the dashboard's queries hold for any mount.
            let metrics = try await HTTPProbe.get(URL(string: "sdui/metrics", relativeTo: base)!.absoluteURL).text
            #expect(metrics.contains(#"sdui_http_requests_total{route="/design-tokens",method="GET",status="200"}"#), "\(metrics)")
            #expect(!metrics.contains("/sdui/"), "\(metrics)")
            // An undeclared method is 405 under the prefix too.
            let trace = await RawClient.exchange(port: port, "TRACE /sdui/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(trace.answers.first?.status == 405 && trace.answers.first?.header("allow") == "GET, HEAD")
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    @Test func theServerIsAServiceOfTheHostsGroup() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            var config = RegistryServerConfiguration()
            config.port = 0
            var quiet = Logger(label: "host")
            quiet.logLevel = .critical
            let server = RegistryServer(store: store, configuration: config, logger: quiet)
            #expect(config.gracefulShutdownSignals.isEmpty, "a library installs no signal handler by default")
            let group = ServiceGroup(services: [server], logger: quiet)
            let running = Task { try await group.run() }
            // Serving: the snapshot was loaded by run().
            var loaded = false
            for _ in 0..<200 where !loaded {
                loaded = server.snapshot().generation > 0
                if !loaded { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(loaded)
            // The host's graceful shutdown stops the server, and run returns.
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }
}
#endif
