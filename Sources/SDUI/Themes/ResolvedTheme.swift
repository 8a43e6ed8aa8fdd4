// ResolvedTheme.swift - a theme flattened for one mode and scale, as resolution reads it.
import Foundation
import SDUICore

/// A theme flattened for one mode and accessibility scale: every reference
/// is one dictionary lookup that yields the final prop value.
///
/// Accessibility: `textScale` multiplies font
/// sizes and line heights; `spacingScale` multiplies spacing, rounded to the
/// nearest multiple of 4 so the grid holds.  Radius and colours do not scale.
/// A `font` setting is the family of every style left at "system".
/// A scale outside ``scaleRange`` is clamped into it (one that is not a
/// number counts as 1).
public struct ResolvedTheme: Sendable {
    /// The theme the values come from, as given (the resolver passes it already
    /// merged over the SDK fallback).
    public let theme: Theme
    /// The mode whose colours the references yield.
    public let mode: ThemeMode
    /// Every reference by its full text, `@color.primary`: one lookup per use.
    let references: [String: JSONValue]
    /// Spacing and typography also by bare name (spacing props, a Text's style).
    let spacing: [String: JSONValue]
    let typography: [String: JSONValue]

    /// The groups a reference may name (plural spellings too).
    static let groups: Set<String> = ["color", "colors", "spacing", "radius", "typography", "animation", "animations",
                                      "gesture", "gestures"]

    /// The accessibility scales resolution accepts.
    public static let scaleRange: ClosedRange<Double> = 0.5...4

    /// `scale` clamped into ``scaleRange``; NaN is 1.
    static func clamped(_ scale: Double) -> Double {
        scale.isNaN ? 1 : min(max(scale, scaleRange.lowerBound), scaleRange.upperBound)
    }

    /// Flattens `theme` for `mode`.  Both scales default to 1 and are clamped into
    /// ``scaleRange`` (NaN counts as 1).
    public init(_ theme: Theme, mode: ThemeMode, textScale: Double = 1, spacingScale: Double = 1) {
        self.theme = theme
        self.mode = mode
        let textScale = Self.clamped(textScale), spacingScale = Self.clamped(spacingScale)
        let font = theme.settings["font"].flatMap { $0.isEmpty ? nil : $0 }   // the theme-wide font setting
        typography = theme.typography.mapValues { t in
            .object(["size": JSONValue.number(t.size * textScale),
                     "lineHeight": JSONValue.number(t.lineHeight * textScale),
                     "weight": .int(Int64(t.weight)),
                     "family": .string(t.family == "system" ? font ?? t.family : t.family)])
        }
        spacing = theme.spacing.mapValues { v in
            spacingScale == 1 ? JSONValue.number(v) : JSONValue.number((v * spacingScale / 4).rounded() * 4)
        }
        var refs: [String: JSONValue] = [:]
        for (groups, values) in [(["color", "colors"], theme.colors.mapValues { JSONValue.string($0[mode].description) }),
                                 (["spacing"], spacing), (["radius"], theme.radius.mapValues(JSONValue.number)),
                                 (["typography"], typography),
                                 (["animation", "animations"], theme.animations.mapValues(JSONValue.number)),
                                 (["gesture", "gestures"], theme.gestures.mapValues(JSONValue.number))] {
            for g in groups { for (name, v) in values { refs["@\(g).\(name)"] = v } }
        }
        references = refs
    }


    /// The value of `@group.name`: group is `color`, `spacing`, `radius`,
    /// `typography`, `animation` or `gesture` (plural forms too).  Nil when unknown.
    public func reference(group: Substring, name: Substring) -> JSONValue? {
        references["@\(group).\(name)"]
    }

    /// A spacing name (the short `xs/s/m/l/xl` or the long
    /// `xs/sm/md/lg/xl`) in points.
    public func spacing(named name: String) -> JSONValue? {
        if let v = spacing[name] { return v }
        switch name {
        case "s": return spacing["sm"]
        case "m": return spacing["md"]
        case "l": return spacing["lg"]
        default: return nil
        }
    }

    /// A typography style by bare name (a Text's `"style": "body"`).
    public func typography(named name: String) -> JSONValue? { typography[name] }

    /// The page background colour.
    public var background: JSONValue? { references["@color.background"] }
}
