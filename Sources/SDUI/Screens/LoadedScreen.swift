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
    public var source: ScreenSource
    public var tree: RenderTree
    /// Each distinct token id of the payload, as the repository found it.
    public var lookups: [String: TokenLookup]
}
