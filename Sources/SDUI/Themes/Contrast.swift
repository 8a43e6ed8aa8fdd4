// Contrast.swift - WCAG 2.x contrast between colours (for theme lint).
import Foundation
import SDUICore

/// WCAG 2.x contrast between text and its background.
public enum Contrast {
    /// (L1 + 0.05) / (L2 + 0.05), L1 the lighter: 1 (none) to 21 (black on white).
    /// A translucent foreground is first composited over the background.
    public static func ratio(_ foreground: RGBColor, _ background: RGBColor) -> Double {
        let a = foreground.over(background).relativeLuminance, b = background.relativeLuminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// AA: 4.5:1 for body text, 3:1 for large text (≥ 18 pt, or ≥ 14 pt bold).
    public static func passesAA(_ ratio: Double, largeText: Bool) -> Bool {
        ratio >= (largeText ? 3.0 : 4.5)
    }
}
