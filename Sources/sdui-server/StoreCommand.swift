// StoreCommand.swift - `sdui store inspect|set`: a file-scope store from the shell.
#if Server
import ArgumentParser
import Foundation
import Logging
import SDUI
import SDUICLI
import SDUIStore

struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Inspect or write a file-scope store (SDUIStore's .file(url:) scope).",
        discussion: """
        Example:
          sdui store set cart.json cart.total=12.5 && sdui store inspect cart.json
        """,
        subcommands: [Inspect.self, Write.self]
    )

    /// The file store at `path`, opened as an app would open it.  Its
    /// logger prints nothing: the commands report load errors and
    /// recoveries themselves, once each.
    static func open(_ path: String) -> ScenarioStore {
        let silent = Logger(label: "sdui.cli.store") { _ in SwiftLogNoOpLogHandler() }
        return DefaultStore(appID: "sdui.cli", logger: silent).store(.file(url: URL(fileURLWithPath: path)))
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Print a file store's values, one key path per line.",
            discussion: """
            Each leaf prints as `key.path = JSON` (colours and URLs as `color "#…"` and \
            `url "…"`), in key order.  A file that was torn or damaged is read from \
            FILE.prev, as the store reads it, and the reason is printed on stderr.  \
            Exit status 1 when neither FILE nor FILE.prev can be read.

            Examples:
              sdui store inspect cart.json
              sdui store inspect cart.json --json
            """)

        @Argument(help: "The store's snapshot file.")
        var file: String

        @Flag(help: "Print one JSON object: {\"file\", \"recovered\", \"warning\", \"values\"}.")
        var json = false

        struct Report: Encodable {
            var file: String
            var recovered: Bool
            var warning: String?
            var values: [String: StoreValue]
        }

        func run() throws {
            guard FileManager.default.fileExists(atPath: file)
                    || FileManager.default.fileExists(atPath: file + ".prev") else {
                try reportingErrors { throw SDUIError(.notFound, "no such file", input: file) }
                return
            }
            let store = StoreCommand.open(file)
            let values = store.snapshot()
            let problem = store.lastPersistenceError
            if let problem, !problem.message.hasPrefix("recovered the last good state") {
                // Neither the file nor its .prev could be read: say why.
                try reportingErrors { throw problem }
            }
            if json {
                try printJSON(Report(file: file, recovered: problem != nil, warning: problem?.message, values: values))
                return
            }
            if let problem { warn("warning: \(problem)") }
            for (path, value) in StoreValue.leaves(of: values) {
                switch value {
                case .color(let c): say("\(path) = color \(JSONValue.literal(c))")
                case .url(let u): say("\(path) = url \(JSONValue.literal(u))")
                default: say("\(path) = \(Self.text(value.jsonValue))")
                }
            }
        }

        /// A value as compact JSON.
        static func text(_ v: JSONValue) -> String {
            switch v {
            case .null: return "null"
            case .bool(let b): return b ? "true" : "false"
            case .int(let n): return String(n)
            case .double(let d): return JSONValue.text(d)
            case .string(let s): return JSONValue.literal(s)
            case .array(let a): return "[" + a.map(text).joined(separator: ",") + "]"
            case .object(let o):
                return "{" + o.keys.sorted().map { JSONValue.literal($0) + ":" + text(o[$0]!) }.joined(separator: ",") + "}"
            }
        }
    }

    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Write values into a file store, each write saved before the next.",
            discussion: """
            Each ASSIGNMENT is key.path=value; the value is JSON when it parses, else text. \
            With --repeat N the assignments are applied N times, `{n}` in a key path or a \
            value standing for the round (1…N), and after each round, once it is saved, \
            the round number is printed on its own line: a load for crash tests, which may \
            kill the process at any moment and then check that every printed round is in \
            the file.

            Several processes may write one file at once: each save takes the file's lock \
            (FILE.lock), reads what the others saved and writes it with this round's \
            values, so no round of any of them is lost.  A file that exists but cannot be \
            read (permissions, an I/O error) is an error (exit 1) and is left as it is.

            Examples:
              sdui store set cart.json cart.total=12.5 'user.name="Ada"'
              sdui store set load.json 'rounds.r{n}={n}' --repeat 1000
            """)

        @Argument(help: "The store's snapshot file.")
        var file: String

        @Argument(help: "key.path=value assignments.")
        var assignments: [String]

        @Option(help: "Apply the assignments this many times (1 to 10,000,000).")
        var `repeat`: Int = 1

        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard (1...10_000_000).contains(`repeat`) else {
                throw ValidationError("--repeat must be from 1 to 10000000, not \(`repeat`)")
            }
            guard !assignments.isEmpty else { throw ValidationError("give at least one key.path=value") }
        }

        func run() throws {
            let parsed = try reportingErrors { try assignments.map(Self.parse) }
            let store = StoreCommand.open(file)
            if let e = store.loadError, e.category == .io {
                // The file is there but cannot be read: nothing is written over it.
                try reportingErrors { throw e }
            }
            if let e = store.lastPersistenceError {   // recovered, or unreadable and about to be kept aside
                warn("warning: \(e)")
            }
            let out = FileHandle.standardOutput
            for round in 1...`repeat` {
                var refused: ValidationResult = .ok
                store.transaction { s in
                    for (path, text) in parsed {
                        let n = String(round)
                        let filled = text.replacingOccurrences(of: "{n}", with: n)
                        let value = (try? JSONValue(json: Data(filled.utf8))).map(StoreValue.init) ?? .string(filled)
                        if case .failed = refused { continue }
                        refused = s.set(path.replacingOccurrences(of: "{n}", with: n), value)
                    }
                }
                if case .failed(let reason) = refused {
                    try reportingErrors { throw SDUIError(.argument, reason, input: file) }
                }
                if let e = store.lastPersistenceError {
                    try reportingErrors { throw e }
                }
                if `repeat` > 1 { out.write(Data("\(round)\n".utf8)) }
            }
        }

        /// `key.path=value` as (path, value text); the path is checked with
        /// `{n}` standing for a round.
        static func parse(_ pair: String) throws -> (String, String) {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                throw SDUIError(.argument, "expected key.path=value", input: pair)
            }
            let path = String(pair[..<eq])
            _ = try KeyPath(path.replacingOccurrences(of: "{n}", with: "1"))
            return (path, String(pair[pair.index(after: eq)...]))
        }
    }
}
#endif
