// ExperimentCommandTests.swift - `sdui experiment hash | run | validate` as a
// user runs them: the specification's hashes, one user's result and a
// list's counts, and definitions refused with their JSON path.
#if Server
import Foundation
import SDUIRegistryKit
import SDUIServer
import SDUITestSupport
import Testing

@Suite struct ExperimentCommandTests {
    let example = Fixtures.repositoryRoot.appendingPathComponent("Examples/experiments/checkout_promo_prefill.json").path

    @Test func hashPrintsTheSpecificationsNumbersAndNullForAnUnknownVersion() async throws {
        for (seed, value, version, want) in [("", "a", 1, "0.22"), ("seed", "a", 2, "0.0505"), ("abc", "def", 99, "null"),
                                             ("90850943850283058242805", "123", 2, "0.7516")] {
            let r = try await sdui(["experiment", "hash", seed, value, "--version", String(version)])
            #expect(r.status == 0 && r.out == want + "\n", "\(seed) \(value) v\(version): \(r.out) \(r.err)")
        }
    }

    @Test func runPrintsTheResultOfOneUser() async throws {
        let r = try await sdui(["experiment", "run", example, "--attrs", "-"], stdin: Data(#"{"id": "user-42", "platform": "ios"}"#.utf8))
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r.err)")
        #expect(Set(o.keys) == ["inExperiment", "variationId", "value", "bucket", "hashUsed"])
        #expect(o["inExperiment"] as? Bool == true && o["hashUsed"] as? Bool == true)
        #expect(o["value"] as? String == "prefilled" && o["variationId"] as? Int == 1 && o["bucket"] as? Double == 0.5727)
        let out = try await sdui(["experiment", "run", example, "--attrs", "-"], stdin: Data(#"{"id": "user-42"}"#.utf8))
        #expect(out.out.contains(#""inExperiment":false"#) && out.out.contains(#""bucket":null"#) && out.out.contains(#""value":"control""#))
    }

    @Test func aListOfUsersIsCountedPerVariation() async throws {
        let dir = Fixtures.temporaryDirectory()
        let users = dir.appendingPathComponent("users.txt"), attrs = dir.appendingPathComponent("attrs.json")
        try Data((0..<20_000).map { "user-\($0)" }.joined(separator: "\n").utf8).write(to: users)
        try Data(#"{"platform": "android"}"#.utf8).write(to: attrs)
        let r = try await sdui(["experiment", "run", example, "--attrs", attrs.path, "--users", users.path, "--summary"])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r.err)")
        let counts = try #require(o["counts"] as? [String: Int])
        #expect(counts.values.reduce(0, +) + (o["notInExperiment"] as? Int ?? -1) == 20_000)
        #expect(abs((counts["control"] ?? 0) - 10_000) < 400 && abs((counts["prefilled"] ?? 0) - 10_000) < 400, "\(counts)")
        // Line by line, the same assignments.
        let lines = try await sdui(["experiment", "run", example, "--attrs", attrs.path, "--users", users.path])
        let shown = lines.out.split(separator: "\n")
        #expect(shown.count == 20_000)
        #expect(shown.filter { $0.contains(#""value":"prefilled""#) }.count == counts["prefilled"])
    }

    @Test func validateNamesEachFaultByItsJSONPath() async throws {
        let ok = try await sdui(["experiment", "validate", example, "--examples",
                                 Fixtures.repositoryRoot.appendingPathComponent("Examples").path])
        #expect(ok.status == 0 && ok.out.contains("valid experiment \"checkout-promo-prefill\""), "\(ok.err)")
        let bad = try await sdui(["experiment", "validate", "-"],
                                 stdin: Data(#"{"key": "k", "variations": [{"id": "a"}, {"id": "b"}], "weights": [0.9, 0.9]}"#.utf8))
        #expect(bad.status == 1 && bad.err.contains("$.weights: the weights sum to 1.8, not 1"), "\(bad.err)")
        let unknown = try await sdui(["experiment", "validate", "-", "--examples",
                                      Fixtures.repositoryRoot.appendingPathComponent("Examples").path, "--json"],
                                     stdin: Data(#"{"key": "k", "variations": [{"id": "a"}, {"id": "b", "tokens": {"checkout_pay_button": "nope"}}]}"#.utf8))
        #expect(unknown.status == 1 && unknown.out.contains(#""valid":false"#)
                && unknown.out.contains(#"$.variations[1].tokens.checkout_pay_button"#), "\(unknown.out) \(unknown.err)")
    }
    /// `sdui experiment report` through the front (handed to sdui-server):
    /// users per variation, the ineligible share, and the sample-ratio test
    /// flagging a skewed 50/50 split and passing a fair one.
    @Test func reportCountsUsersAndFlagsASkewedSplit() async throws {
        for (green, flagged) in [(5_600, true), (5_020, false)] {
            let dir = Fixtures.temporaryDirectory()
            let db = dir.appendingPathComponent("r.db").path
            let store = try await SQLiteRegistryStore(path: db)
            try await store.closing {
                try await store.migrate()
                var events: [StoredEvent] = []
                func add(_ user: String, _ variation: String, _ eligible: Bool) {
                    let id = "e\(events.count)"
                    let json = #"{"id":"\#(id)","name":"experiment_exposure","flowId":"","flowVersion":"","session":"s","timestamp":1,"seq":1,"userId":"\#(user)","properties":{"experiment":"checkout-promo-prefill","variation":"\#(variation)","eligible":\#(eligible)}}"#
                    events.append(StoredEvent(id: id, name: "experiment_exposure", flowID: "", userID: user, timestamp: 1,
                                              json: Data(json.utf8)))
                }
                for i in 0..<5_000 { add("c\(i)", "control", true) }
                for i in 0..<green { add("p\(i)", "prefilled", i % 10 != 0) }   // a tenth ineligible
                for chunk in stride(from: 0, to: events.count, by: 1_000) {
                    _ = try await store.storeEvents(Array(events[chunk..<min(chunk + 1_000, events.count)]))
                }
            }
            let r = try await sdui(["experiment", "report", "checkout-promo-prefill", "--db", db, "--experiment", example, "--json"])
            let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r.err)")
            #expect(o["users"] as? Int == 5_000 + green)
            let variations = try #require(o["variations"] as? [[String: Any]])
            #expect(variations.map { $0["id"] as? String } == ["control", "prefilled"])
            #expect(variations[1]["ineligibleUsers"] as? Int == green / 10, "\(variations)")
            let srm = try #require(o["srm"] as? [String: Any])
            #expect(srm["mismatch"] as? Bool == flagged, "\(srm)")
            let text = try await sdui(["experiment", "report", "checkout-promo-prefill", "--db", db])
            #expect(text.status == 0 && text.out.contains("sample ratio: chi-square"), "\(text.err)")
        }
        let other = try await sdui(["experiment", "report", "other-key", "--db", "/nonexistent/r.db", "--experiment", example])
        #expect(other.status != 0 && other.err.contains("other-key"), "\(other.err)")
    }

    /// Without --experiment, the report tests against the definition the
    /// registry stores (its weights), and says so.
    @Test func reportReadsTheStoredDefinition() async throws {
        let db = Fixtures.temporaryDirectory().appendingPathComponent("r.db").path
        let store = try await SQLiteRegistryStore(path: db)
        try await store.closing {
            try await store.migrate()
            try await store.putExperiments([StoredExperiment(key: "checkout-promo-prefill", json: Data(
                #"{"key":"checkout-promo-prefill","status":"running","weights":[0.25,0.75],"variations":[{"id":"control"},{"id":"prefilled"}]}"#.utf8))])
        }
        let r = try await sdui(["experiment", "report", "checkout-promo-prefill", "--db", db, "--json"])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r.err)")
        #expect(o["weights"] as? String == "stored")
        let variations = try #require(o["variations"] as? [[String: Any]])
        #expect(variations.map { $0["weight"] as? Double } == [0.25, 0.75])
        let given = try await sdui(["experiment", "report", "checkout-promo-prefill", "--db", db, "--experiment", example, "--json"])
        #expect(given.out.contains(#""weights":"definition""#), "\(given.out)")
    }
}
#endif
