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
    /// Flattened themes by the ids that chose them, so a screen pays for
    /// theme merging and colour formatting once, not on every resolve.
    private let themeCache = Locked<[String: (ResolvedTheme, ThemeSource, [RenderIssue])]>([:])

    /// A resolver over `context` (by default built-in primitives, the SDK
    /// fallback theme, light mode).  Safe to share between tasks: each theme
    /// it flattens is cached, under a lock, for its later resolves.
    /// When the context has a locale or catalogs, the host binding
    /// `locale` is their locale unless the host set one, so an expression
    /// writes numbers for it (`@{format_currency(total, 'CHF', locale)}`).
    public init(_ context: RenderContext = RenderContext()) {
        var c = context
        if c.hostBindings["locale"] == nil, let locale = c.textLocale {
            c.hostBindings["locale"] = .string(locale)
        }
        self.context = c
    }

    /// The theme for a screen by ``ThemeCatalog``'s order, flattened for the mode.
    private func theme(screenThemeID: String?) -> (theme: ResolvedTheme, source: ThemeSource, issues: [RenderIssue]) {
        let key = "\(screenThemeID ?? "")\u{0}\(context.flowThemeID ?? "")"
        return themeCache.withLock { entries in
            if let hit = entries[key] { return hit }
            let chosen = context.themes.resolve(screenThemeID: screenThemeID, flowThemeID: context.flowThemeID)
            let resolved = ResolvedTheme(chosen.theme, mode: context.mode, textScale: context.textScale,
                                         spacingScale: context.spacingScale)
            entries[key] = (resolved, chosen.source, chosen.issues)
            return (resolved, chosen.source, chosen.issues)
        }
    }

    /// Resolves `screen` with its tokens already looked up: the one entry
    /// point every format goes through (see ``ScreenItems``).  A token item
    /// whose id has no lookup is a placeholder; block items need none.
    public func resolve(_ screen: some ScreenItemsConvertible, lookups: [String: TokenLookup] = [:]) -> RenderTree {
        render(screen, lookups: lookups).tree
    }

    /// Resolves `screen` as ``resolve(_:lookups:)`` does, and keeps what
    /// ``update(_:changed:)`` needs to bring the tree up to date when the
    /// scenario data it reads changes.
    public func render(_ screen: some ScreenItemsConvertible, lookups: [String: TokenLookup] = [:]) -> ScreenRender {
        let screen = screen.screenItems
        var issues: [RenderIssue] = []
        var shown = screen
        var lookups = lookups
        if let pack = context.fallbackPack,
           let fallback = FallbackSubstitution(for: screen, lookups: lookups, pack: pack)?.screen {
            issues.append(RenderIssue(.fallbackScreen, token: nil, path: "screen",
                                      "offline with tokens missing; showing fallback screen \"\(fallback.id)\""))
            context.logger.notice("switching to fallback screen",
                                  metadata: ["screen": "\(screen.id)", "fallback": "\(fallback.id)"])
            shown = fallback.screenItems
            lookups = FallbackSubstitution.lookups(for: shown, lookups, pack: pack)
        }
        let chosen = theme(screenThemeID: shown.themeId ?? screen.themeId)
        issues += chosen.issues
        var builder = NodeBuilder(context: context, theme: chosen.theme, issues: [])
        builder.screenID = shown.id
        var style: BlockStyle?
        var blocks = 0
        var items: [ItemRecord] = []
        items.reserveCapacity(shown.items.count)
        for item in shown.items {
            guard !builder.full else { break }   // past a render bound: the rest is left out
            switch item {
            case .token(let id, let bind):
                items.append(builder.item(id: id, bind: bind, lookup: lookups[id]))
            case .block(let block):
                if style == nil { style = BlockStyle(settings: chosen.theme.theme.settings) }
                items.append(builder.block(block, index: blocks, style: style!))
                blocks += 1
            }
        }
        var props: [String: JSONValue] = ["scroll": .bool(true)]
        props["background"] = chosen.theme.background
        if let locale = context.locale, let tag = try? LocaleTag(locale) {
            // The locale's direction: a UI layer lays rows and leading/trailing edges out from it.
            props["locale"] = .string(tag.identifier)
            props["direction"] = .string(tag.direction.rawValue)
        }
        let tree = RenderTree(screen: screen.id, renderedScreen: shown.id, theme: chosen.theme.theme.id,
                              themeSource: chosen.source, mode: chosen.theme.mode,
                              root: RenderNode(primitive: "Column", version: 1, props: props),
                              issues: [], events: [])
        var render = ScreenRender(tree: tree, items: items, screenIssues: issues, theme: chosen.theme,
                                  fillBytes: builder.treeBytes, nodeCount: builder.nodeCount,
                                  renderBytes: builder.renderBytes)
        render.assemble()
        return render
    }

    /// Brings `render` up to date after the scenario data changed at
    /// `changed` (a store change's key paths): only the nodes whose props
    /// bind a path that intersects one of them (a parent or a child path,
    /// wildcards matching any index) are resolved again; every other node
    /// is kept as it was.  Returns the nodes that changed, outermost only
    /// (a change inside a listed node is not listed again); a node that
    /// appeared or disappeared is reported as a change of its parent.  An
    /// empty list means the tree is unchanged.
    ///
    /// Token lookups, the theme and the host's bindings are those of the
    /// first resolve; resolve again for a change of those.
    @discardableResult
    public func update(_ render: inout ScreenRender, changed: [KeyPath]) -> [RenderNodeChange] {
        guard !changed.isEmpty else { return [] }
        var builder = NodeBuilder(context: context, theme: render.theme, issues: [])
        builder.treeBytes = render.fillBytes
        (builder.nodeCount, builder.renderBytes) = (render.nodeCount, render.renderBytes)
        builder.screenID = render.tree.renderedScreen
        var places: [[Int]] = []
        var items = render.items
        var visible = 0
        var listChanged = false
        for i in items.indices {
            let item = items[i]
            if let plan = item.plan, plan.subtreeBinds(any: changed) {
                let next = builder.update(item.record, plan, changed: changed, token: item.token,
                                          scope: item.scope, label: item.label, at: [visible], changes: &places)
                if (next.node == nil) != (item.record.node == nil) { listChanged = true }
                items[i].record = next
            }
            if items[i].record.node != nil { visible += 1 }
        }
        if listChanged { places.append([]) }
        guard !places.isEmpty || builder.treeBytes != render.fillBytes || builder.nodeCount != render.nodeCount
            || builder.renderBytes != render.renderBytes else { return [] }
        render.replace(items: items, fillBytes: builder.treeBytes, nodeCount: builder.nodeCount,
                       renderBytes: builder.renderBytes)
        // Outermost first; drop places inside one already listed.
        places.sort { $0.count != $1.count ? $0.count < $1.count : $0.lexicographicallyPrecedes($1) }
        var kept: [[Int]] = []
        for p in places where !kept.contains(where: { p.starts(with: $0) }) { kept.append(p) }
        return kept.map { RenderNodeChange(path: $0, node: render.tree.root.descendant(at: $0)) }
    }

    /// ``update(_:changed:)`` for key paths given as text (a store patch's
    /// `keyPath`); text that is not a key path is ignored.
    @discardableResult
    public func update(_ render: inout ScreenRender, changed: some Sequence<String>) -> [RenderNodeChange] {
        update(&render, changed: changed.compactMap { try? KeyPath($0) })
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
