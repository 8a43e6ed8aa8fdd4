// ExperimentCommand.swift - `sdui experiment hash | run | validate`: the
// assignment a user gets, for one user or a list, and a definition checked
// against a folder of screens and tokens.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICore
import SDUIFlow

package struct ExperimentCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "experiment",
        abstract: "Assign users to experiments and check experiment definitions.",
        discussion: """
        Assignment follows GrowthBook's SDK specification (hash versions 1 and 2, weights, \
        coverage, namespaces); the audience is an expression of the project's language.

        Examples:
          sdui experiment hash checkout-cta user-42 --version 2
          echo '{"id": "user-42"}' | sdui experiment run Examples/experiments/checkout_pay_cta.json --attrs -
          sdui experiment validate Examples/experiments/checkout_pay_cta.json --examples Examples
        """,
        subcommands: [Hash.self, Run.self, Validate.self])

    /// The second words of this command's lines that run in `sdui-server`:
    /// `report` reads the registry's store, and the help there lists it.
    package static let serverSubcommands = ["report", "--help", "-h", "help"]

    package init() {}

    package struct Hash: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "hash",
            abstract: "Print the hash of VALUE with SEED: a number in [0, 1), or null for an unknown version.",
            discussion: """
            The output is JSON either way (a number or null).

            Examples:
              sdui experiment hash checkout-promo-prefill user-42 --version 2
              sdui experiment hash "" a --version 1      # 0.22
            """)

        @Argument(help: "The seed (an experiment's seed or key).")
        var seed: String

        @Argument(help: "The hash attribute's value.")
        var value: String

        @Option(help: "The hash version: 1 or 2 (another prints null).")
        var version = 2

        @OptionGroup var output: OutputOptions

        package init() {}

        package func run() throws {
            let h = ExperimentAssigner.hash(seed: seed, value: value, version: version)
            print(h.map { JSONValue.text($0) } ?? "null")
        }
    }

    package struct Run: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Assign a user (or every user of a list) to an experiment.",
            discussion: """
            Prints {"inExperiment", "variationId", "value", "bucket", "hashUsed"}: whether the user \
            is enrolled, the variation's index (0 when not), its id, the user's hash (null when \
            the hash was not used) and whether it was. With --users FILE (one hash-attribute value \
            per line, added to --attrs), one such line per user, or with --summary \
            {"counts": {VARIATION: N, …}, "notInExperiment": N}.

            Examples:
              sdui experiment run exp.json --attrs attrs.json
              sdui experiment run exp.json --users ids.txt --summary
            """)

        @Argument(help: "The experiment definition (schemas/experiment.json).")
        var experiment: String

        @Option(help: "The user's attributes: a JSON object (- for standard input).")
        var attrs: String?

        @Option(help: "A file of hash-attribute values, one per line (- for standard input).")
        var users: String?

        @Flag(help: "With --users: print the counts per variation only.")
        var summary = false

        @OptionGroup var output: OutputOptions

        package init() {}

        package func validate() throws {
            if attrs == nil && users == nil { throw ValidationError("give --attrs FILE or --users FILE") }
            if attrs == "-" && users == "-" { throw ValidationError("only one of --attrs and --users can be standard input") }
            if summary && users == nil { throw ValidationError("--summary goes with --users") }
        }

        /// The most users a list may hold.
        static let maxUsers = 10_000_000

        package func run() throws {
            try reportingErrors {
                let definition = try Experiment(json: try readFile(experiment, limit: FileInput.documentLimit),
                                                source: inputName(experiment))
                let assigner = try ExperimentAssigner(definition)
                var base: [String: JSONValue] = [:]
                if let attrs {
                    guard case .object(let o) = try JSONValue(json: try readFile(attrs, limit: FileInput.documentLimit),
                                                              source: inputName(attrs)) else {
                        throw SDUIError(.schema, "the attributes are a JSON object", input: inputName(attrs))
                    }
                    base = o
                }
                guard let users else {
                    print(Self.result(assigner.assign(base)).jsonText)
                    return
                }
                let data = try readFile(users, limit: 1 << 30)
                var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                if lines.last?.isEmpty == true { lines.removeLast() }
                guard lines.count <= Self.maxUsers else {
                    throw SDUIError(.limit, "more than \(Self.maxUsers) users", input: inputName(users))
                }
                let passes = assigner.audiencePasses(base)
                let fallback = definition.fallbackAttribute.flatMap { ExperimentAssigner.hashText(base[$0]) }
                var counts = Dictionary(uniqueKeysWithValues: definition.variations.map { ($0.id, 0) })
                var out = 0
                var text = ""
                for line in lines {
                    let value = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
                    let a = assigner.assign(hashValue: value.isEmpty ? nil : value, fallbackValue: fallback,
                                            audiencePasses: passes)
                    if summary {
                        if a.inExperiment { counts[a.variationID, default: 0] += 1 } else { out += 1 }
                    } else {
                        text += Self.result(a).jsonText + "\n"
                        if text.utf8.count > 1 << 16 {
                            FileHandle.standardOutput.write(Data(text.utf8))
                            text = ""
                        }
                    }
                }
                if summary {
                    let result: JSONValue = ["counts": .object(counts.mapValues { .int(Int64($0)) }), "notInExperiment": .int(Int64(out))]
                    print(result.jsonText)
                } else {
                    FileHandle.standardOutput.write(Data(text.utf8))
                }
            }
        }

        /// The specification's experiment result.
        static func result(_ a: ExperimentAssignment) -> JSONValue {
            ["inExperiment": .bool(a.inExperiment), "variationId": .int(Int64(a.variationIndex)),
             "value": .string(a.variationID), "bucket": a.bucket.map(JSONValue.double) ?? .null,
             "hashUsed": .bool(a.hashUsed)]
        }
    }

    package struct Validate: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check an experiment definition, and with --examples its screens and tokens.",
            discussion: """
            Exit status 1 when it is not sound; each fault is named by its JSON path. With \
            --examples DIR, every screen and token a variation names must be in DIR (screens/, \
            blocks/, payloads/, tokens/); with --supported (repeatable), an X-Primitives value of \
            each app version supported, every variation must be renderable by at least one.

            Examples:
              sdui experiment validate exp.json
              sdui experiment validate exp.json --examples Examples --supported Column@3,Row@2,Text@4,AsyncImage@2,Spacer@1,Button@1
            """)

        @Argument(help: "The experiment definition (- for standard input).")
        var file: String

        @Option(help: "A folder in the Examples/ layout the variations' screens and tokens must be in.")
        var examples: String?

        @Option(help: "The X-Primitives of a supported app version (repeatable).")
        var supported: [String] = []

        @OptionGroup var output: OutputOptions

        package init() {}

        package func run() throws {
            try reportingErrors {
                let definition = try Experiment(json: try readFile(file, limit: FileInput.documentLimit), source: inputName(file))
                var issues: [ExperimentIssue] = []
                if examples != nil || !supported.isEmpty {
                    var catalog = try examples.map { try ExampleScreens.catalog(URL(fileURLWithPath: $0)) } ?? ExperimentCatalog()
                    catalog.supportedApps = try supported.map { try PrimitiveMap(parsing: $0) }
                    if examples == nil {
                        throw SDUIError(.argument, "--supported needs --examples: the tokens to check", input: "--supported")
                    }
                    issues = definition.issues(in: catalog)
                }
                if output.json {
                    let report: JSONValue = ["experiment": .string(definition.key), "valid": .bool(issues.isEmpty),
                                             "variations": .int(Int64(definition.variations.count)),
                                             "issues": .array(issues.map { ["path": .string($0.path), "message": .string($0.message)] })]
                    print(report.jsonText)
                } else if issues.isEmpty {
                    say("\(inputName(file)): valid experiment \"\(definition.key)\" (\(definition.variations.count) variations, \(definition.status.rawValue), phase \(definition.phase))")
                }
                for issue in issues {
                    FileHandle.standardError.write(Data("error: schema: \(inputName(file)): \(issue)\n".utf8))
                }
                if !issues.isEmpty { throw ExitCode(1) }
            }
        }
    }
}

extension ExampleScreens {
    /// The screens (their token ids) and tokens of a folder in the
    /// Examples/ layout, for checking experiments; a file that does not
    /// read is an error naming it.
    static func catalog(_ dir: URL) throws -> ExperimentCatalog {
        var catalog = ExperimentCatalog()
        func names(_ folder: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(folder).path)) ?? [])
                .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        }
        for folder in screenFolders {
            for name in names(folder) where catalog.screens[String(name.dropLast(5))] == nil {
                let data = try FileInput.read(dir.appendingPathComponent(folder).appendingPathComponent(name).path,
                                              limit: FileInput.documentLimit)
                catalog.screens[String(name.dropLast(5))] = try ScreenFormat.items(data, source: "\(folder)/\(name)").tokenIDs
            }
        }
        for name in names("tokens") {
            let data = try FileInput.read(dir.appendingPathComponent("tokens").appendingPathComponent(name).path,
                                          limit: FileInput.documentLimit)
            let token = try DesignToken(json: data, source: "tokens/\(name)")
            catalog.tokens[token.id] = token
        }
        return catalog
    }
}
#endif
