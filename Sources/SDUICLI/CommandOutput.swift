// CommandOutput.swift - what every `sdui` command shares: the --json
// option, how errors leave (one line on stderr, exit status 1), and reading
// and writing the files a command names.  Both executables (the client
// front `sdui` and `sdui-server`) use these, so they are `package`.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUIRegistryKit

/// Process-wide output settings of the one command a run executes.
package enum CommandOutput {
    /// Whether `--json` was given: errors are printed as JSON.  Set once,
    /// before the command runs, by ``CommandRunner/run(_:_:json:)``.
    nonisolated(unsafe) package static var json = false
}

/// The options every command takes.  A command whose result has a JSON
/// form prints it when `json` is set; errors follow it either way.
package struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result, and any error, as JSON (an error: one {\"error\": …} line on stderr).")
    package var json = false

    package init() {}
}

/// Runs `body`; a bad-input error is printed as the first stderr line,
/// `error: <category>: <input>: <place>: <message>`, and exits with status 1.
package func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw exitStatus(for: error)
    }
}

/// `reportingErrors` for async work.
package func reportingErrors<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw exitStatus(for: error)
    }
}

/// What a failed command throws: a bad-input error is printed and becomes
/// exit status 1; anything else (argument parsing, exit codes) passes on.
package func exitStatus(for error: Error) -> Error {
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
package func printError(_ error: SDUIError) {
    if CommandOutput.json { return printErrorJSON(ErrorJSON(error)) }
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
}

/// Prints one line built from input (a path, an id, a key) on stdout, with
/// its control characters shown as escapes (``Swift/String/escapedForDisplay``),
/// so content from outside never acts on the terminal or forges a line.
package func say(_ line: String) {
    print(line.escapedForDisplay)
}

/// Writes one line built from input on stderr, escaped as ``say(_:)`` does.
package func warn(_ line: String) {
    FileHandle.standardError.write(Data((line.escapedForDisplay + "\n").utf8))
}

/// Writes `{"error": {…}}` as one line on stderr.
package func printErrorJSON(_ error: ErrorJSON) {
    struct Envelope: Encodable { var error: ErrorJSON }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = (try? encoder.encode(Envelope(error: error))) ?? Data(#"{"error":{"category":"unknown"}}"#.utf8)
    data.append(UInt8(ascii: "\n"))
    FileHandle.standardError.write(data)
}

/// Throws a usage error naming `option` when `value` is outside `range`
/// (called from commands' `validate()`, so the subcommand's usage follows).
package func checkRange(_ value: Int, in range: ClosedRange<Int>, _ option: String, unit: String = "") throws {
    guard range.contains(value) else {
        throw ValidationError("\(option) must be between \(range.lowerBound) and \(range.upperBound)"
                              + (unit.isEmpty ? "" : " \(unit)") + "; got \(value)")
    }
}

/// The bytes of a file (`-`: standard input), at most `limit` of them; an
/// error names the file and the real cause (``FileInput``).
package func readFile(_ path: String, limit: Int) throws -> Data {
    try FileInput.read(path, limit: limit)
}

/// How errors name an input path: `-` is standard input.
package func inputName(_ path: String) -> String { path == "-" ? "standard input" : path }

/// Writes a file in one step (atomically); `-` is standard output.  A
/// path that names something other than a file or a folder (a device such
/// as /dev/null, a FIFO) is written into, never replaced: the atomic way
/// renames a new file over the path.  An `io` error names the file.
package func writeFile(_ data: Data, to path: String) throws {
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
package func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(value)
    data.append(UInt8(ascii: "\n"))
    FileHandle.standardOutput.write(data)
}
#endif
