// ExperimentAssignerTests.swift - the Swift side of assignment: the
// specification's published cases through ExperimentAssigner, attributes
// read as the specification reads them, the audience, and users whose app
// cannot render the variation they were assigned.
import Foundation
import SDUICore
import SDUITestSupport
import Testing
@testable import SDUI

@Suite struct ExperimentAssignerTests {
    /// Tests/ExperimentVectors/spec-cases.json.
    static let cases: JSONValue = {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Tests/ExperimentVectors/spec-cases.json")
        return try! JSONValue(json: try! Data(contentsOf: url))
    }()

    @Test func theSpecificationsHashes() throws {
        for c in Self.cases["hash"]?.arrayValue ?? [] {
            let got = ExperimentAssigner.hash(seed: c[0]?.stringValue ?? "", value: c[1]?.stringValue ?? "",
                                              version: Int(c[2]?.intValue ?? 0))
            if c[3] == .null {
                #expect(got == nil, "\(c)")
            } else {
                #expect(got.map { abs($0 - (c[3]?.doubleValue ?? -1)) < 1e-12 } == true, "\(c): \(String(describing: got))")
            }
        }
    }

    @Test func theSpecificationsRunsWithoutFiltersOrRanges() throws {
        var ran = 0
        for c in Self.cases["run"]?.arrayValue ?? [] {
            guard let x = c[2]?.objectValue, x["filters"] == nil, x["ranges"] == nil else { continue }
            let variations = x["variations"]?.arrayValue ?? []
            let experiment = Experiment(
                key: x["key"]?.stringValue ?? "",
                variations: variations.indices.map { Experiment.Variation(id: String($0)) },
                weights: x["weights"]?.arrayValue?.compactMap(\.doubleValue),
                coverage: x["coverage"]?.doubleValue ?? 1,
                namespace: x["namespace"]?.arrayValue.map {
                    Experiment.Namespace(id: $0[0].stringValue ?? "", start: $0[1].doubleValue ?? 0, end: $0[2].doubleValue ?? 0)
                },
                hashAttribute: x["hashAttribute"]?.stringValue ?? "id",
                hashVersion: Int(x["hashVersion"]?.intValue ?? 1),   // the specification's default
                seed: x["seed"]?.stringValue,
                status: x["active"] == .bool(false) ? .stopped : .running)
            let a = try ExperimentAssigner(experiment).assign(c[1]?["attributes"]?.objectValue ?? [:])
            let name = c[0]?.stringValue ?? ""
            #expect(a.inExperiment == (c[4] == .bool(true)), "\(name): \(a.reason)")
            #expect(a.hashUsed == (c[5] == .bool(true)), "\(name)")
            #expect(variations.indices.contains(a.variationIndex) && variations[a.variationIndex] == c[3], "\(name): \(a.variationIndex)")
            ran += 1
        }
        #expect(ran >= 40, "only \(ran) run cases")
    }

    @Test func attributesAreReadAsTheSpecificationReadsThem() {
        #expect(ExperimentAssigner.hashText("u1") == "u1")
        #expect(ExperimentAssigner.hashText(.int(123)) == "123")
        #expect(ExperimentAssigner.hashText(.double(1.5)) == "1.5")
        #expect(ExperimentAssigner.hashText(.bool(true)) == "true")
        for missing: JSONValue? in [nil, "", .int(0), .double(0), .bool(false), .null, .array(["a"]), .object([:])] {
            #expect(ExperimentAssigner.hashText(missing) == nil, "\(String(describing: missing))")
        }
    }

    static let example = try! Experiment(json: try! Data(contentsOf: Fixtures.repositoryRoot
        .appendingPathComponent("Examples/experiments/checkout_promo_prefill.json")), source: "example")

    @Test func theAudienceAndTheFallbackAttribute() throws {
        let assigner = try ExperimentAssigner(Self.example)
        #expect(assigner.assign(["id": "u1", "platform": "ios"]).inExperiment)
        #expect(assigner.assign(["id": "u1", "platform": "web"]).reason == .audience)
        #expect(assigner.assign(["id": "u1"]).reason == .audience)
        let byDevice = assigner.assign(["deviceId": "d-9", "platform": "android"])
        #expect(byDevice.inExperiment && byDevice.hashAttribute == "deviceId" && byDevice.hashValue == "d-9")
        #expect(assigner.assign(["platform": "ios"]).reason == .noHashValue)
        var stopped = Self.example
        stopped.status = .stopped
        #expect(try ExperimentAssigner(stopped).assign(["id": "u1", "platform": "ios"]).reason == .inactive)
    }

    /// The same user keeps the variation: it is a function of the id, not
    /// of anything stored (a wiped app gets the same answer).
    @Test func theSameUserGetsTheSameVariationEveryTime() throws {
        let a = try ExperimentAssigner(Self.example), b = try ExperimentAssigner(Self.example)
        for i in 0..<1000 {
            let attrs: [String: JSONValue] = ["id": .string("user-\(i)"), "platform": "ios"]
            #expect(a.assign(attrs) == b.assign(attrs))
        }
    }

    @Test func anAppThatCannotRenderItsVariationIsShownControlAndCountedApart() throws {
        let token = try DesignToken(json: #"{"id": "pay_b", "version": 1, "primitive": "Column", "primitiveVersion": 3, "props": {"children": [{"primitive": "Button", "primitiveVersion": 2, "props": {}}]}}"#)
        let catalog = ExperimentCatalog(screens: ["checkout": ["pay"]], tokens: ["pay_b": token,
            "pay": try DesignToken(json: #"{"id": "pay", "version": 1, "primitive": "Text", "primitiveVersion": 1, "props": {}}"#)])
        let experiment = Experiment(key: "pay", variations: [.init(id: "control"), .init(id: "b", tokens: ["pay": "pay_b"])],
                                    weights: [0, 1])
        let assigner = try ExperimentAssigner(experiment)
        let old = try PrimitiveMap(parsing: "Column@3,Button@1")
        let a = assigner.assign(["id": "u1"], app: old, catalog: catalog)
        #expect(a.inExperiment && a.variationIndex == 1 && a.shownVariationIndex == 0 && !a.isEligible)
        #expect(a.ineligibility?.contains("Button@2") == true, "\(String(describing: a.ineligibility))")
        let new = assigner.assign(["id": "u1"], app: try PrimitiveMap(parsing: "Column@3,Button@2"), catalog: catalog)
        #expect(new.isEligible && new.shownVariationIndex == 1)
    }
}
