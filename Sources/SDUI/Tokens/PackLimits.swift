// PackLimits.swift - resource limits for opening packs and parsing tokens.
package import CSDUI
import SDUICore

/// Limits applied while opening a pack or parsing a token.  The defaults are
/// safe for untrusted input: a gzip bomb stops at `maxInflatedBytes`.
public struct PackLimits: Sendable, Equatable {
    /// Largest gzip input accepted.  Default 16 MiB.
    public var maxCompressedBytes: Int
    /// Largest inflated JSON accepted.  Default 64 MiB.
    public var maxInflatedBytes: Int
    /// Largest JSON text of one token.  Default 32,768 bytes (see schemas/design-token.json).
    public var maxTokenBytes: Int
    /// Deepest JSON nesting accepted.  Default 128.
    public var maxDepth: Int
    /// Most tokens in one pack.  Default 100,000.
    public var maxTokens: Int
    /// Not a limit but a threshold: packs with at least this many bytes of
    /// JSON and one token per line (as `sdui pack build` writes them) are
    /// scanned on two threads.  Default 1 MiB; `Int.max` keeps one thread.
    /// The outcome is the same either way.
    public var parallelScanBytes: Int

    /// The default limits: 16 MiB compressed, 64 MiB inflated, 32,768 bytes per
    /// token, depth 128, 100,000 tokens.
    public static let `default` = PackLimits()

    /// Limits with each value given or left at its default (see the properties).
    public init(maxCompressedBytes: Int = 16 << 20, maxInflatedBytes: Int = 64 << 20,
                maxTokenBytes: Int = 32_768, maxDepth: Int = 128, maxTokens: Int = 100_000,
                parallelScanBytes: Int = 1 << 20) {
        self.maxCompressedBytes = maxCompressedBytes
        self.maxInflatedBytes = maxInflatedBytes
        self.maxTokenBytes = maxTokenBytes
        self.maxDepth = maxDepth
        self.maxTokens = maxTokens
        self.parallelScanBytes = parallelScanBytes
    }

    /// The C form, for the package's modules that call the core.
    package var c: sdui_limits {
        sdui_limits(max_compressed_bytes: clamp(maxCompressedBytes),
                    max_inflated_bytes: clamp(maxInflatedBytes),
                    max_token_bytes: clamp(maxTokenBytes),
                    max_depth: UInt32(clamping: max(0, maxDepth)),
                    max_tokens: clamp(maxTokens),
                    parallel_scan_bytes: clamp(parallelScanBytes))
    }

    private func clamp(_ v: Int) -> Int { max(0, v) }
}
