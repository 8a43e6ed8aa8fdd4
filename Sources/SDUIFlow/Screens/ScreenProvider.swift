// ScreenProvider.swift - where a screen session gets the screens it shows:
// the registry through ScreenLoader, or any other source of screen items.
import Foundation
import SDUI
import SDUICore

/// A screen ready to resolve: its items (token items, blocks or both), the
/// lookups of its tokens, and whether it came from the Fallback Pack.
public struct ProvidedScreen: Sendable {
    /// The id asked for.
    public var requested: String
    /// What the screen shows.
    public var items: ScreenItems
    /// Each token id of ``items``, as it was found.
    public var lookups: [String: TokenLookup]
    /// Whether the screen is the Fallback Pack's (its tokens are reported
    /// with source `fallback`).
    public var fromFallbackPack: Bool
    /// The properties of each `experiment_exposure` this screen makes
    /// (``ExperimentScreens``): committed with its `screen_view`.
    public var exposures: [[String: JSONValue]] = []

    /// A provided screen from its parts.
    public init(requested: String, items: ScreenItems, lookups: [String: TokenLookup] = [:],
                fromFallbackPack: Bool = false) {
        self.requested = requested
        self.items = items
        self.lookups = lookups
        self.fromFallbackPack = fromFallbackPack
    }
}

/// Where a ``ScreenSession`` gets a screen by id.  ``ScreenLoader`` is
/// one (the registry, with `X-Primitives`, ETags, 409 fallbacks and the
/// offline rules); a host may supply others (a folder of examples, a test).
public protocol ScreenProvider: Sendable {
    /// The screen `id`, with its tokens looked up.
    ///
    /// - Throws: `SDUIError` when there is no such screen or it cannot be
    ///   had (the session reports it and keeps the screen shown).
    func screen(_ id: String) async throws -> ProvidedScreen
}

extension ScreenLoader: ScreenProvider {
    /// The payload of `id` as ``fetch(_:)`` finds it, with its lookups and
    /// the exposures of the experiments the registry drew it with.
    public func screen(_ id: String) async throws -> ProvidedScreen {
        let fetched = try await fetch(id)
        var provided = ProvidedScreen(requested: id, items: fetched.payload.screenItems, lookups: await lookups(for: fetched),
                                      fromFallbackPack: fetched.source == .fallbackPack)
        // Variations the registry assigned (X-SDUI-Attributes): recorded
        // as the app records its own, with the screen's `screen_view`.
        provided.exposures = fetched.experiments.map(\.exposureProperties)
        return provided
    }
}
