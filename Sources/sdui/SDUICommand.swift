// SDUICommand.swift - the `sdui` command: entry point and shared output helpers.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUIBench
import SDUIServer

@main
struct SDUICommand: AsyncParsableCommand {
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
                      ExprCommand.self, StoreCommand.self, FlowCommand.self, ScreenCommand.self]
    )

    /// Parses and runs the command.  Errors leave as the README says: a
    /// bad input is one `error: …` line on stderr (with `--json`, one
    /// `{"error": {…}}` line) and exit status 1; a usage error is the
    /// parser's message and usage (with `--json`, one JSON line) and 64.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Before the parse, so that a usage error is JSON too.
        CommandOutput.json = arguments.prefix(while: { $0 != "--" }).contains("--json")
            || ServeEnvironment.wantsJSON(arguments, ProcessInfo.processInfo.environment)
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(reporting: error, arguments: arguments)
        }
    }

    /// Ends the process for a thrown error: a usage error gets the hint for
    /// a value that starts with `-`, and the `--json` form when asked.
    private static func exit(reporting error: Error, arguments: [String]) -> Never {
        let code = exitCode(for: error)
        if code != .success, code != .failure, !(error is ExitCode) {
            let hint = dashHint(error, arguments)
            if CommandOutput.json {
                let text = message(for: error) + (hint.map { "\n" + $0 } ?? "")
                printErrorJSON(ErrorJSON(category: "usage", message: text))
                Self.exit(withError: ExitCode(code.rawValue))
            }
            if let hint {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n" + hint + "\n").utf8))
                Self.exit(withError: ExitCode(code.rawValue))
            }
        }
        Self.exit(withError: error)
    }

    /// For a usage error caused by an argument that starts with `-` but is
    /// no option (an expression `-x + 1`, a negative number): how to pass
    /// it.  nil for any other error.
    private static func dashHint(_ error: Error, _ arguments: [String]) -> String? {
        let options = arguments.prefix(while: { $0 != "--" })
        guard let value = options.first(where: { a in
            a.hasPrefix("-") && a != "-" && a.count > 1
                && (a.contains(" ") || a.dropFirst().first.map { !$0.isLetter && $0 != "-" } ?? false)
        }) else { return nil }
        let text = message(for: error)
        guard text.contains("Missing expected argument") || text.contains("Unknown option")
                || text.contains("Unexpected argument") else { return nil }
        return "hint: '\(value.escapedForDisplay)' starts with '-', so it was read as an option; "
            + "put values that start with '-' after '--', as in: sdui expr eval -- '-x + 1'"
    }
}

/// Process-wide output settings of the one command a run executes.
enum CommandOutput {
    /// Whether `--json` was given: errors are printed as JSON.  Set once,
    /// before the command runs, by ``SDUICommand/main()``.
    nonisolated(unsafe) static var json = false
}

/// The options every command takes.  A command whose result has a JSON
/// form prints it when `json` is set; errors follow it either way.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result, and any error, as JSON (an error: one {\"error\": …} line on stderr).")
    var json = false
}

/// Runs `body`; a bad-input error is printed as the first stderr line,
/// `error: <category>: <input>: <place>: <message>`, and exits with status 1.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw exitStatus(for: error)
    }
}

/// `reportingErrors` for async work.
func reportingErrors<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw exitStatus(for: error)
    }
}

/// What a failed command throws: a bad-input error is printed and becomes
/// exit status 1; anything else (argument parsing, exit codes) passes on.
func exitStatus(for error: Error) -> Error {
    switch error {
    case let e as SDUIError:
        printError(e)
    case let e as RegistryError:
        if CommandOutput.json {
            printErrorJSON(ErrorJSON(category: e.code.rawValue, message: e.message, input: e.subject))
        } else {
            FileHandle.standardError.write(Data("error: \(e)\n".utf8))
        }
    default:
        return error
    }
    return ExitCode(1)
}

/// Writes `error: <category>: …` as one line on stderr, or with `--json`
/// one `{"error": {…}}` line.
func printError(_ error: SDUIError) {
    if CommandOutput.json { return printErrorJSON(ErrorJSON(error)) }
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
}

/// Prints one line built from input (a path, an id, a key) on stdout, with
/// its control characters shown as escapes (``Swift/String/escapedForDisplay``),
/// so content from outside never acts on the terminal or forges a line.
func say(_ line: String) {
    print(line.escapedForDisplay)
}

/// Writes one line built from input on stderr, escaped as ``say(_:)`` does.
func warn(_ line: String) {
    FileHandle.standardError.write(Data((line.escapedForDisplay + "\n").utf8))
}

/// Writes `{"error": {…}}` as one line on stderr.
func printErrorJSON(_ error: ErrorJSON) {
    struct Envelope: Encodable { var error: ErrorJSON }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = (try? encoder.encode(Envelope(error: error))) ?? Data(#"{"error":{"category":"unknown"}}"#.utf8)
    data.append(UInt8(ascii: "\n"))
    FileHandle.standardError.write(data)
}

/// Throws a usage error naming `option` when `value` is outside `range`
/// (called from commands' `validate()`, so the subcommand's usage follows).
func checkRange(_ value: Int, in range: ClosedRange<Int>, _ option: String, unit: String = "") throws {
    guard range.contains(value) else {
        throw ValidationError("\(option) must be between \(range.lowerBound) and \(range.upperBound)"
                              + (unit.isEmpty ? "" : " \(unit)") + "; got \(value)")
    }
}

/// The bytes of a file (`-`: standard input), at most `limit` of them; an
/// error names the file and the real cause (``FileInput``).
func readFile(_ path: String, limit: Int) throws -> Data {
    try FileInput.read(path, limit: limit)
}

/// How errors name an input path: `-` is standard input.
func inputName(_ path: String) -> String { path == "-" ? "standard input" : path }

/// Writes a file in one step (atomically); `-` is standard output.  A
/// path that names something other than a file or a folder (a device such
/// as /dev/null, a FIFO) is written into, never replaced: the atomic way
/// renames a new file over the path.  An `io` error names the file.
func writeFile(_ data: Data, to path: String) throws {
    if path == "-" {
        FileHandle.standardOutput.write(data)
        return
    }
    let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
    let special = type.map { $0 != .typeRegular && $0 != .typeDirectory && $0 != .typeSymbolicLink } ?? false
    do {
        if special {
            guard let handle = FileHandle(forWritingAtPath: path) else {
                throw SDUIError(.io, "cannot open for writing", input: path)
            }
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
        } else {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        }
    } catch let e as SDUIError {
        throw e
    } catch {
        throw SDUIError(.io, "cannot write: \(error.localizedDescription)", input: path)
    }
}

/// Writes a value as one line of JSON with sorted keys on stdout.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(value)
    data.append(UInt8(ascii: "\n"))
    FileHandle.standardOutput.write(data)
}

/// Milliseconds elapsed while running `body`.
func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let clock = ContinuousClock()
    var result: T?
    let d = try clock.measure { result = try body() }
    return (result!, d.milliseconds)
}
#endif
