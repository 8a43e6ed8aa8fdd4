// FallbackSubstitution.swift - the one rule for when a Fallback Pack screen
// stands in for a screen, and which tokens it then draws with.
import Foundation
import SDUICore

/// A Fallback Pack screen standing in for a screen that cannot be drawn
/// offline.
///
/// The rule: the pack's screen whose `fallbackFor` names screen `id` is
/// shown instead of it when the pack has one and either
///
/// - no payload of the screen can be had (the registry cannot be reached and
///   nothing usable is cached: ``ScreenLoader``), or
/// - the payload is at hand but one of its tokens is an offline miss
///   (``TokenLookup/offline``: ``ScreenResolver``).
///
/// A token that is merely unavailable (a lookup error, a missing id) is not
/// a reason: it is a placeholder on the screen itself.  The substitute draws
/// each token that was found as found; a token that was not comes from the
/// Fallback Pack's own tokens, else stays as it was looked up, else (never
/// looked up) is an offline miss.
struct FallbackSubstitution: Sendable {
    /// Why the screen is not drawn as it is.
    enum Reason: Sendable, Equatable {
        /// No payload of the screen could be had.
        case noPayload
        /// These of the payload's tokens are offline misses (in its order).
        case offlineTokens([String])
    }

    /// The Fallback Pack's screen shown instead.
    let screen: ScreenPayload
    /// Why.
    let reason: Reason

    /// The substitution for screen `id` when no payload of it can be had;
    /// nil when `pack` has no screen for it.
    init?(noPayloadFor id: String, pack: FallbackPack?) {
        guard let fallback = pack?.screen(for: id) else { return nil }
        self.screen = fallback
        self.reason = .noPayload
    }

    /// The substitution for `screen` drawn with `lookups`; nil when none of
    /// its tokens is an offline miss or `pack` has no screen for it.
    init?(for screen: ScreenItems, lookups: [String: TokenLookup], pack: FallbackPack?) {
        guard let fallback = pack?.screen(for: screen.id) else { return nil }
        let missing = screen.tokenIDs.filter { if case .offline = lookups[$0] { true } else { false } }
        guard !missing.isEmpty else { return nil }
        self.screen = fallback
        self.reason = .offlineTokens(missing)
    }

    /// `lookups` completed for `substitute`, a screen of `pack`: a token
    /// found stays; one not found comes from the pack's own tokens, else
    /// stays as it was looked up, else is an offline miss.
    static func lookups(for substitute: ScreenItems, _ lookups: [String: TokenLookup],
                        pack: FallbackPack) -> [String: TokenLookup] {
        var out = lookups
        for id in substitute.tokenIDs where out[id]?.token == nil {
            out[id] = ScreenResolver.lookup(id, in: pack.pack) ?? out[id] ?? .offline
        }
        return out
    }
}
