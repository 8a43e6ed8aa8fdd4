// ExperimentScreens.swift - screens as an experiment's variation draws them:
// a ScreenProvider around another that assigns the user to the experiments
// a screen takes part in, swaps the variation's screens and tokens in, sets
// its store values, and records the exposures the session commits with the
// screen's `screen_view`.
//
// Assignment.  Each experiment is assigned by ExperimentAssigner (the C
// core's function the registry calls too) from the user's attributes.  An
// assignment is sticky: the variation and phase are kept in a store (the
// host's persistent scope), and a later run of the same phase keeps that
// variation even when the weights changed; a new phase assigns afresh.
// Without a kept assignment the user's variation is a function of their id
// alone, so a wiped app gets the same one back.
//
// Capability.  A variation is drawn only if the app can render it: every
// token it brings (its substitute tokens, the tokens of its substitute
// screens) must be within the app's primitive map.  If not, the user stays
// assigned, is shown control, and the exposure says `eligible: false` with
// the reason: counted apart by the report, never moved to another
// variation.
//
// Which experiments a screen takes part in: those with a variation that
// replaces this screen (`screens`), or one of its tokens (`tokens`), and
// those that change store values only, which take part in every screen
// (Experiment.takesPart(screen:) and replaces(anyOf:), the registry's rule
// too).
import Foundation
import SDUI
import SDUICore
import SDUIStore

/// A ``ScreenProvider`` that draws each screen as the user's experiment
/// variations say (see the file's essay).
public struct ExperimentScreens: ScreenProvider {
    /// Where screens come from.
    public let inner: any ScreenProvider
    /// Looks up a token a variation brings in.
    public let token: @Sendable (String) async -> TokenLookup
    /// The experiments.
    public let experiments: [ExperimentAssigner]
    /// The user's attributes (`id`, `platform`, …).
    public let attributes: [String: JSONValue]
    /// The app's `X-Primitives`.
    public let primitives: PrimitiveMap
    /// Where assignments are kept (sticky); nil keeps none.
    public let assignments: ScenarioStore?
    /// Where a variation's store values go; nil sets none.
    public let data: ScenarioStore?

    /// The store key assignments are kept under: an object of experiment
    /// key to `{"variation", "phase"}`.
    public static let assignmentsKey = "sdui_experiments"

    /// A provider drawing `inner`'s screens with `experiments` applied for a
    /// user with `attributes` on an app with `primitives`.
    public init(inner: any ScreenProvider, token: @escaping @Sendable (String) async -> TokenLookup,
                experiments: [ExperimentAssigner], attributes: [String: JSONValue], primitives: PrimitiveMap = .builtIn,
                assignments: ScenarioStore? = nil, data: ScenarioStore? = nil) {
        self.inner = inner
        self.token = token
        self.experiments = experiments
        self.attributes = attributes
        self.primitives = primitives
        self.assignments = assignments
        self.data = data
    }

    /// The assignment of `assigner`'s experiment, sticky within a phase;
    /// `sticky` says whether a kept assignment was used.
    public func assignment(_ assigner: ExperimentAssigner) -> (ExperimentAssignment, sticky: Bool) {
        let e = assigner.experiment
        var fresh = assigner.assign(attributes)
        // A kept assignment counts only for a running experiment and a user
        // with a hash value, as a fresh one would.
        if e.status == .running, fresh.reason != .noHashValue, fresh.reason != .inactive,
           let kept = assignments?.get(Self.assignmentsKey)?.jsonValue[e.key],
           kept["phase"]?.intValue == Int64(e.phase), let id = kept["variation"]?.stringValue,
           let index = e.variations.firstIndex(where: { $0.id == id }) {
            fresh.inExperiment = true
            fresh.variationIndex = index
            fresh.variationID = id
            fresh.hashUsed = false
            fresh.bucket = nil
            fresh.reason = .enrolled
            return (fresh, true)
        }
        if fresh.inExperiment, let store = assignments {
            var all = store.get(Self.assignmentsKey)?.jsonValue.objectValue ?? [:]
            all[e.key] = ["variation": .string(fresh.variationID), "phase": .int(Int64(e.phase))]
            _ = store.set(Self.assignmentsKey, StoreValue(.object(all)))
        }
        return (fresh, false)
    }

    /// Screen `id` as the user's variations draw it.
    public func screen(_ id: String) async throws -> ProvidedScreen {
        var exposures: [[String: JSONValue]] = []
        var chosen: [(ExperimentAssigner, ExperimentAssignment)] = []
        /// Assigns and records one experiment the screen takes part in; the
        /// variation to draw when it can be drawn.
        func take(_ a: ExperimentAssigner, ineligible: (Experiment.Variation) async -> String?) async -> Experiment.Variation? {
            var (assigned, sticky) = assignment(a)
            guard assigned.inExperiment else { return nil }
            let variation = a.experiment.variations[assigned.variationIndex]
            if assigned.variationIndex != 0 { assigned.ineligibility = await ineligible(variation) }
            var event: [String: JSONValue] = [
                "experiment": .string(a.experiment.key), "variation": .string(assigned.variationID),
                "shown": .string(a.experiment.variations[assigned.shownVariationIndex].id),
                "phase": .int(Int64(a.experiment.phase)), "eligible": .bool(assigned.isEligible), "sticky": .bool(sticky),
            ]
            if let why = assigned.ineligibility { event["reason"] = .string(why) }
            exposures.append(event)
            chosen.append((a, assigned))
            return assigned.isEligible ? variation : nil
        }

        // Experiments that replace this screen.
        var target = id
        var substitute: ProvidedScreen?
        for a in experiments where a.experiment.takesPart(screen: id) {
            let v = await take(a) { variation in
                guard let other = variation.screens[id] else { return nil }
                do {
                    let screen = try await inner.screen(other)
                    if let why = await self.ineligibility(of: screen.items.tokenIDs.map { variation.tokens[$0] ?? $0 },
                                                          lookups: screen.lookups, variation) {
                        return why
                    }
                    substitute = screen
                    return nil
                } catch {
                    return "variation \"\(variation.id)\": screen \"\(other)\" cannot be had: \(error)"
                }
            }
            if let other = v?.screens[id], target == id { target = other }
        }
        var provided: ProvidedScreen
        if target != id, let screen = substitute {
            provided = screen
        } else {
            provided = try await inner.screen(target)
        }
        provided.requested = id

        // Experiments that replace one of its tokens.
        let tokenIDs = Set(provided.items.tokenIDs)
        for a in experiments where a.experiment.replaces(anyOf: tokenIDs) && !chosen.contains(where: { $0.0 === a }) {
            // The tokens the variation brings, looked up once: to judge it, then to draw it.
            var brought: [String: TokenLookup] = [:]
            let v = await take(a) { variation in
                for (from, to) in variation.tokens where tokenIDs.contains(from) { brought[to] = await token(to) }
                return await self.ineligibility(of: brought.keys.sorted(), lookups: brought, variation)
            }
            guard let v else { continue }
            provided.items.items = Self.replacing(provided.items.items, v.tokens)
            provided.lookups.merge(brought) { _, new in new }
        }
        // Token substitutions of a screen-replacing variation apply to its screen too.
        for (a, assigned) in chosen where assigned.isEligible && assigned.variationIndex != 0 {
            let v = a.experiment.variations[assigned.variationIndex]
            guard v.screens[id] != nil, !v.tokens.isEmpty else { continue }
            provided.items.items = Self.replacing(provided.items.items, v.tokens)
            for to in Set(v.tokens.values) where provided.lookups[to] == nil { provided.lookups[to] = await token(to) }
        }
        // The variations' store values.
        if let data {
            for (a, assigned) in chosen where assigned.isEligible {
                for (key, value) in a.experiment.variations[assigned.variationIndex].store.sorted(by: { $0.key < $1.key }) {
                    _ = data.set(key, StoreValue(value))
                }
            }
        }
        provided.exposures += exposures
        return provided
    }

    /// `items` with each token item that `tokens` names replaced (its
    /// bindings kept).
    static func replacing(_ items: [ScreenItems.Item], _ tokens: [String: String]) -> [ScreenItems.Item] {
        items.map { item in
            guard case .token(let t, let bind) = item, let other = tokens[t] else { return item }
            return .token(id: other, bind: bind)
        }
    }

    /// Why the app cannot draw `tokens` (looked up in `lookups`), or nil.
    func ineligibility(of tokens: [String], lookups: [String: TokenLookup], _ variation: Experiment.Variation) async -> String? {
        for id in tokens {
            let lookup: TokenLookup
            if let l = lookups[id] { lookup = l } else { lookup = await token(id) }
            guard case .found(let t, _) = lookup else {
                return "variation \"\(variation.id)\": token \"\(id)\" cannot be had"
            }
            if let why = ExperimentCatalog.ineligibility(of: variation, token: t, for: primitives) { return why }
        }
        return nil
    }
}
