// ExperimentScreensTests.swift - screens drawn as a user's experiment
// variations say: tokens and screens swapped in, store values set,
// exposures committed in the screen_view's transaction, control for an app
// that cannot render the variation, and assignments that stick within a
// phase.
import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUIStore
import SDUITestSupport
import Testing

@Suite struct ExperimentScreensTests {
    typealias Screens = ScreenSessionTests.Screens

    static let tokens: [String: String] = [
        "pay": #"{"id":"pay","version":1,"primitive":"Button","primitiveVersion":1,"props":{"label":"Pay"}}"#,
        "pay_green": ##"{"id":"pay_green","version":1,"primitive":"Button","primitiveVersion":1,"props":{"label":"Pay now","background":"#16A34A"}}"##,
        "pay_fancy": #"{"id":"pay_fancy","version":1,"primitive":"Button","primitiveVersion":2,"props":{"label":"Pay ✨"}}"#,
        "title": #"{"id":"title","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"Checkout"}}"#,
        "title_b": #"{"id":"title_b","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"Checkout (B)"}}"#,
    ]
    static let screens = Screens(tokens: tokens, tokenScreens: ["checkout": ["title", "pay"], "checkout_b": ["title_b", "pay"]])

    /// Looks a token up among `tokens`.
    static let lookup: @Sendable (String) async -> TokenLookup = { id in
        guard let json = tokens[id], let t = try? DesignToken(json: json, source: id) else {
            return .unavailable(SDUIError(.notFound, "no token", input: id))
        }
        return .found(t, .network)
    }

    /// An experiment where everyone enrolled gets variation `b` (weights 0, 1).
    static func experiment(_ b: Experiment.Variation, weights: [Double] = [0, 1], phase: Int = 1) throws -> ExperimentAssigner {
        try ExperimentAssigner(Experiment(key: "pay-cta", variations: [.init(id: "control"), b], weights: weights, phase: phase))
    }

    static func provider(_ experiments: [ExperimentAssigner], primitives: PrimitiveMap = .builtIn, id: String = "u1",
                         assignments: ScenarioStore? = nil, data: ScenarioStore? = nil) -> ExperimentScreens {
        ExperimentScreens(inner: screens, token: lookup, experiments: experiments, attributes: ["id": .string(id)],
                          primitives: primitives, assignments: assignments, data: data)
    }

    /// The texts and labels a tree shows.
    static func texts(_ tree: RenderTree) -> [String] {
        RenderNodeID.all(in: tree).compactMap { $0.node.props["text"]?.stringValue ?? $0.node.props["label"]?.stringValue }
    }

    @Test func aTokenVariationIsDrawnAndItsExposureCommittedWithTheScreenView() async throws {
        let journal = try FlowFixtures.journal()
        let data = DefaultStore(appID: "test").store(.scenarioSession(id: UUID().uuidString))
        let p = Self.provider([try Self.experiment(.init(id: "green", tokens: ["pay": "pay_green"], store: ["cta.colour": "green"]))],
                              data: data)
        let session = ScreenSession(provider: p, store: data, journal: journal, configuration: .init(userID: "u1"))
        let tree = try await session.open("checkout")
        #expect(Self.texts(tree) == ["Checkout", "Pay now"])
        #expect(data.get("cta.colour")?.jsonValue == "green")
        #expect(session.emittedEvents.prefix(2) == ["screen_view", "experiment_exposure"])
        // One transaction: the exposure's sequence follows the screen view's, both queued.
        let queued = try journal.peek(maxEvents: 10, maxBytes: 1 << 20).map { try JSONValue(json: $0.json) }
        let names = queued.compactMap { $0["name"]?.stringValue }
        #expect(names.prefix(2) == ["screen_view", "experiment_exposure"], "\(names)")
        let exposure = try #require(queued.first { $0["name"] == "experiment_exposure" }?["properties"])
        #expect(exposure["experiment"] == "pay-cta" && exposure["variation"] == "green" && exposure["shown"] == "green")
        #expect(exposure["eligible"] == .bool(true) && exposure["phase"] == .int(1))
    }

    @Test func aScreenVariationReplacesTheScreen() async throws {
        let p = Self.provider([try Self.experiment(.init(id: "b", screens: ["checkout": "checkout_b"], tokens: ["pay": "pay_green"]))])
        let provided = try await p.screen("checkout")
        #expect(provided.requested == "checkout" && provided.items.tokenIDs == ["title_b", "pay_green"])
        #expect(provided.exposures.first?["variation"] == "b")
        let tree = ScreenResolver().resolve(provided.items, lookups: provided.lookups)
        #expect(Self.texts(tree) == ["Checkout (B)", "Pay now"])
    }

    @Test func anAppThatCannotRenderItsVariationSeesControlAndIsCountedApart() async throws {
        let old = try PrimitiveMap(parsing: "Column@3,Text@1,Button@1")
        let p = Self.provider([try Self.experiment(.init(id: "fancy", tokens: ["pay": "pay_fancy"]))], primitives: old)
        let provided = try await p.screen("checkout")
        #expect(provided.items.tokenIDs == ["title", "pay"], "shown control")
        let e = try #require(provided.exposures.first)
        #expect(e["variation"] == "fancy" && e["shown"] == "control" && e["eligible"] == .bool(false))
        #expect(e["reason"]?.stringValue?.contains("Button@2") == true, "\(e)")
        // An app that has Button@2 sees it.
        let new = Self.provider([try Self.experiment(.init(id: "fancy", tokens: ["pay": "pay_fancy"]))],
                                primitives: try PrimitiveMap(parsing: "Column@3,Text@1,Button@2"))
        #expect(try await new.screen("checkout").items.tokenIDs == ["title", "pay_fancy"])
    }

    @Test func anAssignmentSticksWithinAPhaseAndNotAcrossPhases() async throws {
        let kept = DefaultStore(appID: "test").store(.scenarioSession(id: UUID().uuidString))
        let green = Experiment.Variation(id: "green", tokens: ["pay": "pay_green"])
        let first = try await Self.provider([try Self.experiment(green)], assignments: kept).screen("checkout")
        #expect(first.exposures.first?["variation"] == "green" && first.exposures.first?["sticky"] == .bool(false))
        // The weights change to all-control: the same phase keeps green.
        let later = try await Self.provider([try Self.experiment(green, weights: [1, 0])], assignments: kept).screen("checkout")
        #expect(later.exposures.first?["variation"] == "green" && later.exposures.first?["sticky"] == .bool(true))
        #expect(later.items.tokenIDs == ["title", "pay_green"])
        // A new phase assigns afresh.
        let phase2 = try await Self.provider([try Self.experiment(green, weights: [1, 0], phase: 2)], assignments: kept).screen("checkout")
        #expect(phase2.exposures.first?["variation"] == "control" && phase2.items.tokenIDs == ["title", "pay"])
    }

    /// Without a kept assignment (the app's data wiped), a user gets the same
    /// variation again: it is a function of the id.
    @Test func aWipedAppGetsTheSameVariationBack() async throws {
        let even = try Self.experiment(.init(id: "green", tokens: ["pay": "pay_green"]), weights: [0.5, 0.5])
        for i in 0..<200 {
            let a = try await Self.provider([even], id: "user-\(i)", assignments: DefaultStore(appID: "a\(i)").store(.appMemory)).screen("checkout")
            let b = try await Self.provider([even], id: "user-\(i)").screen("checkout")
            #expect(a.exposures.first?["variation"] == b.exposures.first?["variation"])
        }
    }

    @Test func aScreenNoExperimentConcernsHasNoExposure() async throws {
        let p = Self.provider([try Self.experiment(.init(id: "green", tokens: ["nothere": "pay_green"]))])
        let provided = try await p.screen("checkout")
        #expect(provided.exposures.isEmpty && provided.items.tokenIDs == ["title", "pay"])
        // Not enrolled (no id): no exposure either.
        let anonymous = ExperimentScreens(inner: Self.screens, token: Self.lookup,
                                          experiments: [try Self.experiment(.init(id: "green", tokens: ["pay": "pay_green"]))],
                                          attributes: [:])
        #expect(try await anonymous.screen("checkout").exposures.isEmpty)
    }
}
