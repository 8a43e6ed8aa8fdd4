// CommandConventionsTests.swift - what every `sdui` command promises: an
// example in its help, --json for its errors, `-` for standard input, and
// messages that show input's control characters instead of acting on them.
#if Server
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct CommandConventionsTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")

    /// The subcommand names a help text lists under SUBCOMMANDS.
    static func subcommands(inHelp help: String) -> [String] {
        var names: [String] = []
        var inList = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("SUBCOMMANDS:") { inList = true; continue }
            guard inList else { continue }
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.contains("See '") { break }
            // "  name   abstract", continuation lines are indented further.
            guard line.hasPrefix("  "), !line.hasPrefix("    "),
                  let name = line.split(separator: " ").first else { continue }
            names.append(String(name))
        }
        return names
    }

    /// Every command of the tree, as argument paths (`["pack", "build"]`),
    /// with its help text; found by walking `--help`, so a new command is
    /// covered without listing it here.
    static func commandTree() async throws -> [(path: [String], help: String)] {
        var found: [(path: [String], help: String)] = []
        var queue: [[String]] = [[]]
        while let path = queue.first {
            queue.removeFirst()
            let r = try await sdui(path + ["--help"])
            #expect(r.status == 0, "sdui \(path.joined(separator: " ")) --help: \(r.err)")
            found.append((path, r.out))
            queue += subcommands(inHelp: r.out).filter { $0 != "help" }.map { path + [$0] }
        }
        return found
    }

    /// Each command's help shows at least one example, and each command
    /// that runs something (a leaf) takes --json.
    @Test func everyCommandHasAnExampleAndTakesJSON() async throws {
        let tree = try await Self.commandTree()
        #expect(tree.count > 25, "the walk found only \(tree.map { $0.path.joined(separator: " ") })")
        for (path, help) in tree {
            let name = (["sdui"] + path).joined(separator: " ")
            #expect(help.contains("Example"), "\(name) --help shows no example")
            if Self.subcommands(inHelp: help).isEmpty {
                #expect(help.contains("--json"), "\(name) takes no --json")
            }
        }
    }

    /// With --json, a usage error is one JSON line on stderr, exit 64; so is
    /// a bad input, with its category, input and place, exit 1.
    @Test func errorsAreJSONWithJSON() async throws {
        let usage = try await sdui(["theme", "lint", "x.json", "--json", "--no-such-option"])
        #expect(usage.status == 64)
        let u = try JSONValue(json: Data(usage.err.utf8))
        #expect(u["error"]?["category"] == "usage", "\(usage.err)")
        #expect(u["error"]?["message"]?.stringValue?.contains("--no-such-option") == true)
        #expect(usage.err.split(separator: "\n").count == 1)

        let dir = Fixtures.temporaryDirectory()
        let bad = dir.appendingPathComponent("bad.json")
        try Data("{\"id\": \"t\",\n  oops}".utf8).write(to: bad)
        for args in [["token", "validate", bad.path], ["theme", "lint", bad.path],
                     ["expr", "eval", "a", "--data", bad.path], ["pack", "inspect", bad.path]] {
            let r = try await sdui(args + ["--json"])
            #expect(r.status == 1, "\(args): \(r)")
            let e = try JSONValue(json: Data(r.err.utf8))
            #expect(e["error"]?["input"]?.stringValue == bad.path, "\(args): \(r.err)")
            #expect(e["error"]?["category"]?.stringValue != nil, "\(args): \(r.err)")
            #expect(r.err.split(separator: "\n").count == 1, "\(args): \(r.err)")
        }
    }

    /// `-` is standard input wherever a command reads one file.
    @Test func dashReadsStandardInput() async throws {
        let theme = try Data(contentsOf: examples.appendingPathComponent("themes/theme_nordlicht.json"))
        let lint = try await sdui(["theme", "lint", "-", "--json"], stdin: theme)
        #expect(lint.status == 0, "\(lint)")
        #expect(try JSONValue(json: Data(lint.out.utf8))["theme"] == "theme_nordlicht")

        let token = try Data(contentsOf: examples.appendingPathComponent("tokens/checkout_pay_button.json"))
        let validate = try await sdui(["token", "validate", "-"], stdin: token)
        #expect(validate.status == 0 && validate.out.hasPrefix("standard input: valid token"), "\(validate)")

        let dir = Fixtures.temporaryDirectory()
        let built = try await sdui(["pack", "build", examples.appendingPathComponent("tokens").path, "--out",
                                    dir.appendingPathComponent("p.gz").path, "--usage", "-"],
                                   stdin: Data("checkout_pay_button,10\n".utf8))
        #expect(built.status == 0, "\(built)")
        let pack = try Data(contentsOf: dir.appendingPathComponent("p.gz"))
        let db = dir.appendingPathComponent("r.db").path
        let imported = try await sdui(["registry", "import", "-", "--db", db, "--json"], stdin: pack)
        #expect(imported.status == 0, "\(imported)")
        let report = try JSONValue(json: Data(imported.out.utf8))
        #expect((report["added"]?.intValue ?? 0) > 0, "\(imported.out)")
    }

    /// An input's control characters (ESC sequences, line feeds) are shown
    /// as escapes in messages, never written raw: one error, one line.
    @Test func messagesEscapeControlCharacters() async throws {
        let dir = Fixtures.temporaryDirectory()
        let evil = dir.appendingPathComponent("t\u{1B}]0;owned\u{7}\nerror: forged.json")
        try Data("{\"id\": \"x\u{1B}[31m\"}".utf8).write(to: evil)
        let r = try await sdui(["token", "validate", evil.path])
        #expect(r.status == 1)
        #expect(!r.err.contains("\u{1B}") && !r.err.contains("\u{7}"), "\(r.err.debugDescription)")
        #expect(r.err.split(separator: "\n").count == 1, "\(r.err.debugDescription)")
        #expect(r.err.contains("\\u{1B}]0;owned\\u{07}\\nerror: forged.json"), "\(r.err.debugDescription)")

        // A theme whose id carries a line feed and ESC: the report line stays one line.
        let text = try String(contentsOf: examples.appendingPathComponent("themes/theme_nordlicht.json"), encoding: .utf8)
        let theme = text.replacingOccurrences(of: "\"id\": \"theme_nordlicht\"", with: #""id": "nord\nlicht\u001b[2J""#)
        #expect(theme != text)
        let lint = try await sdui(["theme", "lint", "-"], stdin: Data(theme.utf8))
        #expect(!lint.out.contains("\u{1B}"), "\(lint.out.debugDescription)")
        #expect(lint.out.contains("nord\\nlicht\\u{1B}[2J: "), "\(lint.out.debugDescription)")
    }

    /// An expression that starts with `-` is taken for an option: the usage
    /// error says to put it after `--`, and after `--` it works.
    @Test func aLeadingDashGetsAHint() async throws {
        let r = try await sdui(["expr", "eval", "-1 + 2"])
        #expect(r.status == 64)
        #expect(r.err.contains("hint: '-1 + 2' starts with '-'") && r.err.contains("after '--'"), "\(r.err)")
        let ok = try await sdui(["expr", "eval", "--", "-1 + 2"])
        #expect(ok.status == 0 && ok.out == "1\n", "\(ok)")
    }

    /// A store file that cannot be loaded is reported once, not by the
    /// store's logger and again by the command.
    @Test func storeInspectReportsALoadErrorOnce() async throws {
        let dir = Fixtures.temporaryDirectory()
        let plain = dir.appendingPathComponent("plain.json")
        try Data("{\"a\": 1}".utf8).write(to: plain)
        let r = try await sdui(["store", "inspect", plain.path])
        #expect(r.status == 1)
        #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        #expect(r.err.hasPrefix("error: corrupt: \(plain.path): "), "\(r.err)")
    }
}
#endif
