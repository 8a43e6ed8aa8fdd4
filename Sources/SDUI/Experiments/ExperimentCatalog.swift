// ExperimentCatalog.swift - what an experiment's variations are checked
// against: the screens and tokens a registry (or a folder) has, and the
// primitive maps of the app versions it supports.  Validation at import,
// and eligibility: whether one app can render a variation at all.
import Foundation
import SDUICore

/// The screens, tokens and supported apps an experiment is checked against.
public struct ExperimentCatalog: Sendable {
    /// Each screen's token ids, by screen id.
    public var screens: [String: [String]]
    /// The tokens, by id.
    public var tokens: [String: DesignToken]
    /// The `X-Primitives` maps of the app versions supported (empty: not checked).
    public var supportedApps: [PrimitiveMap]

    /// A catalog from its parts.
    public init(screens: [String: [String]] = [:], tokens: [String: DesignToken] = [:], supportedApps: [PrimitiveMap] = []) {
        self.screens = screens
        self.tokens = tokens
        self.supportedApps = supportedApps
    }

    /// The tokens a variation draws beyond control: its substitute tokens,
    /// and the tokens of its substitute screens (with its token
    /// substitutions applied).
    public func tokens(of variation: Experiment.Variation) -> [String] {
        var ids = Set(variation.tokens.values)
        for screen in variation.screens.values {
            for t in screens[screen] ?? [] { ids.insert(variation.tokens[t] ?? t) }
        }
        return ids.sorted()
    }

    /// Why an app with `primitives` cannot render `variation` (the first
    /// token of it with a node the app lacks), or nil when it can.  A token
    /// not in the catalog is not judged here (validation names it).
    public func ineligibility(of variation: Experiment.Variation, for primitives: PrimitiveMap) -> String? {
        for id in tokens(of: variation) {
            guard let token = self.tokens[id], let reason = Self.ineligibility(of: variation, token: token, for: primitives)
            else { continue }
            return reason
        }
        return nil
    }

    /// Why an app with `primitives` cannot draw `token` of `variation` (its
    /// first node the app lacks), or nil when it can: the one wording of
    /// the reason an exposure and a validation give.
    public static func ineligibility(of variation: Experiment.Variation, token: DesignToken,
                                     for primitives: PrimitiveMap) -> String? {
        guard let node = primitives.unsupportedNodes(in: token).first else { return nil }
        return "variation \"\(variation.id)\": token \"\(token.id)\" needs \(node.primitive)@\(node.requiredVersion) at \(node.path); "
            + "the app has " + (node.clientVersion.map { "\(node.primitive)@\($0)" } ?? "no \(node.primitive)")
    }
}

/// A fault of an experiment against a catalog, at a JSON path.
public struct ExperimentIssue: Sendable, Hashable, CustomStringConvertible {
    /// The JSON path of the value at fault (`$.variations[1].screens.checkout`).
    public var path: String
    /// What is wrong.
    public var message: String

    /// `$.variations[1].tokens.x: …`
    public var description: String { "\(path): \(message)" }
}

extension Experiment {
    /// The faults of this experiment against `catalog`: screens and tokens
    /// its variations name that the catalog lacks, and a variation that no
    /// supported app version can render.  Empty when sound.
    public func issues(in catalog: ExperimentCatalog) -> [ExperimentIssue] {
        var out: [ExperimentIssue] = []
        for (i, v) in variations.enumerated() {
            let at = "$.variations[\(i)]"
            for (from, to) in v.screens.sorted(by: { $0.key < $1.key }) {
                if catalog.screens[from] == nil {
                    out.append(ExperimentIssue(path: "\(at).screens.\(from)", message: "no screen \"\(from)\" to replace"))
                }
                if catalog.screens[to] == nil {
                    out.append(ExperimentIssue(path: "\(at).screens.\(from)", message: "no screen \"\(to)\""))
                }
            }
            for (from, to) in v.tokens.sorted(by: { $0.key < $1.key }) {
                if catalog.tokens[from] == nil {
                    out.append(ExperimentIssue(path: "\(at).tokens.\(from)", message: "no token \"\(from)\" to replace"))
                }
                if catalog.tokens[to] == nil {
                    out.append(ExperimentIssue(path: "\(at).tokens.\(from)", message: "no token \"\(to)\""))
                }
            }
            guard !catalog.supportedApps.isEmpty else { continue }
            let reasons = catalog.supportedApps.map { catalog.ineligibility(of: v, for: $0) }
            if reasons.allSatisfy({ $0 != nil }), let first = reasons.first ?? nil {
                out.append(ExperimentIssue(path: at, message: "no supported app version can render it: \(first)"))
            }
        }
        return out
    }
}
