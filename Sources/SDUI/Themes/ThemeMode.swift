// ThemeMode.swift - light or dark.
import Foundation
import SDUICore

/// Light or dark appearance: the mode toggle swaps every colour.
public enum ThemeMode: String, Sendable, Hashable, Codable, CaseIterable {
    case light, dark
}
