// ThemeLint.swift - the validation rules for a theme.
import Foundation
import SDUICore

/// One problem theme lint found.
public struct ThemeLintFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How bad a finding is: an `error` makes `sdui theme lint` exit 1, a
    /// `warning` does not.
    public enum Severity: String, Sendable, Codable { case error, warning }
    /// The rule a finding breaks; the raw value is the name printed
    /// (`contrast`, `spacing-grid`, `animation-duration`, `typography-scale`).
    public enum Rule: String, Sendable, Codable {
        case contrast, spacingGrid = "spacing-grid", animationDuration = "animation-duration"
        case typographyScale = "typography-scale"
    }

    /// Whether the finding is an error or a warning.
    public var severity: Severity
    /// The rule broken.
    public var rule: Rule
    /// What is at fault: `textSecondary on surface`, `spacing.md`, …
    public var subject: String
    /// The mode a contrast finding is about; nil for rules that do not depend
    /// on the mode.
    public var mode: ThemeMode?
    /// What is wrong, with the values involved.
    public var message: String

    /// `severity: rule: subject (mode): message`, as `sdui theme lint` prints it
    /// after the file name.
    public var description: String {
        "\(severity.rawValue): \(rule.rawValue): \(subject)\(mode.map { " (\($0.rawValue))" } ?? ""): \(message)"
    }
}

/// Checks a theme against these validation rules:
///
/// - **Contrast (WCAG 2.x AA)** for every text/background pair the theme
///   defines, in light and in dark mode: 4.5:1 for body text, 3:1 for large
///   text.  The pairs are the theme's `contrastPairs` plus those its colour
///   names imply: each `text…` colour on `background`, `surface` and
///   `surfaceVariant`, each `onX` colour on `X`, and `primary` on
///   `background` (the blocks' text buttons).  A colour the theme leaves
///   out is rendered from the SDK fallback, so the pairs the built-in blocks
///   draw (``blockPairs``) are also checked where one colour is the theme's
///   and the other inherited; such a finding names the inherited colour.
/// - **Spacing on the 4 pt grid**: every spacing value is a multiple of 4.
/// - **Animation durations** match the web timing within 50 ms:
///   `quickTransition` 200 ms, `standardTransition` 300 ms,
///   `slowTransition` 500 ms; any other duration is above 0 and at most
///   1,000 ms.
/// - **Typography** (warnings): line height at least the font size, and
///   sizes that do not grow from `headingLarge` down to `caption`.
public enum ThemeLint {
    /// The durations, in milliseconds, the named transitions must match:
    /// `quickTransition` 200, `standardTransition` 300, `slowTransition` 500.
    public static let webTimings: [String: Double] = [
        "quickTransition": 200, "standardTransition": 300, "slowTransition": 500,
    ]
    /// How far, in milliseconds, a named transition may be from its duration in
    /// ``webTimings`` (50).
    public static let timingTolerance = 50.0
    /// The longest any other animation may be, in milliseconds (1,000); it must
    /// also be above 0.
    public static let maxDuration = 1000.0
    static let scaleOrder = ["headingLarge", "headingMedium", "bodyLarge", "bodyMedium", "bodySmall", "caption"]

    /// The text/background pairs contrast is checked on.
    public static func pairs(of theme: Theme) -> [Theme.ContrastPair] {
        var out = theme.contrastPairs
        var seen = Set(out.map { "\($0.text)|\($0.background)" })
        func add(_ text: String, _ bg: String) {
            if theme.colors[bg] != nil, seen.insert("\(text)|\(bg)").inserted {
                out.append(Theme.ContrastPair(text: text, background: bg))
            }
        }
        for name in theme.colors.keys.sorted() {
            if name.hasPrefix("text"), name.count > 4, name[name.index(name.startIndex, offsetBy: 4)].isUppercase {
                for bg in ["background", "surface", "surfaceVariant"] { add(name, bg) }
            }
            if name.hasPrefix("on"), name.count > 2, name[name.index(name.startIndex, offsetBy: 2)].isUppercase {
                let base = name.dropFirst(2)
                add(name, base.prefix(1).lowercased() + base.dropFirst())
            }
        }
        if theme.colors["primary"] != nil { add("primary", "background") }
        return out
    }

    /// Text on background as the built-in blocks draw it.
    public static let blockPairs: [(text: String, background: String)] = [
        ("textPrimary", "background"), ("textSecondary", "background"), ("textPrimary", "surface"),
        ("textSecondary", "surface"), ("onPrimary", "primary"), ("primary", "background"),
    ]

    /// The pairs ``check(_:over:)`` checks: ``pairs(of:)``, then each of
    /// ``blockPairs`` with one colour from the theme and the other from
    /// `base` (nil: none).
    public static func checkedPairs(_ theme: Theme, over base: Theme? = .sdkFallback) -> [Theme.ContrastPair] {
        var out = pairs(of: theme)
        guard let base else { return out }
        var seen = Set(out.map { "\($0.text)|\($0.background)" })
        for (text, bg) in blockPairs where (theme.colors[text] == nil) != (theme.colors[bg] == nil)
            && base.colors[theme.colors[text] == nil ? text : bg] != nil && seen.insert("\(text)|\(bg)").inserted {
            out.append(Theme.ContrastPair(text: text, background: bg))
        }
        return out
    }

    /// Every finding, errors first in theme order.  Colours the theme lacks
    /// come from `base` (the SDK fallback, as when rendering; nil: none).
    public static func check(_ theme: Theme, over base: Theme? = .sdkFallback) -> [ThemeLintFinding] {
        var out: [ThemeLintFinding] = []
        func color(_ name: String) -> Theme.ColorPair? { theme.colors[name] ?? base?.colors[name] }
        for pair in checkedPairs(theme, over: base) {
            guard let fg = color(pair.text), let bg = color(pair.background) else { continue }
            // checkedPairs only lists a pair with an inherited colour when there is a base.
            let inherited = [pair.text, pair.background].filter { theme.colors[$0] == nil }
            let note = inherited.isEmpty ? ""
                : " (\(inherited.joined(separator: ", ")) from \(base?.id ?? ""), as the theme does not set it)"
            for mode in ThemeMode.allCases {
                let ratio = Contrast.ratio(fg[mode], bg[mode])
                if !Contrast.passesAA(ratio, largeText: pair.largeText) {
                    let need = pair.largeText ? "3:1 (large text)" : "4.5:1 (body text)"
                    out.append(ThemeLintFinding(
                        severity: .error, rule: .contrast, subject: "\(pair.text) on \(pair.background)", mode: mode,
                        message: String(format: "%@ on %@ is %.2f:1; AA needs %@",
                                        fg[mode].description, bg[mode].description, ratio, need) + note))
                }
            }
        }
        for (name, v) in theme.spacing.sorted(by: { $0.key < $1.key }) where v.truncatingRemainder(dividingBy: 4) != 0 {
            out.append(ThemeLintFinding(severity: .error, rule: .spacingGrid, subject: "spacing.\(name)", mode: nil,
                                        message: "\(JSONValue.text(v)) is not a multiple of 4"))
        }
        for (name, ms) in theme.animations.sorted(by: { $0.key < $1.key }) {
            let subject = "animations.\(name)"
            if let web = webTimings[name], abs(ms - web) > timingTolerance {
                out.append(ThemeLintFinding(
                    severity: .error, rule: .animationDuration, subject: subject, mode: nil,
                    message: "\(JSONValue.text(ms)) ms is more than \(Int(timingTolerance)) ms from the web's \(Int(web)) ms"))
            } else if ms <= 0 || ms > maxDuration {
                out.append(ThemeLintFinding(
                    severity: .error, rule: .animationDuration, subject: subject, mode: nil,
                    message: "\(JSONValue.text(ms)) ms is outside (0, \(Int(maxDuration))] ms"))
            }
        }
        for (name, t) in theme.typography.sorted(by: { $0.key < $1.key }) where t.lineHeight < t.size {
            out.append(ThemeLintFinding(
                severity: .warning, rule: .typographyScale, subject: "typography.\(name)", mode: nil,
                message: "line height \(JSONValue.text(t.lineHeight)) is below the size \(JSONValue.text(t.size))"))
        }
        let scale = scaleOrder.compactMap { n in theme.typography[n].map { (n, $0.size) } }
        for (a, b) in zip(scale, scale.dropFirst()) where b.1 > a.1 {
            out.append(ThemeLintFinding(
                severity: .warning, rule: .typographyScale, subject: "typography.\(b.0)", mode: nil,
                message: "\(JSONValue.text(b.1)) pt is larger than \(a.0)'s \(JSONValue.text(a.1)) pt"))
        }
        return out.filter { $0.severity == .error } + out.filter { $0.severity == .warning }
    }
}
