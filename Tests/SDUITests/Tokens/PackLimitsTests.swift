// PackLimitsTests.swift - the default limits and how they reach the C core.
import CSDUI
@testable import SDUI
import Testing

@Suite struct PackLimitsTests {
    @Test func defaultsAreTheDocumentedOnes() {
        let d = PackLimits.default
        #expect(d == PackLimits())
        #expect(d.maxCompressedBytes == 16 << 20 && d.maxInflatedBytes == 64 << 20)
        #expect(d.maxTokenBytes == 32_768 && d.maxDepth == 128 && d.maxTokens == 100_000)
        #expect(d.parallelScanBytes == 1 << 20)
    }

    /// Negative limits reach the C core as 0, never as huge unsigned values.
    @Test func negativeValuesAreClampedForTheCore() {
        let c = PackLimits(maxCompressedBytes: -1, maxInflatedBytes: 5, maxTokenBytes: -7, maxDepth: -3,
                           maxTokens: 9, parallelScanBytes: Int.max).c
        #expect(c.max_compressed_bytes == 0 && c.max_inflated_bytes == 5 && c.max_token_bytes == 0)
        #expect(c.max_depth == 0 && c.max_tokens == 9 && c.parallel_scan_bytes == Int.max)
        #expect(PackLimits(maxDepth: Int.max).c.max_depth == UInt32.max)
    }
}
