// RegistryContentsTests.swift - the whole registry read at once, as `sdui registry list` and the pack builder see it.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryContentsTests: RegistryServerFixtures {
    @Test func everythingIsReadWithVersionsHighestFirst() async throws {
        try await withStore(.sqlite) { store in
            try await Self.seed(store)
            let contents = try await RegistryContents.load(store)
            #expect(contents.ids == ["card", "future", "plain"])
            #expect(contents.versions(of: "card").map(\.version) == [2, 1])
            #expect(contents.versions(of: "nope").isEmpty)
            let modern = try PrimitiveMap(parsing: Self.modern), old = try PrimitiveMap(parsing: Self.old)
            #expect(contents.best("card", for: modern)?.version == 2)
            #expect(contents.best("card", for: old)?.version == 1)
            #expect(contents.best("future", for: modern) == nil)
            let candidates = contents.packCandidates(for: old)
            #expect(candidates.map(\.id) == ["card", "plain"] && candidates.map(\.version) == [1, 1])
            #expect(candidates[0].json == contents.versions(of: "card")[1].json)
            #expect(contents.screens.keys.sorted() == ["home", "lab"])
            #expect(contents.screens["lab"]?.fallbackScreenID == "home")
            #expect(contents.generation == 6)
        }
    }
}
#endif
