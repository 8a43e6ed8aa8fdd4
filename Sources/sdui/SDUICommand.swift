// SDUICommand.swift - `sdui`, the client front: the commands an author and a
// client run (render, expr, theme, token, flow, screen) in a binary without
// the server stack, so that it starts in a fraction of the time; every other
// command line, help of the whole tree included, goes to `sdui-server`
// (ServerHandOff.swift), which holds the whole command set.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICLI

@main
struct SDUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdui",
        abstract: "SDUIKit's client commands; `sdui --help` lists them all.",
        discussion: """
        Example:
          sdui render Examples/screens/checkout.json --pack Examples/core-pack.json.gz
        """,
        version: SDUIKitVersion.string,
        subcommands: [TokenCommand.self, RenderCommand.self, ThemeCommand.self,
                      ExprCommand.self, FlowCommand.self, ScreenCommand.self, ExperimentCommand.self,
                      A11yCommand.self, StringsCommand.self]
    )

    /// Runs a client command here (``CommandRunner``); hands any other
    /// command line to `sdui-server`.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard runsHere(arguments) else { ServerHandOff.replaceProcess(arguments) }
        await CommandRunner.run(self, arguments, json: CommandRunner.wantsJSON(arguments))
    }

    /// Whether this executable runs `arguments`: a command line that starts
    /// with one of its own commands, or `--version` alone.  Anything else
    /// (`--help`, `help`, a server command, a typo) goes to `sdui-server`,
    /// whose tree has every command, so its answer is the whole truth.
    static func runsHere(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }
        if first == ExperimentCommand.configuration.commandName,
           let sub = arguments.dropFirst().first, ExperimentCommand.serverSubcommands.contains(sub) {
            return false   // `sdui experiment report` reads the registry's store
        }
        return arguments == ["--version"]
            || configuration.subcommands.contains { $0.configuration.commandName == first }
    }
}
#endif
