// main.swift - a host service that mounts the SDUIKit registry under /sdui in
// its own Hummingbird router, and runs the registry's refresher in its own
// ServiceGroup so that publishes keep reaching it.
//
//     registry-host --db registry.db [--port 8080]
//
// The host owns the process: it installs the SIGTERM/SIGINT handling (the
// library installs none), chooses the logger, and decides the paths.
import Foundation
import Hummingbird
import Logging
import SDUIServer
import ServiceLifecycle
import UnixSignals

/// The value after `name` on the command line, if any.
func option(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

let logger = Logger(label: "registry-host")
guard let db = option("--db") else {
    FileHandle.standardError.write(Data("usage: registry-host --db REGISTRY.db [--port N]\n".utf8))
    exit(64)
}
let port = Int(option("--port") ?? "8080") ?? 8080

// The registry: its store, and a server whose routes this host mounts.  The
// server's own listener is not used; the host's application serves.
let store = try await SQLiteRegistryStore(path: db)
var configuration = RegistryServerConfiguration()
configuration.refreshInterval = .milliseconds(200)
let registry = RegistryServer(store: store, configuration: configuration, logger: logger)
try await store.migrate()
try await registry.refresh()   // the first snapshot; the refresher applies the rest

// The host's own router: its routes, and the registry's under /sdui.
let router = Router()
router.get("/") { _, _ in "registry-host: the registry is under /sdui\n" }
router.addRoutes(registry.routes(), atPath: "/sdui")

let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        // One line a supervisor (or the example's check) can wait for.
        let line = "registry-host listening on 127.0.0.1:\(channel.localAddress?.port ?? port)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    },
    logger: logger
)
let group = ServiceGroup(
    configuration: .init(
        // The registry's background work beside the app: picking up newly
        // published rows, and the analytics events' retention.
        services: [.init(service: app), .init(service: RegistryRefresher(registry)),
                   .init(service: EventPruner(registry))],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    )
)
try await group.run()
