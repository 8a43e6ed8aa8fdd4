// TokenCommand.swift - `sdui token validate`.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICore

package struct TokenCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Work with single design tokens.",
        discussion: "Example: sdui token validate Examples/tokens/checkout_pay_button.json",
        subcommands: [Validate.self]
    )

    package init() {}

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check one design-token JSON file against the token schema and limits.",
            discussion: """
            Exit status 1 when the token is invalid.

            Examples:
              sdui token validate Examples/tokens/checkout_pay_button.json
              cat token.json | sdui token validate - --json
            """)

        @Argument(help: "The token file (- for standard input).")
        var path: String

        @Flag(help: "Print one JSON object on stdout.")
        var json = false

        struct Report: Encodable {
            var path: String
            var valid: Bool
            var id: String?
            var version: Int?
            var primitive: String?
            var primitiveVersion: Int?
            var bytes: Int?
            var error: ErrorJSON?
        }

        func run() throws {
            do {
                let token = try DesignToken(json: try readFile(path, limit: PackLimits.default.maxTokenBytes), source: inputName(path))
                if json {
                    try printJSON(Report(path: path, valid: true, id: token.id, version: token.version,
                                         primitive: token.primitive,
                                         primitiveVersion: token.primitiveVersion,
                                         bytes: token.byteCount))
                } else {
                    say("\(inputName(path)): valid token \(token) (\(token.byteCount) bytes)")
                }
            } catch let e as SDUIError {
                try fail(e)
            }
        }

        /// Reports a bad token on stderr (and as JSON when asked) and exits 1.
        private func fail(_ e: SDUIError) throws {
            if json { try printJSON(Report(path: path, valid: false, error: ErrorJSON(e))) }
            printError(e)
            throw ExitCode(1)
        }
    }
}
#endif
