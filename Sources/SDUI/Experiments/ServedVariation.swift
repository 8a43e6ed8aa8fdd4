// ServedVariation.swift - one experiment a registry drew a screen with, as
// the `X-SDUI-Experiments` answer header names it: written by the registry,
// read by the app, one format in one place.
import Foundation
import SDUICore

/// One experiment a screen answer was drawn with: the user's variation, the
/// phase, and whether the app could render it (when not, the registry served
/// control instead).
///
/// The header holds one entry per experiment, comma-separated:
/// `KEY=VARIATION;phase=N`, plus `;ineligible` when control was served.  Keys
/// and variation ids are registry ids (A–Z a–z 0–9 _ - . :), so no entry
/// needs quoting.
public struct ServedVariation: Sendable, Hashable {
    /// The experiment's key.
    public var experiment: String
    /// The variation assigned.
    public var variation: String
    /// The experiment's phase.
    public var phase: Int
    /// Whether the app could render the variation (false: control was served).
    public var eligible: Bool

    /// An entry from its parts.
    public init(experiment: String, variation: String, phase: Int, eligible: Bool) {
        self.experiment = experiment
        self.variation = variation
        self.phase = phase
        self.eligible = eligible
    }

    /// The header's name.
    public static let headerName = "X-SDUI-Experiments"

    /// The most entries read from one header: more is not a registry's answer.
    public static let maxEntries = 1_000

    /// This entry as the header writes it.
    public var headerItem: String {
        "\(experiment)=\(variation);phase=\(phase)" + (eligible ? "" : ";ineligible")
    }

    /// The header's value for `entries`; nil when there are none.
    public static func headerValue(_ entries: [ServedVariation]) -> String? {
        entries.isEmpty ? nil : entries.map(\.headerItem).joined(separator: ", ")
    }

    /// The entries of a header value.
    ///
    /// - Throws: `SDUIError` `.http` naming the entry at fault (by its
    ///   index) when one is not `KEY=VARIATION;phase=N[;ineligible]`, or
    ///   there are more than ``maxEntries``.
    public static func parse(header value: String) throws -> [ServedVariation] {
        let items = value.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= maxEntries else {
            throw SDUIError(.http, "\(headerName) has \(items.count) entries; at most \(maxEntries) are read", input: headerName)
        }
        return try items.enumerated().map { i, raw in
            func bad(_ why: String) -> SDUIError {
                SDUIError(.http, "\(headerName) entry \(i) (\(raw.trimmingCharacters(in: .whitespaces).prefix(80))): \(why)",
                          input: headerName)
            }
            let parts = raw.split(separator: ";", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let pair = parts[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard pair.count == 2, !pair[0].isEmpty, !pair[1].isEmpty else { throw bad("not KEY=VARIATION") }
            var phase: Int?, eligible = true
            for p in parts.dropFirst() {
                if p == "ineligible" {
                    eligible = false
                } else if p.hasPrefix("phase="), let n = Int(p.dropFirst(6)), n >= 1 {
                    phase = n
                } else {
                    throw bad("unknown parameter \"\(p.prefix(40))\"")
                }
            }
            guard let phase else { throw bad("no phase=N") }
            return ServedVariation(experiment: pair[0], variation: pair[1], phase: phase, eligible: eligible)
        }
    }

    /// The `experiment_exposure` properties of this entry, as the app
    /// records an assignment it made itself (`ExperimentScreens`), with
    /// `source: "registry"`.
    public var exposureProperties: [String: JSONValue] {
        ["experiment": .string(experiment), "variation": .string(variation), "phase": .int(Int64(phase)),
         "eligible": .bool(eligible), "sticky": .bool(false), "source": .string("registry")]
    }
}
