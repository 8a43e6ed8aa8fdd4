// ServeCommand.swift - `sdui serve`: the registry server.
#if Server
import ArgumentParser
import Foundation
import Logging
import SDUI
import SDUIServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve /screens/{id}, /design-tokens, /metrics and /health from the registry.")

    @OptionGroup var store: StoreOptions

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port (0 picks a free one).")
    var port = 8080

    @Option(name: .customLong("signing-key"), help: "Sign served tokens with this key (HS256 secret or JWK).")
    var signingKey: String?

    @Option(name: .customLong("access-key"), help: "Require bearer JWTs verified with this key.")
    var accessKey: String?

    @Option(name: .customLong("max-age"), help: "Cache-Control max-age in seconds.")
    var maxAge = 86_400

    @Option(name: .customLong("refresh-ms"), help: "How often to look for newly published rows, in ms.")
    var refreshMs = 1000

    @Option(name: .customLong("idle-timeout"), help: "Seconds before an idle connection is closed.")
    var idleTimeout = 60

    @Option(name: .customLong("max-connections"),
            help: "Most connections open at once; more wait until one closes (default: what ulimit -n allows).")
    var maxConnections: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Flag(name: .customLong("log-requests"), help: "Log one line per request at the --log-level.")
    var logRequests = false

    /// Every number in range before anything starts; a bad one is a usage
    /// error that names the option (and prints this command's usage).
    func validate() throws {
        try store.validateGiven()
        try checkRange(port, in: 0...65_535, "--port")
        try checkRange(maxAge, in: 0...31_536_000, "--max-age", unit: "seconds (at most a year)")
        try checkRange(refreshMs, in: 10...3_600_000, "--refresh-ms", unit: "milliseconds")
        try checkRange(idleTimeout, in: 1...86_400, "--idle-timeout", unit: "seconds")
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() async throws {
        try await reportingErrors {
            var c = RegistryServerConfiguration()
            c.host = host
            c.port = port
            c.maxAge = maxAge
            c.refreshInterval = .milliseconds(refreshMs)
            c.idleTimeout = .seconds(idleTimeout)
            // The command owns its process: SIGTERM and SIGINT stop it gracefully.
            c.gracefulShutdownSignals = [.sigterm, .sigint]
            c.maxConnections = maxConnections   // validate() checked it
            if let signingKey { c.signer = try KeyFile.signer(signingKey) }
            if let accessKey { c.access = AccessTokenVerifier(verifier: try KeyFile.verifier(accessKey)) }
            let level = Logger.Level(rawValue: logLevel) ?? .info   // validate() checked it
            var logger = Logger(label: "sdui.server")
            logger.logLevel = level
            if logRequests { c.requestLogLevel = level }
            let host = c.host
            try await store.with { registry in
                let server = RegistryServer(store: registry, configuration: c, logger: logger)
                try await server.run { port in
                    FileHandle.standardError.write(Data("sdui serve: listening on http://\(host):\(port)/\n".utf8))
                }
            }
        }
    }
}
#endif
