// StringsCommand.swift - `sdui strings check`: the report of a folder's
// string catalogs (what is missing, unused, mismatched) and, with
// --pseudo, the layout of every screen in a pseudo-locale.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICore

package struct StringsCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "strings",
        abstract: "Check string catalogs.",
        discussion: """
        Examples:
          sdui strings check Examples
          sdui strings check Examples --pseudo --json
        """,
        subcommands: [Check.self])

    package init() {}

    package struct Check: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Report missing, unused and mismatched strings of a folder's catalogs.",
            discussion: """
            DIR is a folder in the Examples/ layout: its strings/ holds one catalog per locale \
            (<locale>.json, named by the canonical tag), and its tokens, screens, blocks, payloads \
            and flows refer to keys as "@string.key" or {"$string": "key", …}. Reported, each once, \
            in a fixed order: missing (a key of the default catalog a locale's chain lacks), \
            arguments (a text names other {arguments} than the default's), plural (a plural entry \
            lacks a form its locale's CLDR rules select), orphan (a key only a locale has), unused \
            (a key nothing refers to) and undefined (a key referred to that no catalog has). With \
            --pseudo, every screen is also rendered in a pseudo-locale (en-XA: accented and 40 % \
            longer) and laid out by headless Chromium 320 px wide; text that is clipped, runs off \
            the screen or overlaps other text is reported as clip. Exits 1 when a catalog does not \
            load, or when anything but missing, orphan and unused is found.

            Examples:
              sdui strings check Examples
              sdui strings check Examples --default-locale de --json
              sdui strings check Examples --pseudo
            """)

        @Argument(help: "A folder in the Examples/ layout, with strings/<locale>.json.")
        var dir: String

        @Option(name: .customLong("default-locale"), help: "The locale that ends every fallback chain (default en).")
        var defaultLocale = "en"

        @Flag(help: "Also render every screen in a pseudo-locale in headless Chromium and report text that clips.")
        var pseudo = false

        /// `--json`: `{"default", "locales", "findings": [{kind, locale, key, message[, screen, node]}…]}`.
        @OptionGroup var output: OutputOptions

        package init() {}

        package func run() async throws {
            try await reportingErrors {
                let root = URL(fileURLWithPath: dir)
                let catalog = try StringFolder.catalog(root.appendingPathComponent("strings"), defaultLocale: defaultLocale)
                var used = Set<String>()
                for sub in ["tokens"] + ExampleScreens.screenFolders + ["flows"] {
                    let folder = root.appendingPathComponent(sub)
                    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                        .filter { $0.hasSuffix(".json") }.sorted()
                    for name in names {
                        let data = try FileInput.read(folder.appendingPathComponent(name).path, limit: FileInput.documentLimit)
                        StringReference.keys(in: try JSONValue(json: data, source: "\(sub)/\(name)"), into: &used)
                    }
                }
                var findings: [JSONValue] = []
                var lines: [String] = []
                var failing = 0
                for f in try catalog.check(usedKeys: used.sorted()) {
                    findings.append(["kind": .string(f.kind.rawValue), "locale": f.locale.map { .string($0) } ?? .null,
                                     "key": .string(f.key), "message": .string(f.message)])
                    lines.append("\(f.kind.rawValue): \(f.message)")
                    if ![.missing, .orphan, .unused].contains(f.kind) { failing += 1 }
                }
                var screens = 0
                if pseudo {
                    let check = try TextLayoutCheck()
                    let trees = try await A11yCommand.Lint.resolve(target: dir, tokens: nil, pack: nil,
                                                                   defaultLocale: defaultLocale)
                    screens = trees.count
                    for tree in trees {
                        for f in try await check.findings(in: PseudoLocale.tree(tree), condition: "in the pseudo-locale \(PseudoLocale.tag)") {
                            findings.append(["kind": "clip", "locale": .string(PseudoLocale.tag), "key": .null,
                                             "message": .string(f.message), "screen": .string(f.screen),
                                             "node": .string(f.node)])
                            lines.append("clip: \(f.screen) \(f.node): \(f.message)")
                            failing += 1
                        }
                    }
                }
                if output.json {
                    print(JSONValue.object(["default": .string(catalog.defaultLocale),
                                            "locales": .array(catalog.locales.map { .string($0) }),
                                            "keys": .int(Int64(used.count)),
                                            "findings": .array(findings)]).jsonText)
                } else {
                    for l in lines { say(l) }
                    say("\(catalog.locales.count) locale(s) (default \(catalog.defaultLocale)), \(used.count) key(s) used"
                        + (pseudo ? ", \(screens) screen(s) laid out in \(PseudoLocale.tag)" : "")
                        + ": \(findings.count) finding(s)")
                }
                if failing > 0 { throw ExitCode(1) }
            }
        }
    }
}
#endif
