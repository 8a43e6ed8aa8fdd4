// CommandRunner.swift - parses and runs one `sdui` command line, and ends
// the process the way the README promises for each kind of error.  Both
// executables' entry points (the client front `sdui`, `sdui-server`) call it.
#if Server
import ArgumentParser
import Foundation
import SDUI

/// Runs a command line against a root command.
package enum CommandRunner {
    /// When ``run(_:_:json:)`` began: the end of the process's start-up, for
    /// `sdui bench start-up`.  Written once, before the command runs.
    nonisolated(unsafe) package static var started: ContinuousClock.Instant?

    /// Parses `arguments` with `root` and runs the command they name.
    /// Errors leave as the README says: a bad input is one `error: …` line
    /// on stderr (with `--json`, one `{"error": {…}}` line) and exit status
    /// 1; a usage error is the parser's message and usage (with `--json`,
    /// one JSON line) and 64.  `json` says whether errors are JSON from the
    /// start, so that a usage error is JSON too.
    package static func run(_ root: any ParsableCommand.Type, _ arguments: [String], json: Bool) async {
        started = ContinuousClock.now
        CommandOutput.json = json
        do {
            var command = try root.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(root, reporting: error, arguments: arguments)
        }
    }

    /// Whether `--json` is among the options (before any `--`).
    package static func wantsJSON(_ arguments: [String]) -> Bool {
        arguments.prefix(while: { $0 != "--" }).contains("--json")
    }

    /// Ends the process for a thrown error: a usage error gets the hint for
    /// a value that starts with `-`, and the `--json` form when asked.
    private static func exit(_ root: any ParsableCommand.Type, reporting error: Error, arguments: [String]) -> Never {
        let code = root.exitCode(for: error)
        if code != .success, code != .failure, !(error is ExitCode) {
            let hint = dashHint(root, error, arguments)
            if CommandOutput.json {
                let text = root.message(for: error) + (hint.map { "\n" + $0 } ?? "")
                printErrorJSON(ErrorJSON(category: "usage", message: text))
                root.exit(withError: ExitCode(code.rawValue))
            }
            if let hint {
                FileHandle.standardError.write(Data((root.fullMessage(for: error) + "\n" + hint + "\n").utf8))
                root.exit(withError: ExitCode(code.rawValue))
            }
        }
        root.exit(withError: error)
    }

    /// For a usage error caused by an argument that starts with `-` but is
    /// no option (an expression `-x + 1`, a negative number): how to pass
    /// it.  nil for any other error.
    private static func dashHint(_ root: any ParsableCommand.Type, _ error: Error, _ arguments: [String]) -> String? {
        let options = arguments.prefix(while: { $0 != "--" })
        guard let value = options.first(where: { a in
            a.hasPrefix("-") && a != "-" && a.count > 1
                && (a.contains(" ") || a.dropFirst().first.map { !$0.isLetter && $0 != "-" } ?? false)
        }) else { return nil }
        let text = root.message(for: error)
        guard text.contains("Missing expected argument") || text.contains("Unknown option")
                || text.contains("Unexpected argument") else { return nil }
        return "hint: '\(value.escapedForDisplay)' starts with '-', so it was read as an option; "
            + "put values that start with '-' after '--', as in: sdui expr eval -- '-x + 1'"
    }
}
#endif
