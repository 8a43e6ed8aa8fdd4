// PackCommand.swift - `sdui pack inspect|build`.
import ArgumentParser
import Foundation
import SDUI

struct PackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Inspect or build Core-Token Packs.",
        subcommands: [Inspect.self, Build.self]
    )

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a pack and print its token count, sizes, gzip members and open time.")

        @Argument(help: "The pack file (gzipped JSON).")
        var path: String

        @Flag(help: "Print one JSON object on stdout.")
        var json = false

        @Flag(help: "Also parse and schema-check every token (open stays lazy without it).")
        var checkTokens = false

        struct Report: Encodable {
            var path: String
            var tokens: Int
            var compressedBytes: Int
            var rawBytes: Int
            var members: Int
            var openMilliseconds: Double
            var checkedTokens: Int?
        }

        func run() throws {
            try reportingErrors {
                let url = URL(fileURLWithPath: path)
                let (pack, ms) = try measure { try CorePack(contentsOf: url) }
                var checked: Int?
                if checkTokens {
                    for id in pack.ids { _ = try pack.token(id) }
                    checked = pack.count
                }
                let info = pack.info
                let report = Report(path: path, tokens: info.tokens,
                                    compressedBytes: info.compressedBytes, rawBytes: info.rawBytes,
                                    members: info.members,
                                    openMilliseconds: (ms * 1000).rounded() / 1000,
                                    checkedTokens: checked)
                if json { try printJSON(report); return }
                print("pack:             \(path)")
                print("tokens:           \(info.tokens)")
                print("compressed bytes: \(info.compressedBytes)")
                print("raw JSON bytes:   \(info.rawBytes)")
                print("gzip members:     \(info.members)")
                print("open time:        \(String(format: "%.3f", ms)) ms")
                if let checked { print("tokens checked:   \(checked) (all valid)") }
            }
        }
    }

    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a pack from a folder of design-token JSON files.")

        @Argument(help: "Folder of token files (*.json, one token each).")
        var dir: String

        @Option(help: "Where to write the pack.")
        var out: String

        @Option(help: "gzip level, 0 (store) to 12 (smallest).")
        var level = 12

        @Flag(help: "Print one JSON object on stdout.")
        var json = false

        struct Report: Encodable {
            var out: String
            var tokens: Int
            var compressedBytes: Int
            var rawBytes: Int
        }

        func run() throws {
            try reportingErrors {
                var builder = CorePackBuilder()
                try builder.addDirectory(URL(fileURLWithPath: dir))
                if builder.ids.isEmpty {
                    throw SDUIError(.io, "no *.json token files found", input: dir)
                }
                let doc = builder.document()
                let packed = try CorePackBuilder.gzip(doc, level: level)
                do {
                    try packed.write(to: URL(fileURLWithPath: out), options: .atomic)
                } catch {
                    throw SDUIError(.io, "cannot write pack: \(error.localizedDescription)", input: out)
                }
                let report = Report(out: out, tokens: builder.ids.count,
                                    compressedBytes: packed.count, rawBytes: doc.count)
                if json { try printJSON(report); return }
                print("wrote \(out): \(report.tokens) tokens, \(report.compressedBytes) bytes gzipped (\(report.rawBytes) bytes of JSON)")
            }
        }
    }
}
