// Contrast.swift - sRGB colours and WCAG 2.x contrast (for theme lint, seed 003).
import Foundation
import SDUICore

/// An sRGB colour parsed from `#RGB`, `#RRGGBB` or `#RRGGBBAA`.
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Parses a hex colour; anything else is a `.schema` error naming it.
    public init(hex: String) throws {
        let body = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
        guard hex.hasPrefix("#"), [3, 6, 8].contains(body.count),
              body.allSatisfy(\.isHexDigit), let v = UInt32(body, radix: 16) else {
            throw SDUIError(.schema, "\"\(hex)\" is not a colour (#RGB, #RRGGBB or #RRGGBBAA)")
        }
        switch body.count {
        case 3:
            func d(_ s: UInt32) -> UInt8 { UInt8((v >> s) & 0xF) * 17 }
            self.init(red: d(8), green: d(4), blue: d(0))
        case 6:
            self.init(red: UInt8(v >> 16), green: UInt8((v >> 8) & 0xFF), blue: UInt8(v & 0xFF))
        default:
            self.init(red: UInt8(v >> 24), green: UInt8((v >> 16) & 0xFF),
                      blue: UInt8((v >> 8) & 0xFF), alpha: UInt8(v & 0xFF))
        }
    }

    public var description: String {
        alpha == 255 ? String(format: "#%02X%02X%02X", red, green, blue)
            : String(format: "#%02X%02X%02X%02X", red, green, blue, alpha)
    }

    /// WCAG 2.x relative luminance: sRGB channels linearised, weighted
    /// 0.2126 R + 0.7152 G + 0.0722 B.  (WCAG's 0.03928 threshold; the
    /// sRGB standard's 0.04045 gives the same result for 8-bit channels.)
    public var relativeLuminance: Double {
        func lin(_ c: UInt8) -> Double {
            let s = Double(c) / 255
            return s <= 0.03928 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * lin(red) + 0.7152 * lin(green) + 0.0722 * lin(blue)
    }

    /// This colour over an opaque `background` (alpha compositing).
    public func over(_ background: RGBColor) -> RGBColor {
        guard alpha < 255 else { return self }
        let a = Double(alpha) / 255
        func mix(_ f: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(f) * a + Double(b) * (1 - a)).rounded()) }
        return RGBColor(red: mix(red, background.red), green: mix(green, background.green),
                        blue: mix(blue, background.blue))
    }
}

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
