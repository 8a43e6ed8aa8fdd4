// ThemeCatalog.swift - the themes an app knows and the order in which a screen's theme is chosen.
import Foundation
import SDUICore

/// The themes an app knows, by id, and the order in which a screen's theme
/// is chosen:
///
/// 1. the screen's `themeId`, when the catalog has it;
/// 2. the flow's default theme, when the catalog has it;
/// 3. the SDK fallback theme (``Theme/sdkFallback`` unless replaced).
///
/// An id that is named but unknown is skipped with an `unknown_theme`
/// issue, never an error: the screen still renders.  Every chosen theme is
/// merged over the SDK fallback, so a reference the theme lacks still
/// resolves.
public struct ThemeCatalog: Sendable {
    public private(set) var themes: [String: Theme]
    /// The theme of the last step, and the base every chosen theme is merged
    /// over (default ``Theme/sdkFallback``).
    public var sdkFallback: Theme

    /// A catalog of `themes` by id (when two share an id, the last one wins).
    public init(_ themes: [Theme] = [], sdkFallback: Theme = .sdkFallback) {
        self.themes = Dictionary(themes.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.sdkFallback = sdkFallback
    }

    /// Adds or replaces a theme.
    public mutating func add(_ theme: Theme) { themes[theme.id] = theme }

    /// The theme with `id` as it was added (not merged); nil when unknown.
    public subscript(id: String) -> Theme? { themes[id] }

    /// The theme for a screen, the step that chose it, and an issue for each
    /// named id that was not found.
    public func resolve(screenThemeID: String?, flowThemeID: String?)
        -> (theme: Theme, source: ThemeSource, issues: [RenderIssue]) {
        var issues: [RenderIssue] = []
        for (id, source, place) in [(screenThemeID, ThemeSource.screen, "screen themeId"),
                                    (flowThemeID, .flow, "flow default theme")] {
            guard let id else { continue }
            if let t = themes[id] { return (t.merged(over: sdkFallback), source, issues) }
            issues.append(RenderIssue(.unknownTheme, token: nil, path: place,
                                      "no theme \"\(id)\"; trying the next step"))
        }
        return (sdkFallback, .sdk, issues)
    }
}

