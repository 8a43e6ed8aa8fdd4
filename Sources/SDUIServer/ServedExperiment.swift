// ServedExperiment.swift - the registry's side of an experiment: a stored
// definition ready to assign, and a screen drawn as a user's variations say.
//
// A request for a screen may carry the user's attributes (the
// `X-SDUI-Attributes` header, a JSON object).  The registry then assigns the
// user, with the C core's function the app calls too (ExperimentAssigner),
// to each running experiment the screen takes part in, by the rule the app
// uses (Experiment.takesPart(screen:), replaces(anyOf:)):
//
//   1. Experiments that replace this screen, or change store values only,
//      in key order.  A variation that replaces the screen is drawn when
//      every token of its screen (with the variation's token substitutions)
//      has a version the app's X-Primitives can render; the first such
//      experiment decides the screen.
//   2. Experiments that replace a token of the screen now drawn, in key
//      order, that step 1 did not take: drawn when each substitute token has
//      a version the app can render.
//   3. The token substitutions of the variations drawn in step 1 apply to
//      their screen too.
//
// A user assigned to a variation the app cannot render stays assigned, is
// shown control, and the answer says so (`ineligible`): never moved to
// another variation.  The registry keeps no state per user, so its
// assignment is the hash's alone; an app that keeps sticky assignments in
// its store assigns itself (ExperimentScreens) and sends no attributes.
//
// The answer names what it served in `X-SDUI-Experiments`: one entry per
// experiment the user is enrolled in, `KEY=VARIATION;phase=N`, with
// `;ineligible` when control was shown instead.  Keys and variation ids are
// registry ids (checked at import), so they need no quoting.
#if Server
import Foundation
import SDUI
import SDUICore

/// A stored experiment, parsed once and ready to assign.
struct ServedExperiment: Sendable {
    let stored: StoredExperiment
    let assigner: ExperimentAssigner
    var experiment: Experiment { assigner.experiment }
}

/// A screen as a user's variations draw it (see the file's essay).
struct VariedScreen: Sendable {
    /// The screen served: the one asked for, or a variation's.
    var screen: ServedScreen
    /// Token substitutions drawn, from → to.
    var tokens: [String: String]
    /// The experiments the user is enrolled in, in the order assigned.
    var entries: [ServedVariation]

    /// The `X-SDUI-Experiments` value, nil when enrolled in none.
    var headerValue: String? { ServedVariation.headerValue(entries) }
}

extension RegistrySnapshot {
    /// The most experiments a snapshot assigns with: each request runs each
    /// running one at most once, so this bounds a request's work.
    static let maxExperiments = 1_000

    /// Whether any running experiment could change screen `id` for some user
    /// (what `Vary: X-SDUI-Attributes` says).
    func hasExperiments(for screen: ServedScreen) -> Bool {
        let tokens = Set(screen.tokenIDs)
        return runningExperiments.contains { e in
            e.experiment.takesPart(screen: screen.stored.id) || e.experiment.replaces(anyOf: tokens)
        }
    }

    /// Screen `screen` as the variations of a user with `attributes`, on an
    /// app with `map`, draw it (the file's essay).
    func varied(_ screen: ServedScreen, attributes: [String: JSONValue], map: PrimitiveMap) -> VariedScreen {
        let running = runningExperiments
        var out = VariedScreen(screen: screen, tokens: [:], entries: [])
        var taken = Set<String>()
        var screenSubstitutions: [[String: String]] = []
        let id = screen.stored.id
        // Whether the app can render a version of each token.
        func renderable(_ ids: some Sequence<String>) -> Bool {
            ids.allSatisfy { best($0, for: map) != nil }
        }
        for e in running where e.experiment.takesPart(screen: id) {
            taken.insert(e.stored.key)
            let a = e.assigner.assign(attributes)
            guard a.inExperiment else { continue }
            let v = e.experiment.variations[a.variationIndex]
            var eligible = true
            if a.variationIndex != 0, let other = v.screens[id] {
                if let s = screens[other], renderable(s.tokenIDs.map { v.tokens[$0] ?? $0 }) {
                    if out.screen.stored.id == id { out.screen = s }
                } else {
                    eligible = false
                }
            }
            if eligible, a.variationIndex != 0, v.screens[id] != nil, !v.tokens.isEmpty {
                screenSubstitutions.append(v.tokens)
            }
            out.entries.append(ServedVariation(experiment: e.stored.key, variation: v.id, phase: e.experiment.phase, eligible: eligible))
        }
        let drawn = Set(out.screen.tokenIDs)
        for e in running where !taken.contains(e.stored.key) && e.experiment.replaces(anyOf: drawn) {
            let a = e.assigner.assign(attributes)
            guard a.inExperiment else { continue }
            let v = e.experiment.variations[a.variationIndex]
            let brought = v.tokens.filter { drawn.contains($0.key) }
            let eligible = a.variationIndex == 0 || renderable(brought.values)
            if eligible { out.tokens.merge(brought) { first, _ in first } }
            out.entries.append(ServedVariation(experiment: e.stored.key, variation: v.id, phase: e.experiment.phase, eligible: eligible))
        }
        for substitution in screenSubstitutions {
            for (from, to) in substitution where drawn.contains(from) && out.tokens[from] == nil {
                out.tokens[from] = renderable([to]) ? to : nil
            }
        }
        return out
    }

    /// The payload of a varied screen: the stored one, or, with token
    /// substitutions, the stored one with those items' ids replaced (their
    /// bindings kept).
    func payload(of varied: VariedScreen) throws -> (json: Data, etag: String) {
        guard !varied.tokens.isEmpty else { return (varied.screen.stored.payload, varied.screen.etag) }
        var doc = try JSONValue(json: varied.screen.stored.payload, source: "screen \(varied.screen.stored.id)")
        guard case .object(var members) = doc, case .array(var items)? = members["tokens"] else {
            return (varied.screen.stored.payload, varied.screen.etag)
        }
        for i in items.indices {
            guard case .object(var item) = items[i], let from = item["id"]?.stringValue,
                  let to = varied.tokens[from] else { continue }
            item["id"] = .string(to)
            items[i] = .object(item)
        }
        members["tokens"] = .array(items)
        doc = .object(members)
        let json = Data(doc.jsonText.utf8)
        return (json, ETag.of(json: json))
    }
}

/// The user's attributes a request carries for assignment.
enum RequestAttributes {
    /// Most bytes of the header's value.
    static let maxBytes = 4096
    /// Deepest nesting of its JSON (an object of lists, say).
    static let maxDepth = 4

    /// `X-SDUI-Attributes` read: nil when absent; the 400's message when it
    /// is not a JSON object within the bounds.
    static func parse(_ header: String?) -> Result<[String: JSONValue]?, RegistryError> {
        guard let header else { return .success(nil) }
        guard header.utf8.count <= maxBytes else {
            return .failure(RegistryError(.invalid, "X-SDUI-Attributes is \(header.utf8.count) bytes; the limit is \(maxBytes)"))
        }
        do {
            let value = try JSONValue(json: Data(header.utf8), source: "X-SDUI-Attributes", maxDepth: maxDepth)
            guard let object = value.objectValue else {
                return .failure(RegistryError(.invalid, "X-SDUI-Attributes must be a JSON object of the user's attributes "
                                              + "(e.g. {\"id\":\"u-42\",\"platform\":\"ios\"})"))
            }
            return .success(object)
        } catch let e as SDUIError {
            return .failure(RegistryError(.invalid, EchoedInput.clipped(e.description, maxBytes: RegistryServer.maxMessageBytes)))
        } catch {
            return .failure(RegistryError(.invalid, "X-SDUI-Attributes: \(error)"))
        }
    }
}
#endif
