// LoadedScreen.swift - what ScreenLoader.load returns.
import SDUICore

/// A loaded screen: the payload shown, where it came from, each token's
/// lookup, and the render tree.
public struct LoadedScreen: Sendable {
    /// The id asked for.
    public var requested: String
    /// The payload resolved: the one asked for, or the fallback a 409 (or
    /// the Fallback Pack) led to.
    public var payload: ScreenPayload
    /// Where the payload came from: the registry (sent or revalidated), the
    /// disk cache or the Fallback Pack.
    public var source: ScreenSource
    /// The resolved render tree.
    public var tree: RenderTree
    /// Each distinct token id of the payload, as the repository found it.
    public var lookups: [String: TokenLookup]
}
