// ScreenResolver.swift - resolves a screen into a render tree, with placeholders where it cannot.
import Foundation
import Logging
import SDUICore

/// Resolves screens into ``RenderTree``s.
///
/// For each item of a ``ScreenPayload`` the token is looked up (core pack
/// alone, or a ``TokenRepository``) and its tree is resolved node by node:
///
/// - **Props**: `{{path}}` placeholders are filled (``BindingScope`` states
///   the rules, including a missing binding); `@group.name` theme references
///   become the theme's value for the current mode; spacing names in
///   `padding`, `spacing`, `margin`, `gap` (and a Spacer's `size`) become
///   points; a Text's bare `style` name becomes its typography.  Then the
///   primitive's ``PropRule``s are checked.  A node whose `visible` is false
///   is left out.
/// - **Fallbacks**: an unknown primitive becomes a
///   placeholder and raises an `unknown_primitive` event (token id, app
///   version); a node needing a newer version than the client has becomes a
///   placeholder; a token that is not cached while offline becomes a
///   skeleton — unless the Fallback Pack has a screen for this one, in which
///   case the whole screen switches to it; any other failure (lookup error,
///   malformed node, broken required prop) becomes a placeholder.
///
/// Resolution never throws: every degradation is a ``RenderIssue`` in the
/// tree, and the rest of the screen renders.
public struct ScreenResolver: Sendable {
    /// Primitives, themes, mode, bindings and fallbacks every resolve uses.
    public let context: RenderContext
    private let themeCache = ThemeCache()

    /// A resolver over `context` (by default built-in primitives, the SDK
    /// fallback theme, light mode).  Safe to share between tasks: each theme
    /// it flattens is cached, under a lock, for its later resolves.
    public init(_ context: RenderContext = RenderContext()) {
        self.context = context
    }

    /// Flattened themes by the ids that chose them, so a screen pays for
    /// theme merging and colour formatting once, not on every resolve.
    /// `@unchecked Sendable`: `entries` is only touched under `lock`.
    private final class ThemeCache: @unchecked Sendable {
        let lock = NSLock()
        var entries: [String: (ResolvedTheme, ThemeSource, [RenderIssue])] = [:]
    }

    /// The theme for a screen by ``ThemeCatalog``'s order, flattened for the mode.
    private func theme(screenThemeID: String?) -> (theme: ResolvedTheme, source: ThemeSource, issues: [RenderIssue]) {
        let key = "\(screenThemeID ?? "")\u{0}\(context.flowThemeID ?? "")"
        themeCache.lock.lock()
        defer { themeCache.lock.unlock() }
        if let hit = themeCache.entries[key] { return hit }
        let chosen = context.themes.resolve(screenThemeID: screenThemeID, flowThemeID: context.flowThemeID)
        let resolved = ResolvedTheme(chosen.theme, mode: context.mode, textScale: context.textScale,
                                     spacingScale: context.spacingScale)
        themeCache.entries[key] = (resolved, chosen.source, chosen.issues)
        return (resolved, chosen.source, chosen.issues)
    }

    /// Resolves `screen` with its tokens already looked up: the one entry
    /// point every format goes through (see ``ScreenItems``).  A token item
    /// whose id has no lookup is a placeholder; block items need none.
    public func resolve(_ screen: some ScreenItemsConvertible, lookups: [String: TokenLookup] = [:]) -> RenderTree {
        let screen = screen.screenItems
        var issues: [RenderIssue] = []
        var shown = screen
        var lookups = lookups
        let offline = screen.tokenIDs.contains { if case .offline = lookups[$0] { true } else { false } }
        if offline, let fallback = context.fallbackPack?.screen(for: screen.id) {
            issues.append(RenderIssue(.fallbackScreen, token: nil, path: "screen",
                                      "offline with tokens missing; showing fallback screen \"\(fallback.id)\""))
            context.logger.notice("switching to fallback screen",
                                  metadata: ["screen": "\(screen.id)", "fallback": "\(fallback.id)"])
            shown = fallback.screenItems
            for id in shown.tokenIDs where lookups[id]?.token == nil {
                lookups[id] = Self.lookup(id, in: context.fallbackPack!.pack) ?? .offline
            }
        }
        let chosen = theme(screenThemeID: shown.themeId ?? screen.themeId)
        issues += chosen.issues
        var builder = NodeBuilder(context: context, theme: chosen.theme, issues: issues)
        var style: BlockStyle?
        var blocks = 0
        var children: [RenderNode] = []
        children.reserveCapacity(shown.items.count)
        for item in shown.items {
            let node: RenderNode?
            switch item {
            case .token(let id, let bind):
                node = builder.item(id: id, bind: bind, lookup: lookups[id])
            case .block(let block):
                if style == nil { style = BlockStyle(settings: chosen.theme.theme.settings) }
                node = builder.block(block, index: blocks, style: style!)
                blocks += 1
            }
            if let node { children.append(node) }
        }
        return builder.tree(screen: screen.id, rendered: shown.id, theme: chosen, children: children)
    }

    /// Resolves `screen` from a core pack alone: an id the pack lacks is a
    /// placeholder (`unavailable`).  Ids in `offline` are treated as
    /// offline misses, to preview skeletons and Fallback Pack screens.
    public func resolve(_ screen: some ScreenItemsConvertible, pack: CorePack, offline: Set<String> = []) -> RenderTree {
        let items = screen.screenItems
        var lookups: [String: TokenLookup] = [:]
        for id in items.tokenIDs {
            lookups[id] = offline.contains(id) ? .offline : Self.lookup(id, in: pack)
                ?? .unavailable(SDUIError(.notFound, "no token \"\(id)\" in the pack", input: pack.source))
        }
        return resolve(items, lookups: lookups)
    }

    /// Resolves `screen` through the repository: pack → memory → disk →
    /// one batched network request for the misses.
    public func resolve(_ screen: some ScreenItemsConvertible, repository: TokenRepository) async -> RenderTree {
        let items = screen.screenItems
        return resolve(items, lookups: await repository.get(items.tokenIDs))
    }

    /// The pack's token as a lookup; nil when the pack lacks it.
    static func lookup(_ id: String, in pack: CorePack) -> TokenLookup? {
        do {
            return try pack.token(id).map { .found($0, .pack) }
        } catch let e as SDUIError {
            return .unavailable(e)
        } catch {
            return .unavailable(SDUIError(.unknown, "\(error)", input: pack.source))
        }
    }
}
