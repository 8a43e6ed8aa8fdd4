// ThemeCommand.swift - `sdui theme lint`.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICore

package struct ThemeCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "theme",
        abstract: "Work with themes.",
        discussion: "Example: sdui theme lint Examples/themes/theme_nordlicht.json",
        subcommands: [Lint.self]
    )

    package init() {}

    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check a theme: WCAG AA contrast, the 4 pt spacing grid, animation durations.",
            discussion: """
            Exit status: 0 when there are no errors (warnings allowed), 1 otherwise.

            Examples:
              sdui theme lint Examples/themes/theme_nordlicht.json
              cat brand.tokens.json | sdui theme lint - --json
            """)

        @Argument(help: "The theme file (schemas/theme.json, the flat block-theme form, or W3C Design Tokens; - for standard input).")
        var path: String

        @Flag(help: "Print one JSON object on stdout.")
        var json = false

        struct Report: Encodable {
            var theme: String
            var pairsChecked: Int
            var errors: Int
            var warnings: Int
            var findings: [ThemeLintFinding]
        }

        func run() throws {
            let theme = try reportingErrors {
                // `-`: the theme on standard input (a Design Tokens theme is then named "stdin").
                try Theme(document: try readFile(path, limit: FileInput.documentLimit),
                          fileName: path == "-" ? "stdin" : URL(fileURLWithPath: path).lastPathComponent,
                          source: inputName(path))
            }
            let findings = ThemeLint.check(theme)
            let errors = findings.filter { $0.severity == .error }.count
            let pairs = ThemeLint.checkedPairs(theme).count
            if json {
                try printJSON(Report(theme: theme.id, pairsChecked: pairs, errors: errors,
                                     warnings: findings.count - errors, findings: findings))
            } else {
                for f in findings { print("\(inputName(path)): \(f)".escapedForDisplay) }
                print(("\(theme.id): \(errors) error(s), \(findings.count - errors) warning(s); "
                       + "\(pairs) contrast pair(s) checked in light and dark, "
                       + "\(theme.spacing.count) spacing value(s), \(theme.animations.count) animation(s)").escapedForDisplay)
            }
            if errors > 0 { throw ExitCode(1) }
        }
    }
}
#endif
