// RenderContext.swift - everything resolution depends on besides the screen and its tokens.
import Foundation
import Logging
import SDUICore

/// Everything resolution depends on besides the screen and its tokens.
public struct RenderContext: Sendable {
    /// What the app renders, with prop rules (the `X-Primitives` contract).
    public var primitives: PrimitiveMap = .builtIn
    /// The themes screens may choose from (default: none, so every screen
    /// gets the SDK fallback).
    public var themes = ThemeCatalog()
    /// The flow's default theme (second in the resolution order).
    public var flowThemeID: String?
    /// Light or dark colours (default light).
    public var mode: ThemeMode = .light
    /// Accessibility scales (see ``ResolvedTheme``).
    public var textScale: Double = 1
    /// Multiplies spacing, rounded to the 4 pt grid; clamped to 0.5–4 (default 1).
    public var spacingScale: Double = 1
    /// The user asked for reduced motion: every `transition` in the tree
    /// holds only its reduced form (``Motion``).
    public var reduceMotion = false
    /// The string catalogs `@string.…` props are looked up in (nil: none,
    /// so every reference shows its key and is reported missing).
    public var strings: StringCatalog?
    /// The locale strings are looked up for, the app's choice over the
    /// device's (nil: the catalogs' default locale).  When set, the tree's
    /// root carries `locale` and `direction` (`rtl` for a locale written
    /// right to left: rows and leading/trailing edges mirror).
    public var locale: String?
    /// The locale texts and numbers are written in: ``locale``, else the
    /// catalogs' default locale; nil with neither.
    public var textLocale: String? { locale ?? strings?.defaultLocale }
    /// The host app's bindings, consulted after each item's `bind`.
    public var hostBindings: [String: JSONValue] = [:]
    /// Scenario data (an `SDUIStore` store), consulted after the host's
    /// bindings and read by `@{…}` expressions; ``ScreenResolver/update(_:changed:)``
    /// re-resolves what a change of it touches.
    public var store: (any ScenarioData)?
    /// Reported in `unknown_primitive` and `render_error` events.
    public var appVersion = SDUIKitVersion.string
    /// Screens to switch to when offline.
    public var fallbackPack: FallbackPack?
    /// Renderers for the blocks of block screens.
    public var blocks: BlockRegistry = .builtIn
    /// When set, a block whose node holds an image URL off these CDN hosts
    /// becomes a placeholder (`bad_block` and a `render_error` event).
    /// Tokens are checked where they are fetched (``TokenRepository``).
    public var imagePolicy: ImageURLPolicy?
    /// Bounds on what `{{…}}` fills may produce; a node whose fills pass one
    /// becomes a placeholder with a `limit` issue.
    public var bindingLimits = BindingLimits()
    /// Bounds on the nodes and bytes of one render tree, whatever the
    /// screen's format; the node that would pass one becomes a placeholder
    /// with a `limit` issue and the rest of the screen is left out.
    public var renderLimits = RenderLimits()
    /// Where unknown primitives, block errors and switches to a fallback
    /// screen are logged (label `sdui.render`).
    public var logger = Logger(label: "sdui.render")

    /// The defaults: built-in primitives and blocks, no themes but the SDK
    /// fallback, light mode, scales of 1, no host bindings and no Fallback Pack.
    public init() {}
}
