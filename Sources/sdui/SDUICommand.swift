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
        version: SDUIKitVersion.string,
        subcommands: [PackCommand.self, TokenCommand.self, RenderCommand.self, ThemeCommand.self,
                      RegistryCommand.self, ServeCommand.self, DemoCommand.self, BenchCommand.self,
                      ExprCommand.self, StoreCommand.self, FlowCommand.self]
    )
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
        FileHandle.standardError.write(Data("error: \(e)\n".utf8))
    default:
        return error
    }
    return ExitCode(1)
}

/// Writes `error: <category>: …` as one line on stderr.
func printError(_ error: SDUIError) {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
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

/// Writes a file in one step (atomically); `-` is standard output.  An
/// `io` error names the file.
func writeFile(_ data: Data, to path: String) throws {
    if path == "-" {
        FileHandle.standardOutput.write(data)
        return
    }
    do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
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
