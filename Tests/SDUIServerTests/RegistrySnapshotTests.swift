// RegistrySnapshotTests.swift - the registry in memory: changes applied, rows that do not parse left out.
#if Server
import Foundation
import Logging
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistrySnapshotTests {
    @Test func changesAreAppliedOnTopWithVersionsHighestFirst() throws {
        let logger = Logger(label: "test")
        let first = RegistrySnapshot().applying(RegistryChanges(tokens: [stored("a", version: 1), stored("a", version: 3)], screens: []),
                                               generation: 2, signer: nil, logger: logger)
        let second = first.applying(RegistryChanges(tokens: [stored("a", version: 2), stored("b")], screens: [screen("s", ["a", "b", "a"])]),
                                    generation: 5, signer: nil, logger: logger)
        #expect(first.generation == 2 && first.tokens["b"] == nil)
        #expect(second.generation == 5)
        #expect(second.tokens["a"]?.map(\.stored.version) == [3, 2, 1])
        #expect(second.tokens["b"]?.first?.etag == ETag.of(json: stored("b").json))
        let s = try #require(second.screens["s"])
        #expect(s.tokenIDs == ["a", "b"])   // each id once, in order
        #expect(s.etag == ETag.of(json: screen("s", ["a", "b", "a"]).payload))
        let text = try PrimitiveMap(parsing: "Text@1")
        #expect(second.best("a", for: text)?.stored.version == 3)
        #expect(second.best("a", for: try PrimitiveMap(parsing: "Column@3")) == nil)
    }

    @Test func rowsThatDoNotParseAreLoggedAndLeftOut() {
        let log = CapturedLog()
        let elsewhere = StoredToken(id: "x", version: 1, json: Data(Fixtures.token("y").utf8), primitiveVersion: 1)
        let broken = StoredToken(id: "z", version: 1, json: Data("{".utf8), primitiveVersion: 1)
        let badScreen = StoredScreen(id: "s", payload: Data(#"{"id":"s"}"#.utf8))
        let snapshot = RegistrySnapshot().applying(RegistryChanges(tokens: [elsewhere, broken, stored("ok")], screens: [badScreen]),
                                                  generation: 4, signer: nil, logger: log.logger)
        #expect(Array(snapshot.tokens.keys) == ["ok"] && snapshot.screens.isEmpty)
        let lines = log.lines.withLockedValue { $0 }
        #expect(lines.filter { $0.hasPrefix("skipping a stored token that does not parse") }.count == 2, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("skipping a stored screen that does not parse") })
        #expect(lines.contains { $0.contains("holds y@1") })
    }

    /// With a signer, the served element is the quoted JWS of the stored JSON.
    @Test func signedTokensAreServedAsCompactJWS() throws {
        let signer = try TokenSigner(hs256Secret: Data(repeating: 6, count: 32))
        let served = try RegistrySnapshot.serve(stored("a"), signer: signer)
        let element = String(decoding: served.element, as: UTF8.self)
        #expect(element.hasPrefix("\"") && element.hasSuffix("\""))
        let payload = try TokenVerifier(key: signer.verificationKey).verify(compact: String(element.dropFirst().dropLast()))
        #expect(payload == stored("a").json && served.etag == ETag.of(json: payload))
        #expect(try RegistrySnapshot.serve(stored("a"), signer: nil).element == Array(stored("a").json))
    }
}
#endif
