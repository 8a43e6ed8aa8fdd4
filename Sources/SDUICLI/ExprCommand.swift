// ExprCommand.swift - `sdui expr eval|check`: the expression language from the shell.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICore

package struct ExprCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "expr",
        abstract: "Evaluate or check an expression of the expression language (docs/expressions.md).",
        discussion: """
        Example:
          sdui expr eval 'sum(cart.items[*].price) > 20' --data cart.json
        """,
        subcommands: [Eval.self, Check.self]
    )

    package init() {}

    /// The largest data file `--data` reads.
    static let maxDataBytes = 64 << 20

    /// Runs `body`; an expression error prints `error: expr: <error>` on
    /// stderr and exits 1, any other input error as every command does.
    static func reportingExprErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as SDUIError where e.category.rawValue.hasPrefix("expr") || e.input?.hasPrefix("expression") == true {
            FileHandle.standardError.write(Data("error: expr: \(e)\n".utf8))
            throw ExitCode(1)
        }
    }

    struct Eval: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "eval",
            abstract: "Print the value of an expression as JSON.",
            discussion: """
            Roots name the members of the data's top-level object: with --data cart.json \
            holding {"cart":{"total":3}}, `cart.total` is 3.  Integers print without a \
            decimal point, decimals in their shortest round-trip form.  Exit status 1 \
            with `error: expr: ...` on stderr when the expression does not parse or its \
            evaluation fails.  An expression that starts with `-` goes after `--`, or the \
            parser takes it for an option.

            Examples:
              sdui expr eval 'cart.total * 1.2' --data cart.json
              echo '{"a": [1, 2.5]}' | sdui expr eval 'avg(a)' --data -
              sdui expr eval -- '-a[0] + 1' --data cart.json
            """)

        @Argument(help: "The expression (after -- when it starts with -).")
        var expression: String

        @OptionGroup var output: OutputOptions

        @Option(help: "A JSON file whose top-level object holds the data ('-': standard input).")
        var data: String?

        func run() throws {
            let doc = try reportingErrors { () -> JSONDocument in
                guard let data else { return try JSONDocument(.object([:])) }
                let bytes = try readFile(data, limit: ExprCommand.maxDataBytes)
                return try JSONDocument(json: bytes, source: inputName(data))
            }
            let text = try ExprCommand.reportingExprErrors {
                try CompiledExpression(expression).evaluateJSON(doc)
            }
            print(text)
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Parse an expression and list the paths it reads, one per line.",
            discussion: """
            Exit status 1 with `error: expr: ...` on stderr when it does not parse.

            Example: sdui expr check "user.age >= 18 && 'beta' in user.flags" --json
            """)

        @Argument(help: "The expression.")
        var expression: String

        @Flag(help: "Print one JSON object: {\"expression\", \"paths\"}.")
        var json = false

        struct Report: Encodable {
            var expression: String
            var paths: [String]
        }

        func run() throws {
            let expr = try ExprCommand.reportingExprErrors { try CompiledExpression(expression) }
            if json {
                try printJSON(Report(expression: expr.source, paths: expr.paths))
            } else {
                for p in expr.paths { say(p) }
            }
        }
    }
}
#endif
