// ThemeSource.swift - where a screen's theme came from.
import Foundation
import SDUICore

/// Which step of the resolution order chose a screen's theme.
public enum ThemeSource: String, Sendable, Hashable, Codable {
    /// The screen's own `themeId`.
    case screen
    /// The flow's default theme.
    case flow
    /// The SDK fallback theme.
    case sdk
}
