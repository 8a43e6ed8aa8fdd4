// SDUIServerCommand.swift - `sdui-server`: the whole `sdui` command set, the
// registry server, its tools and the benchmarks included.  The client front
// `sdui` runs the client commands itself and hands every other command line
// to this executable (Sources/sdui/SDUICommand.swift).
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUIBench
import SDUICLI

@main
struct SDUIServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdui",
        abstract: "SDUIKit: Core-Token Packs, design tokens, render trees, themes and benchmarks.",
        discussion: """
        Every command takes --json (its result, and any error, as JSON) and --help. \
        Where a command reads or writes one file, - is standard input or output.

        Example:
          sdui pack build Examples/tokens --out - | sdui pack inspect - --json
        """,
        version: SDUIKitVersion.string,
        subcommands: [PackCommand.self, TokenCommand.self, RenderCommand.self, ThemeCommand.self,
                      RegistryCommand.self, ServeCommand.self, DemoCommand.self, BenchCommand.self,
                      ExprCommand.self, StoreCommand.self, FlowCommand.self, ScreenCommand.self, DevCommand.self, ExperimentServerCommand.self,
                      A11yCommand.self, StringsCommand.self]
    )

    /// Parses and runs the command (``CommandRunner``); `sdui serve` also
    /// takes its `--json` from `SDUI_JSON`.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let json = CommandRunner.wantsJSON(arguments)
            || ServeEnvironment.wantsJSON(arguments, ProcessInfo.processInfo.environment)
        await CommandRunner.run(self, arguments, json: json)
    }
}

/// Milliseconds elapsed while running `body`.
func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let clock = ContinuousClock()
    var result: T?
    let d = try clock.measure { result = try body() }
    return (result!, d.milliseconds)
}
#endif
