// TokenSourceTests.swift - the one definition of a cache hit, and the hit ratio made from it.
import SDUI
import Testing

@Suite struct TokenSourceTests {
    @Test func packMemoryAndFreshDiskAreHits() {
        #expect(TokenSource.allCases.filter(\.isCacheHit) == [.pack, .memory, .disk])
    }

    @Test func theRatioCountsHitsOverAllLookups() {
        #expect(TokenSource.hitRatio([:]) == 0)
        #expect(TokenSource.hitRatio([:], misses: 2) == 0)
        #expect(TokenSource.hitRatio([.pack: 1, .memory: 1, .network: 2]) == 0.5)
        #expect(TokenSource.hitRatio([.disk: 1, .stale: 1, .revalidated: 1], misses: 1) == 0.25)
        #expect(TokenSource.hitRatio([.pack: 3]) == 1)
    }
}
