// LoadedScreen.swift - what ScreenLoader.load returns.
import SDUICore

/// Where a screen's payload came from.
public enum ScreenSource: String, Sendable, CaseIterable {
    /// The registry sent it (HTTP 200).
    case network
    /// The registry confirmed the cached payload (HTTP 304).
    case revalidated
    /// The registry could not be reached; the payload kept on disk.
    case disk
    /// Offline with nothing cached: the Fallback Pack's screen for the id.
    case fallbackPack = "fallback-pack"
}

/// A loaded screen: the payload shown, where it came from, each token's
/// lookup, and the render tree.
public struct LoadedScreen: Sendable {
    /// The id asked for.
    public var requested: String
    /// The payload resolved: the one asked for, or the fallback a 409 (or
    /// the Fallback Pack) led to.
    public var payload: ScreenPayload
    public var source: ScreenSource
    public var tree: RenderTree
    /// Each distinct token id of the payload, as the repository found it.
    public var lookups: [String: TokenLookup]
}
