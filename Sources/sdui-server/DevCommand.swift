// DevCommand.swift - `sdui dev DIR`: the live playground of a folder's
// screens and flows (SDUIPlayground), until SIGINT or SIGTERM.
#if Server
import ArgumentParser
import Foundation
import Logging
import SDUICLI
import SDUICore
import SDUIPlayground
import ServiceLifecycle

struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Serve a live playground of a folder's screens and flows in the browser.",
        discussion: """
        DIR is in the Examples/ layout (tokens/, screens/, blocks/, payloads/, flows/, themes/). \
        The page at / lists every screen and flow; each opens in a device frame, run by the \
        engine in this process: taps and typed values go to it over a WebSocket and only the \
        nodes that changed come back. Saving a file under DIR redraws the pages that use it; a \
        file that does not parse or breaks a rule leaves the last good render and shows a \
        banner naming the file, the place and the rule. Events and flow progress go to \
        DIR/.sdui-dev/dev.sqlite. Bound to 127.0.0.1 unless --host says otherwise. \
        See docs/playground.md.

        Examples:
          sdui dev Examples
          sdui dev Examples --port 0
        """)

    enum Watch: String, ExpressibleByArgument, CaseIterable { case native, polling }

    @Argument(help: "The folder to serve.")
    var dir: String

    @Option(help: "The port (0: any free one; the URL is printed).")
    var port = 8790

    @Option(help: "The address to bind; anything but loopback is said at start.")
    var host = "127.0.0.1"

    @Option(help: "native (inotify on Linux, kqueue on Apple platforms) or polling.")
    var watch: Watch = .native

    @Option(name: .customLong("allow-origin"),
            help: "An origin whose pages may open the WebSocket besides the playground's own, e.g. a proxy's (repeatable).")
    var allowOrigin: [String] = []

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingErrors {
            var logger = Logger(label: "sdui.dev")
            logger.logLevel = .warning
            var c = PlaygroundServer.Configuration(folder: dir)
            c.host = host
            c.port = port
            c.watch = watch == .native ? .native : .polling
            c.allowedOrigins = allowOrigin
            let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            if !PlaygroundServer.isLoopback(host) {
                say("sdui dev: warning: bound to \(host), not loopback: any machine that reaches this one can open "
                    + "the playground, read the folder's screens and run their actions")
            }
            let folder = dir
            let server = try PlaygroundServer(c, logger: logger) { port in
                say("sdui dev: serving \(folder) at http://\(shown):\(port)/")
            }
            // The command owns its process: SIGTERM and SIGINT stop it gracefully.
            let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint],
                                                          logger: logger))
            try await group.run()
        }
    }
}

/// A line on standard error, at once.
private func say(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
#endif
