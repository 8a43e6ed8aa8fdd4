// Floor.swift - `sdui-parser-floor`, a floor for `sdui bench start-up`: a
// program that links only the argument parser (no Foundation, no SDUIKit)
// and parses a command line of the same shape as `sdui render`'s (the same
// 17 option and flag types, one option group), then does nothing.  Its
// wall time is what starting a Swift program and parsing that command line
// cost before any work; it writes the parse's milliseconds on stderr as
// `parse-ms N`.
// The options mirror Sources/SDUICLI/RenderCommand.swift; they are only
// parsed.
#if Server
import ArgumentParser
import Glibc

/// Stand-in for SDUI's ThemeMode: an enum argument.
enum ThemeMode: String, ExpressibleByArgument { case light, dark }

/// Stand-in for the commands' shared option group.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result as JSON.") var json = false
}

/// When `main` began.
nonisolated(unsafe) var started = ContinuousClock.now

/// The `render` command's options, parsed and dropped.
struct RenderShape: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "render")

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
    func run() throws {
        let d = ContinuousClock.now - started
        var line = "parse-ms \(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}

@main
struct ParserFloor: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sdui", version: "floor", subcommands: [RenderShape.self])

    /// Parses and runs, as the real command's runner does.
    static func main() {
        started = ContinuousClock.now
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
#else
@main
enum ParserFloor {
    /// Built without the "Server" trait: nothing to measure.
    static func main() {}
}
#endif
