// ExperimentReportCommand.swift - `sdui experiment` in the server's tree:
// the client's hash, run and validate, and `report`, which reads the
// exposures the registry stored.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICLI
import SDUICore
import SDUIServer

struct ExperimentServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "experiment",
        abstract: ExperimentCommand.configuration.abstract,
        discussion: ExperimentCommand.configuration.discussion,
        subcommands: [ExperimentCommand.Hash.self, ExperimentCommand.Run.self, ExperimentCommand.Validate.self,
                      Report.self])

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "The roll-out of an experiment: exposures per variation, ineligible users, sample-ratio mismatch.",
            discussion: """
            Reads the experiment_exposure events the registry stored (one grouped query) and \
            prints, per variation, the users assigned (distinct user ids) and those whose app \
            could not render it; the share of ineligible users; and the sample-ratio mismatch test \
            of the users assigned against the weights of --experiment (without it, of the definition the \
            registry stores; equal weights when it has none): \
            Pearson's chi-square and its p-value, flagged below 0.001.

            Examples:
              sdui experiment report checkout-promo-prefill --db registry.db --experiment Examples/experiments/checkout_promo_prefill.json
              sdui experiment report checkout-promo-prefill --postgres postgres://127.0.0.1/sdui --json
            """)

        @Argument(help: "The experiment's key.")
        var key: String

        @OptionGroup var store: StoreOptions

        @Option(help: "The experiment's definition: its variations and weights (default: the variations seen, equal weights).")
        var experiment: String?

        @OptionGroup var output: OutputOptions

        func validate() throws { try store.validateGiven() }

        func run() async throws {
            try await reportingErrors {
                let definition = try experiment.map {
                    try Experiment(json: try readFile($0, limit: FileInput.documentLimit), source: inputName($0))
                }
                if let definition, definition.key != key {
                    throw SDUIError(.argument, "the definition is of experiment \"\(definition.key)\", not \"\(key)\"",
                                    input: experiment)
                }
                // Without --experiment, the definition the registry stores (if any).
                let (rows, row) = try await store.with(readOnly: true) { s in
                    (try await s.experimentExposures(key: key),
                     definition == nil ? try await s.changes(after: 0).experiments.last { $0.key == key } : nil)
                }
                // Only that definition is parsed, not the whole registry.
                let stored = try row.map { try Experiment(json: $0.json, source: "the registry's experiment \(key)") }
                let report = Self.report(key: key, rows: rows, definition: definition ?? stored,
                                         source: definition != nil ? "definition" : stored != nil ? "stored" : "equal")
                if output.json {
                    print(report.jsonText)
                } else {
                    Self.printText(report)
                }
            }
        }

        /// The report as JSON: `experiment`, `variations` (`id`, `weight`,
        /// `users`, `eligibleUsers`, `ineligibleUsers`, `exposures`), `users`,
        /// `ineligibleShare`, `srm` (`chiSquare`, `degreesOfFreedom`,
        /// `pValue`, `mismatch`; null when it cannot be computed), `weights`
        /// (`source`: `definition` for --experiment, `stored` for the
        /// registry's, `equal` without either).  A definition's weights are
        /// those assignment uses (``Experiment/effectiveWeights``).
        static func report(key: String, rows: [ExposureCount], definition: Experiment?,
                           source: String = "definition") -> JSONValue {
            let ids = definition?.variations.map(\.id) ?? Array(Set(rows.map(\.variation))).sorted()
            let weights = definition?.effectiveWeights ?? Array(repeating: 1 / Double(max(ids.count, 1)), count: ids.count)
            var variations: [JSONValue] = []
            var assigned: [Int] = []
            var total = 0, ineligible = 0
            for (i, id) in ids.enumerated() {
                let mine = rows.filter { $0.variation == id }
                let eligible = mine.filter(\.eligible).reduce(0) { $0 + $1.users }
                let not = mine.filter { !$0.eligible }.reduce(0) { $0 + $1.users }
                assigned.append(eligible + not)
                total += eligible + not
                ineligible += not
                variations.append(["id": .string(id), "weight": .double(weights[i]), "users": .int(Int64(eligible + not)),
                                   "eligibleUsers": .int(Int64(eligible)), "ineligibleUsers": .int(Int64(not)),
                                   "exposures": .int(Int64(mine.reduce(0) { $0 + $1.events }))])
            }
            let unknown = rows.filter { !ids.contains($0.variation) }.reduce(0) { $0 + $1.users }
            let srm: JSONValue = SampleRatio(counts: assigned, weights: weights).map {
                ["chiSquare": .double($0.chiSquare), "degreesOfFreedom": .int(Int64($0.degreesOfFreedom)),
                 "pValue": .double($0.pValue), "mismatch": .bool($0.isMismatch)]
            } ?? .null
            return ["experiment": .string(key), "variations": .array(variations), "users": .int(Int64(total)),
                    "ineligibleShare": total > 0 ? .double(Double(ineligible) / Double(total)) : .null,
                    "unknownVariationUsers": .int(Int64(unknown)), "srm": srm,
                    "weights": .string(definition != nil ? source : "equal")]
        }

        /// The report as a table.
        static func printText(_ r: JSONValue) {
            print("experiment \(r["experiment"]?.stringValue ?? "")  (weights: \(r["weights"]?.stringValue ?? ""))")
            print("variation".padding(toLength: 24, withPad: " ", startingAt: 0) + "  weight     users  ineligible  exposures")
            for v in r["variations"]?.arrayValue ?? [] {
                print((v["id"]?.stringValue ?? "").padding(toLength: 24, withPad: " ", startingAt: 0)
                      + String(format: "  %6.3f  %8lld  %10lld  %9lld", v["weight"]?.doubleValue ?? 0, v["users"]?.intValue ?? 0,
                               v["ineligibleUsers"]?.intValue ?? 0, v["exposures"]?.intValue ?? 0))
            }
            let share = r["ineligibleShare"]?.doubleValue.map { String(format: "%.2f %%", $0 * 100) } ?? "-"
            print("users \(r["users"]?.intValue ?? 0), ineligible \(share)")
            if let s = r["srm"], s != .null {
                print(String(format: "sample ratio: chi-square %.3f, %lld degrees of freedom, p = %.4g%@",
                             s["chiSquare"]?.doubleValue ?? 0, s["degreesOfFreedom"]?.intValue ?? 0, s["pValue"]?.doubleValue ?? 1,
                             s["mismatch"] == .bool(true) ? " — MISMATCH (below 0.001)" : ""))
            } else {
                print("sample ratio: not computed (no users, or fewer than two variations)")
            }
        }
    }
}
#endif
