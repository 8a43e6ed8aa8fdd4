// AccessibilityLint.swift - checks a resolved screen the way an
// accessibility audit would, before any user meets it.
//
// The lint reads the render tree (what an app draws, bindings filled and
// theme values resolved) and each node's derived accessibility
// (NodeAccessibility), in reading order, and reports one finding per
// defect, each naming the screen, the node's stable id (RenderNodeID), the
// token, the rule and the WCAG 2.2 success criterion it breaks:
//
//   label          error    4.1.2  an interactive node (a button, an input,
//                                  a tapped text or group) nothing can be
//                                  read for;
//   image-alt      error    1.1.1  an image with neither `alt` (or
//                                  `accessibilityLabel`) nor `decorative: true`;
//   touch-target   error    2.5.5  an interactive node smaller than the
//                                  platform's minimum (44 × 44 pt on iOS,
//                                  48 × 48 dp on Android) by its `height` or
//                                  `width`, or, without them, by its text's
//                                  line height and padding;
//   contrast       error    1.4.3  text (Text, Button, Badge) whose colour
//                                  against the background actually drawn
//                                  behind it (the nearest ancestor's
//                                  `background`, the screen's otherwise) is
//                                  below 4.5:1, or 3:1 for large text;
//   focus-order    warning  2.4.3  `focusOrder` values that do not follow
//                                  the reading order;
//   motion         error    2.3.3  a `transition` the resolver dropped: a
//                                  reduced form that moves, scales or lasts
//                                  over 150 ms, or a motion it cannot read
//                                  (every motion it keeps has a reduced
//                                  form by construction, Motion.swift);
//   motion-timing  warning  -      a duration more than 50 ms from every
//                                  animation timing of the theme (native
//                                  timing within 50 ms of the web's).
//
// The work is one walk of the tree, bounded by the render limits on nodes;
// each node's background is found from a stack kept along the walk, so the
// lint is linear in the tree.
import Foundation
import SDUICore

/// One defect the lint found.
public struct AccessibilityFinding: Sendable, Hashable, Codable {
    /// How bad it is.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// Fails the lint (exit 1) and an import.
        case error
        /// Reported; does not fail.
        case warning
    }

    /// The rule broken (`label`, `image-alt`, `touch-target`, `contrast`, `focus-order`, …).
    public var rule: String
    /// Its severity.
    public var severity: Severity
    /// The screen.
    public var screen: String
    /// The node's stable id (``RenderNodeID``).
    public var node: String
    /// The token the node belongs to, when a token drew it.
    public var token: String?
    /// What is wrong and how to mend it.
    public var message: String
    /// The WCAG 2.2 success criterion (`1.1.1`), when one applies.
    public var wcag: String?

    /// A finding from its parts.
    public init(rule: String, severity: Severity, screen: String, node: String, token: String?, message: String,
                wcag: String?) {
        self.rule = rule
        self.severity = severity
        self.screen = screen
        self.node = node
        self.token = token
        self.message = message
        self.wcag = wcag
    }
}

/// The platform whose minimum touch target applies.
public enum AccessibilityPlatform: String, Sendable, Hashable, CaseIterable {
    /// 44 × 44 pt.
    case ios
    /// 48 × 48 dp.
    case android

    /// The smallest side a touch target may have, in points (dp).
    public var minimumTarget: Double { self == .ios ? 44 : 48 }
}

/// Checks render trees (see the file's essay).
public struct AccessibilityLint: Sendable {
    /// The platform whose touch-target minimum applies.
    public var platform: AccessibilityPlatform
    /// The theme's animation timings (ms) durations must be within 50 ms of.
    public var timings: [Double]

    /// How far a duration may be from a theme timing, in milliseconds.
    public static let timingTolerance = 50.0

    /// A lint for `platform` (default iOS), with the animation timings of
    /// the theme screens use (default the SDK's).
    public init(platform: AccessibilityPlatform = .ios, timings: [Double] = Array(Theme.sdkFallback.animations.values)) {
        self.platform = platform
        self.timings = timings.sorted()
    }

    /// Every rule the lint checks, with its severity and WCAG criterion.
    public static let rules: [(rule: String, severity: AccessibilityFinding.Severity, wcag: String?)] = [
        ("label", .error, "4.1.2"), ("image-alt", .error, "1.1.1"), ("touch-target", .error, "2.5.5"),
        ("contrast", .error, "1.4.3"), ("focus-order", .warning, "2.4.3"), ("motion", .error, "2.3.3"),
        ("motion-timing", .warning, nil),
    ]

    /// The findings of `tree`, in reading order.
    public func findings(in tree: RenderTree) -> [AccessibilityFinding] {
        var out: [AccessibilityFinding] = []
        let screenBackground = Self.color(tree.root.props["background"])
            ?? (tree.mode == .dark ? RGBColor(red: 0x11, green: 0x18, blue: 0x27) : RGBColor(red: 255, green: 255, blue: 255))
        var lastFocus: (order: Double, id: String)?
        // Background along the walk: the colour drawn behind each depth.
        var backgrounds: [RGBColor] = [screenBackground]
        for entry in RenderNodeID.all(in: tree) {
            let n = entry.node
            backgrounds.removeLast(max(0, backgrounds.count - entry.path.count))
            let behind = backgrounds.last ?? screenBackground
            let own = Self.color(n.props["background"]).map { $0.over(behind) }
            backgrounds.append(own ?? behind)
            guard n.kind == .primitive, let a = n.accessibility, !a.hidden,
                  n.props["visible"]?.boolValue != false else { continue }
            func add(_ rule: String, _ message: String) {
                let spec = Self.rules.first { $0.rule == rule }!
                out.append(AccessibilityFinding(rule: rule, severity: spec.severity, screen: tree.renderedScreen,
                                                node: entry.id, token: n.token, message: message, wcag: spec.wcag))
            }
            if a.role.isInteractive && a.label == nil {
                add("label", "\(Self.describe(a.role)) with nothing to read: give it "
                    + (a.role == .button && n.primitive == "Button" ? "a `label`" : "`accessibilityLabel`")
                    + (a.role.isInteractive && n.primitive != "Button" && a.role != .link && a.role != .button
                       ? " (or the block's `label`)" : ""))
            }
            if a.role == .image && a.label == nil {
                add("image-alt", "an image with no text alternative: give it `alt` (what it shows) or `decorative: true`")
            }
            if a.role.isInteractive, let (side, how) = Self.smallestSide(n), side < platform.minimumTarget {
                add("touch-target", "\(Self.describe(a.role)) \(JSONValue.text(side)) pt \(how), under the "
                    + "\(JSONValue.text(platform.minimumTarget)) × \(JSONValue.text(platform.minimumTarget)) "
                    + "\(platform == .ios ? "pt" : "dp") minimum on \(platform == .ios ? "iOS" : "Android")")
            }
            if let pair = Self.textColors(n, own: own ?? behind) {
                let ratio = Contrast.ratio(pair.text, pair.background)
                let large = Self.isLargeText(n.props["style"])
                if !Contrast.passesAA(ratio, largeText: large) {
                    add("contrast", "text \(pair.text) on \(pair.background) has contrast "
                        + String(format: "%.2f", ratio) + ":1, under the \(large ? "3" : "4.5"):1 of "
                        + (large ? "large text" : "body text"))
                }
            }
            for (moment, v) in (n.props["transition"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard v["spring"] == nil, v["type"]?.stringValue != "none", let ms = v["duration"]?.doubleValue, ms > 0,
                      !timings.isEmpty, !timings.contains(where: { abs($0 - ms) <= Self.timingTolerance }) else { continue }
                add("motion-timing", "transition.\(moment) lasts \(JSONValue.text(ms)) ms, more than "
                    + "\(JSONValue.text(Self.timingTolerance)) ms from the theme's timings ("
                    + timings.map { JSONValue.text($0) }.joined(separator: ", ") + " ms)")
            }
            if let order = n.props["focusOrder"]?.doubleValue {
                if let last = lastFocus, order < last.order {
                    add("focus-order", "focusOrder \(JSONValue.text(order)) comes after \(last.id) "
                        + "(focusOrder \(JSONValue.text(last.order))) in reading order: focus would jump back")
                }
                lastFocus = (order, entry.id)
            }
        }
        // Transitions the resolver dropped: no motion without a sound reduced form reaches a user.
        for issue in tree.issues where issue.path.hasSuffix("props.transition") {
            let spec = Self.rules.first { $0.rule == "motion" }!
            out.append(AccessibilityFinding(rule: "motion", severity: spec.severity, screen: tree.renderedScreen,
                                            node: issue.path, token: issue.token, message: issue.message, wcag: spec.wcag))
        }
        return out
    }

    /// How a finding names a role.
    static func describe(_ role: NodeAccessibility.Role) -> String {
        switch role {
        case .button: return "a button"
        case .link: return "a link"
        case .textField: return "a text field"
        case .slider: return "a slider"
        case .radioGroup: return "a choice"
        case .toggle: return "a switch"
        default: return "an element"
        }
    }

    /// A colour prop, when it is a valid hex colour.
    static func color(_ v: JSONValue?) -> RGBColor? {
        guard let s = v?.stringValue else { return nil }
        return try? RGBColor(hex: s)
    }

    /// The smallest side of an interactive node that its props fix: an
    /// explicit `height` or `width`, or, for a node drawing text without a
    /// height, its line height plus vertical padding; nil when the props
    /// do not fix it (a container sized by its children).
    static func smallestSide(_ n: RenderNode) -> (Double, String)? {
        let p = n.props
        if let h = p["height"]?.doubleValue, h > 0 { return (h, "high (its height)") }
        if let w = p["width"]?.doubleValue, w > 0, w < 1_000 { return (w, "wide (its width)") }
        guard n.primitive == "Text" || n.primitive == "Button" else { return nil }
        guard let style = p["style"], let size = style["size"]?.doubleValue, size > 0 else { return nil }
        let line = style["lineHeight"]?.doubleValue.map { $0 > 4 ? $0 : $0 * size } ?? size * 1.2
        let padding = verticalPadding(p["padding"])
        // A Button draws its own inset; a plain tapped Text has only its padding.
        let inset = n.primitive == "Button" ? max(padding, 12) : padding
        return (line + 2 * inset, "high (its line height and padding)")
    }

    /// The top padding of a padding prop (a number for all sides, or an
    /// object with `vertical` or `top`).
    static func verticalPadding(_ v: JSONValue?) -> Double {
        if let n = v?.doubleValue { return n }
        return v?["vertical"]?.doubleValue ?? v?["top"]?.doubleValue ?? 0
    }

    /// The text colour and the background behind the text of a node that
    /// draws text with a colour of its own; nil when it draws none.
    static func textColors(_ n: RenderNode, own background: RGBColor) -> (text: RGBColor, background: RGBColor)? {
        switch n.primitive {
        case "Text", "Badge":
            guard let text = color(n.props["color"]) else { return nil }
            return (text, background)
        case "Button":
            // A filled button draws its label on its own background.
            let style = n.props["style"]?.stringValue
            guard style != "outline" && style != "text", let text = color(n.props["color"]) else { return nil }
            return (text, background)
        default:
            return nil
        }
    }

    /// Whether a typography object is large text for WCAG: 18 pt (24 px)
    /// and more, or 14 pt (18.66 px) bold and more.
    static func isLargeText(_ style: JSONValue?) -> Bool {
        guard let size = style?["size"]?.doubleValue else { return false }
        let weight = style?["weight"]?.doubleValue ?? 400
        return size >= 24 || (size >= 18.66 && weight >= 700)
    }
}
