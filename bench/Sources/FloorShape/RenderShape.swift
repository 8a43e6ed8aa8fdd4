// RenderShape.swift - the command line both start-up floors of `sdui bench
// start-up` parse: the same 17 option and flag types and one option group as
// `sdui render` (Sources/SDUICLI/RenderCommand.swift), parsed and dropped.
// No Foundation here: the parser floor links nothing else.
#if Server
import ArgumentParser
import Glibc

/// Stand-in for SDUI's ThemeMode: an enum argument.
public enum ThemeMode: String, ExpressibleByArgument { case light, dark }

/// Stand-in for the commands' shared option group.
public struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result as JSON.") var json = false

    /// An empty option group, as the parser makes it.
    public init() {}
}

/// When `main` began.
nonisolated(unsafe) public var started = ContinuousClock.now

/// The `render` command's options, parsed and dropped.
public struct RenderShape: ParsableCommand {
    public static let configuration = CommandConfiguration(commandName: "render")

    /// A command before parsing, as the parser makes it.
    public init() {}

    enum Format: String, ExpressibleByArgument, CaseIterable { case json, html }

    @Argument(help: "The screen file (- for standard input).")
    var screen: String

    @OptionGroup var output: OutputOptions

    @Option(help: "The Core-Token Pack the screen's tokens come from.")
    var pack: String?

    @Option(help: "A theme file: schemas/theme.json, the flat block-theme form, or W3C Design Tokens (repeatable).")
    var theme: [String] = []

    @Option(name: .customLong("flow-theme"), help: "The flow's default theme id.")
    var flowTheme: String?

    @Option(help: "light or dark.")
    var mode: ThemeMode = .light

    @Option(name: .customLong("text-scale"), help: "Accessibility scale for typography, 0.5 to 4.")
    var textScale: Double = 1

    @Option(name: .customLong("spacing-scale"), help: "Accessibility scale for spacing, 0.5 to 4 (kept on the 4 pt grid).")
    var spacingScale: Double = 1

    @Option(help: "A host binding, key.path=value; the value is JSON when it parses, else text (repeatable).")
    var bind: [String] = []

    @Option(help: "Scenario data: a JSON file whose top-level object the screen's {{…}} bindings (after --bind) and @{…} expressions read.")
    var store: String?

    @Option(help: "X-Primitives versions over the built-ins: each listed primitive gets that version.")
    var primitives: String?

    @Option(name: .customLong("fallback-pack"), help: "A Fallback Pack of screens for offline use.")
    var fallbackPack: String?

    @Option(help: "Treat these token ids as offline misses (comma-separated), to preview skeletons and fallbacks.")
    var offline: String?

    @Option(help: "json or html.")
    var format: Format = .json

    @Option(help: "Write here instead of stdout.")
    var out: String?

    @Flag(help: "Exit with status 1 when anything degraded.")
    var strict = false
    @Flag(name: .customLong("report-work"), help: .hidden)
    var reportWork = false

    /// Writes the milliseconds from `main` to here on stderr, as the real
    /// command's `--report-work` does.
    public func run() throws {
        let d = ContinuousClock.now - started
        var line = "parse-ms \(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}

/// The floors' root command: `render` as its one subcommand.
public struct FloorRoot: ParsableCommand {
    public static let configuration = CommandConfiguration(commandName: "sdui", version: "floor",
                                                           subcommands: [RenderShape.self])

    /// A command before parsing, as the parser makes it.
    public init() {}

    /// Parses the process's command line and runs it, as the real
    /// command's runner does.
    public static func parseAndRun() {
        started = ContinuousClock.now
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
#endif
