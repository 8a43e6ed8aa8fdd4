// ExperimentExposureTests.swift - an experiment's stored exposures grouped by
// variation and eligibility, alike in SQLite and PostgreSQL: distinct users,
// other experiments and broken events left out, the key bound safely.
#if Server
import Foundation
import SDUIRegistryKit
@testable import SDUIServer
import Testing

@Suite(.serialized) struct ExperimentExposureTests {
    /// An exposure of `user` to `variation` of `key`.
    static func exposure(_ id: String, _ user: String, _ key: String, _ variation: String, eligible: Bool? = nil) -> StoredEvent {
        let e = eligible.map { #","eligible":\#($0)"# } ?? ""
        let json = #"{"id":"\#(id)","name":"experiment_exposure","flowId":"","flowVersion":"","session":"s","timestamp":1,"seq":1,"userId":"\#(user)","properties":{"experiment":"\#(key)","variation":"\#(variation)"\#(e)}}"#
        return StoredEvent(id: id, name: "experiment_exposure", flowID: "", userID: user, timestamp: 1, json: Data(json.utf8))
    }

    @Test(arguments: StoreKind.allCases)
    func exposuresAreGroupedByVariationAndEligibility(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            var events = [
                Self.exposure("a1", "u1", "cta", "green", eligible: true),
                Self.exposure("a2", "u1", "cta", "green", eligible: true),   // the same user again
                Self.exposure("a3", "u2", "cta", "green"),                    // eligible unless said
                Self.exposure("a4", "u3", "cta", "green", eligible: false),
                Self.exposure("a5", "u4", "cta", "control", eligible: true),
                Self.exposure("a6", "u5", "other", "green", eligible: true),  // another experiment
                Self.exposure("a7", "u6", "cta' OR '1'='1", "green"),         // a key that tries to break out
            ]
            // No variation: left out.
            let bad = #"{"id":"b1","name":"experiment_exposure","flowId":"","flowVersion":"","session":"s","timestamp":1,"seq":1,"userId":"u9","properties":{"experiment":"cta","variation":7}}"#
            events.append(StoredEvent(id: "b1", name: "experiment_exposure", flowID: "", userID: "u9", timestamp: 1, json: Data(bad.utf8)))
            _ = try await store.storeEvents(events)
            let rows = try await store.experimentExposures(key: "cta")
            #expect(rows == [
                ExposureCount(variation: "control", eligible: true, users: 1, events: 1),
                ExposureCount(variation: "green", eligible: false, users: 1, events: 1),
                ExposureCount(variation: "green", eligible: true, users: 2, events: 3),
            ], "\(rows)")
            #expect(try await store.experimentExposures(key: "cta' OR '1'='1").map(\.users) == [1])
            #expect(try await store.experimentExposures(key: "none").isEmpty)
        }
    }
}
#endif
