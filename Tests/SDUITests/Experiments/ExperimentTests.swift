// ExperimentTests.swift - reading a definition (every fault named by its
// JSON path) and checking it against a catalog of screens, tokens and
// supported apps.
import Foundation
import SDUICore
import Testing
@testable import SDUI

@Suite struct ExperimentTests {
    static let base = #"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}]}"#

    @Test func aMinimalDefinitionTakesTheDefaults() throws {
        let e = try Experiment(json: Data(Self.base.utf8))
        #expect(e.hashVersion == 2 && e.hashAttribute == "id" && e.coverage == 1 && e.status == .draft && e.phase == 1)
        #expect(e.weights == nil && e.namespace == nil && e.audience == nil)
    }

    @Test(arguments: [
        (#"[]"#, "$"),
        (#"{"key": "k", "variations": [{"id": "a"}]}"#, "$.variations"),
        (#"{"key": "", "variations": [{"id": "a"}, {"id": "b"}]}"#, "$.key"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "a"}]}"#, "$.variations[1].id"),
        (#"{"key": "k", "variations": [{"id": "a"}, 7]}"#, "$.variations[1]"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b", "colour": 1}]}"#, "$.variations[1]"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "weights": [0.5, 0.6]}"#, "$.weights"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "weights": [0.5]}"#, "$.weights"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "weights": [1.5, -0.5]}"#, "$.weights[1]"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "coverage": 2}"#, "$.coverage"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "namespace": ["n", 0.5, 0.2]}"#, "$.namespace"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "hashVersion": 3}"#, "$.hashVersion"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "audience": "platform =="}"#, "$.audience"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "status": "paused"}"#, "$.status"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "phase": 0}"#, "$.phase"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b", "store": {"a..b": 1}}]}"#, "$.variations[1].store.a..b"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b", "screens": {"x": 1}}]}"#, "$.variations[1].screens.x"),
        (#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "owner": "me"}"#, "$"),
    ])
    func faultsAreNamedByTheirJSONPath(_ text: String, _ path: String) {
        let e = #expect(throws: SDUIError.self) { try Experiment(json: Data(text.utf8), source: "exp.json") }
        #expect(e?.category == .schema && e?.message.hasPrefix(path + ": ") == true, "\(String(describing: e?.message))")
        #expect(e?.input == "exp.json")
    }

    @Test func variationsAreCheckedAgainstTheCatalog() throws {
        let text = #"{"id": "%@", "version": 1, "primitive": "Column", "primitiveVersion": %@, "props": {}}"#
        func token(_ id: String, _ v: Int) throws -> DesignToken {
            try DesignToken(json: String(format: text, id, String(v)))
        }
        let catalog = ExperimentCatalog(screens: ["checkout": ["pay"], "checkout_b": ["pay", "extra"]],
                                        tokens: ["pay": try token("pay", 1), "pay_new": try token("pay_new", 9),
                                                 "extra": try token("extra", 1)],
                                        supportedApps: [try PrimitiveMap(parsing: "Column@3")])
        let e = try Experiment(json: Data(#"""
            {"key": "k", "variations": [{"id": "a"},
              {"id": "b", "screens": {"checkout": "checkout_c", "cart": "checkout_b"}, "tokens": {"pay": "pay_gone"}},
              {"id": "c", "tokens": {"pay": "pay_new"}}]}
            """#.utf8))
        let issues = e.issues(in: catalog).map(\.description)
        #expect(issues.contains("$.variations[1].screens.checkout: no screen \"checkout_c\""), "\(issues)")
        #expect(issues.contains("$.variations[1].screens.cart: no screen \"cart\" to replace"), "\(issues)")
        #expect(issues.contains("$.variations[1].tokens.pay: no token \"pay_gone\""), "\(issues)")
        #expect(issues.contains { $0.hasPrefix("$.variations[2]: no supported app version can render it") && $0.contains("Column@9") },
                "\(issues)")
        #expect(issues.count == 4, "\(issues)")
        var sound = catalog
        sound.supportedApps.append(try PrimitiveMap(parsing: "Column@9"))
        #expect(e.issues(in: sound).count == 3)
    }
}
