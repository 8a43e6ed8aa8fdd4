// RGBColor.swift - the one colour type: sRGB from hex, luminance, compositing.
import Foundation

/// An sRGB colour parsed from `#RGB`, `#RRGGBB` or `#RRGGBBAA`.
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    /// The red, green, blue and alpha channels, 0 to 255 each; an `alpha` of
    /// 255 is opaque, 0 fully transparent.
    public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    /// A colour from its channels; `alpha` defaults to 255 (opaque).
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Parses a hex colour: `#` and 3, 6 or 8 ASCII hex digits, nothing
    /// else (no spaces, no names); anything else is a `.schema` error naming it.
    public init(hex: String) throws {
        guard let v = Self.parse(hex) else {
            throw SDUIError(.schema, "\"\(hex)\" is not a colour (#RGB, #RRGGBB or #RRGGBBAA)")
        }
        self = v
    }

    /// Whether `s` is a hex colour ``init(hex:)`` accepts.
    public static func isHex(_ s: String) -> Bool { parse(s) != nil }

    /// The colour of `#RGB`, `#RRGGBB` or `#RRGGBBAA`; nil for anything else.
    private static func parse(_ hex: String) -> RGBColor? {
        let u = hex.utf8
        guard u.first == UInt8(ascii: "#"), [4, 7, 9].contains(u.count) else { return nil }
        var v: UInt32 = 0
        for b in u.dropFirst() {
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        switch u.count - 1 {
        case 3:
            func d(_ s: UInt32) -> UInt8 { UInt8((v >> s) & 0xF) * 17 }
            return RGBColor(red: d(8), green: d(4), blue: d(0))
        case 6:
            return RGBColor(red: UInt8(v >> 16), green: UInt8((v >> 8) & 0xFF), blue: UInt8(v & 0xFF))
        default:
            return RGBColor(red: UInt8(v >> 24), green: UInt8((v >> 16) & 0xFF),
                            blue: UInt8((v >> 8) & 0xFF), alpha: UInt8(v & 0xFF))
        }
    }

    /// The colour as uppercase hex: `#RRGGBB` when opaque, else `#RRGGBBAA`.
    /// It parses back with ``init(hex:)``.
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
