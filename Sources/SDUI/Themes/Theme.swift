// Theme.swift - themes: groups of named values, colours with light and dark values.
import Foundation
import SDUICore

/// A theme: the named values tokens refer to as `@group.name`.
///
/// Groups: `colors` (each with a light and a dark value),
/// `typography`, `spacing` (points, on a 4 pt grid), `radius` (points) and
/// `animations` (milliseconds).  `settings` holds the free-form
/// choices (`buttonStyle`, `font`, `radius`).  A theme need not define
/// everything: ``merged(over:)`` fills the gaps from another theme, and the
/// resolver merges every theme over ``sdkFallback``.
///
/// The JSON forms are in schemas/theme.json.  The flat form,
/// `{"id": …, "tokens": {"background": "#0B1220", "radius": "lg", …}}`, is
/// read too: hex strings become colours (the same in both modes) and other
/// strings become settings.
public struct Theme: Sendable, Hashable {
    /// A colour in each mode.
    public struct ColorPair: Sendable, Hashable {
        /// The colour in light mode.
        public var light: RGBColor
        /// The colour in dark mode.
        public var dark: RGBColor
        /// A pair with a colour for each mode.
        public init(light: RGBColor, dark: RGBColor) {
            self.light = light
            self.dark = dark
        }
        /// The same colour in both modes.
        public init(_ both: RGBColor) { self.init(light: both, dark: both) }
        /// The colour for `mode`.
        public subscript(mode: ThemeMode) -> RGBColor { mode == .light ? light : dark }
    }

    /// A text style.  `lineHeight` is in points.
    public struct Typography: Sendable, Hashable {
        /// Font size in points.
        public var size: Double
        /// Line height in points.
        public var lineHeight: Double
        /// Font weight, a whole number from 1 to 1,000 (400 regular, 700 bold).
        public var weight: Int
        /// Font family; `system` is the platform's font, or the theme's `font`
        /// setting when it has one.
        public var family: String
        /// A text style; `weight` defaults to 400 and `family` to `system`.
        public init(size: Double, lineHeight: Double, weight: Int = 400, family: String = "system") {
            self.size = size
            self.lineHeight = lineHeight
            self.weight = weight
            self.family = family
        }
    }

    /// A text colour on a background colour, as theme lint checks it.
    public struct ContrastPair: Sendable, Hashable, Codable {
        /// The name of the text colour, a key of ``Theme/colors``.
        public var text: String
        /// The name of the background colour, a key of ``Theme/colors``.
        public var background: String
        /// Large text (≥ 18 pt, or ≥ 14 pt bold) needs 3:1 instead of 4.5:1.
        public var largeText: Bool
        /// A pair to check as body text, or as large text when `largeText` is true.
        public init(text: String, background: String, largeText: Bool = false) {
            self.text = text
            self.background = background
            self.largeText = largeText
        }
    }

    /// The theme's id, which a screen names in its `themeId`.
    public var id: String
    /// Colours by name (`primary`, `textPrimary`, …), each with a light and a dark value.
    public var colors: [String: ColorPair]
    /// Text styles by name (`headingLarge`, `body`, …).
    public var typography: [String: Typography]
    /// Spacing by name (`xs`, `sm`, `md`, …), in points.
    public var spacing: [String: Double]
    /// Corner radii by name (`sm`, `md`, `lg`), in points.
    public var radius: [String: Double]
    /// Animation durations by name (`quickTransition`, …), in milliseconds.
    public var animations: [String: Double]
    /// Gesture settings by name (`@gesture.swipeThreshold`): `swipeThreshold`
    /// (points), `swipeVelocity` (points per second), `longPressDuration`
    /// (milliseconds), `pinchMin` and `pinchMax` (scale factors).
    public var gestures: [String: Double]
    /// Free-form settings by name: `buttonStyle` (`filled` or `outline`),
    /// `radius` (`sm`, `md` or `lg`) and `font` (a family name).
    public var settings: [String: String]
    /// Pairs to check besides those derived from colour names (see ThemeLint).
    public var contrastPairs: [ContrastPair]

    /// The largest size, line height, spacing, radius (points) or animation
    /// (milliseconds) a theme file may give; anything beyond is an error, so
    /// scaled values stay finite.
    public static let maxLength: Double = 10_000

    /// A theme from its groups; every group defaults to empty.
    public init(id: String, colors: [String: ColorPair] = [:], typography: [String: Typography] = [:],
                spacing: [String: Double] = [:], radius: [String: Double] = [:],
                animations: [String: Double] = [:], settings: [String: String] = [:],
                contrastPairs: [ContrastPair] = [], gestures: [String: Double] = [:]) {
        self.id = id
        self.colors = colors
        self.typography = typography
        self.spacing = spacing
        self.radius = radius
        self.animations = animations
        self.gestures = gestures
        self.settings = settings
        self.contrastPairs = contrastPairs
    }

    /// This theme with every name it lacks taken from `base`.
    public func merged(over base: Theme) -> Theme {
        func keep<V>(_ mine: [String: V], _ theirs: [String: V]) -> [String: V] {
            mine.merging(theirs) { m, _ in m }
        }
        return Theme(id: id, colors: keep(colors, base.colors), typography: keep(typography, base.typography),
                     spacing: keep(spacing, base.spacing), radius: keep(radius, base.radius),
                     animations: keep(animations, base.animations), settings: keep(settings, base.settings),
                     contrastPairs: contrastPairs.isEmpty ? base.contrastPairs : contrastPairs,
                     gestures: keep(gestures, base.gestures))
    }

    /// The gesture settings of the SDK's theme: a swipe of 50 pt at 500 pt/s,
    /// a long press of 0.5 s, a pinch between 0.5× and 3×.
    public static let defaultGestures: [String: Double] = [
        "swipeThreshold": 50, "swipeVelocity": 500, "longPressDuration": 500, "pinchMin": 0.5, "pinchMax": 3,
    ]

    /// The theme used when neither screen nor flow names one: neutral light
    /// and dark colours that pass AA, spacing on the 4 pt grid, three
    /// animation timings, and the short typography names title/body/caption
    /// next to the long ones (headingLarge, bodyMedium, …).
    public static let sdkFallback: Theme = {
        func c(_ light: String, _ dark: String) -> ColorPair {
            ColorPair(light: try! RGBColor(hex: light), dark: try! RGBColor(hex: dark))
        }
        let headingLarge = Typography(size: 28, lineHeight: 34, weight: 700)
        let bodyMedium = Typography(size: 16, lineHeight: 24, weight: 400)
        let caption = Typography(size: 12, lineHeight: 16, weight: 400)
        return Theme(
            id: "sdk_fallback",
            colors: [
                "background": c("#FFFFFF", "#0F172A"),
                "surface": c("#F3F4F6", "#1E293B"),
                "surfaceVariant": c("#E5E7EB", "#334155"),
                "primary": c("#1D4ED8", "#93C5FD"),
                "onPrimary": c("#FFFFFF", "#0F172A"),
                "secondary": c("#0F766E", "#5EEAD4"),
                "textPrimary": c("#111827", "#F1F5F9"),
                "textSecondary": c("#4B5563", "#CBD5E1"),
                "divider": c("#D1D5DB", "#475569"),
                "error": c("#B91C1C", "#FCA5A5"),
                "success": c("#15803D", "#86EFAC"),
            ],
            typography: [
                "headingLarge": headingLarge,
                "headingMedium": Typography(size: 22, lineHeight: 28, weight: 600),
                "bodyLarge": Typography(size: 18, lineHeight: 26, weight: 400),
                "bodyMedium": bodyMedium,
                "bodySmall": Typography(size: 14, lineHeight: 20, weight: 400),
                "caption": caption,
                "title": headingLarge, "body": bodyMedium,
            ],
            spacing: ["xs": 4, "sm": 8, "md": 16, "lg": 24, "xl": 32],
            radius: ["sm": 4, "md": 8, "lg": 16],
            animations: ["quickTransition": 200, "standardTransition": 300, "slowTransition": 500],
            settings: ["buttonStyle": "filled", "font": "system"],
            contrastPairs: [],
            gestures: Theme.defaultGestures)
    }()
}

// MARK: JSON

extension Theme {
    /// Reads a theme from its JSON (schemas/theme.json: the full or the flat
    /// form), parsed by the core's parser.  Text that is not JSON is a
    /// `.json` error with its line and column; a value of the wrong shape is
    /// `.schema`.  Errors name `source`, and the member.
    public init(json: Data, source: String? = nil) throws {
        try self.init(value: try JSONValue(json: json, source: source), source: source)
    }

    /// Reads a theme file: schemas/theme.json (full, or flat) when the
    /// top level has a string `id`, otherwise the W3C Design Tokens format
    /// (``DTCGImport``), whose theme id is the file name without
    /// `.tokens.json` or `.json`.
    public init(contentsOf url: URL) throws {
        let data = try FileInput.read(url.path, limit: FileInput.documentLimit)
        try self.init(document: data, fileName: url.lastPathComponent, source: url.path)
    }

    /// Reads a theme document in any of the forms ``init(contentsOf:)``
    /// takes, from bytes already read (standard input, say): a W3C Design
    /// Tokens document's theme id is `fileName` without `.tokens.json` or
    /// `.json`.  Errors name `source`.
    public init(document data: Data, fileName: String, source: String?) throws {
        let value = try JSONValue(json: data, source: source)
        if value["id"]?.stringValue != nil {
            try self.init(value: value, source: source)
        } else {
            var id = fileName
            for suffix in [".tokens.json", ".json"] where id.hasSuffix(suffix) {
                id = String(id.dropLast(suffix.count))
                break
            }
            self = try DTCGImport.theme(value, id: id, source: source)
        }
    }

    /// Reads a theme from a parsed JSON value.
    public init(value: JSONValue, source: String? = nil) throws {
        func fail(_ path: String, _ message: String) -> SDUIError {
            SDUIError(.schema, "\(path): \(message)", input: source)
        }
        guard let root = value.objectValue else { throw fail("the top level", "a theme is a JSON object") }
        guard let id = root["id"]?.stringValue, !id.isEmpty else {
            throw fail("id", "a theme needs a non-empty string \"id\"")
        }
        self.init(id: id)

        if let flat = root["tokens"] {
            // The flat form.
            guard let members = flat.objectValue else { throw fail("tokens", "must be an object") }
            for (name, v) in members {
                guard let s = v.stringValue else { throw fail("tokens.\(name)", "must be a string") }
                if s.hasPrefix("#") {
                    do { colors[name] = ColorPair(try RGBColor(hex: s)) }
                    catch { throw fail("tokens.\(name)", "\"\(s)\" is not a colour (#RGB, #RRGGBB or #RRGGBBAA)") }
                } else {
                    settings[name] = s
                }
            }
            return
        }

        func object(_ key: String) throws -> [String: JSONValue] {
            guard let v = root[key] else { return [:] }
            guard let o = v.objectValue else { throw fail(key, "must be an object") }
            return o
        }
        func color(_ v: JSONValue, _ path: String) throws -> RGBColor {
            guard let s = v.stringValue, let c = try? RGBColor(hex: s) else {
                throw fail(path, "expected a colour (#RGB, #RRGGBB or #RRGGBBAA)")
            }
            return c
        }
        func number(_ v: JSONValue?, _ path: String, min: Double = 0, max: Double = Theme.maxLength) throws -> Double {
            guard let d = v?.doubleValue, d.isFinite, d >= min, d <= max else {
                throw fail(path, "expected a number from \(JSONValue.text(min)) to \(JSONValue.text(max))")
            }
            return d
        }
        for (name, v) in try object("colors") {
            let path = "colors.\(name)"
            if let pair = v.objectValue {
                guard let l = pair["light"], let d = pair["dark"] else {
                    throw fail(path, "needs both \"light\" and \"dark\"")
                }
                colors[name] = ColorPair(light: try color(l, path + ".light"), dark: try color(d, path + ".dark"))
            } else {
                colors[name] = ColorPair(try color(v, path))
            }
        }
        for (name, v) in try object("typography") {
            let path = "typography.\(name)"
            guard let t = v.objectValue else { throw fail(path, "must be an object with size and lineHeight") }
            let size = try number(t["size"], path + ".size", min: 1)
            let lineHeight = try t["lineHeight"].map { try number($0, path + ".lineHeight", min: 1) } ?? size * 1.25
            var weight = 400
            if let w = t["weight"] {
                guard let d = w.doubleValue, (1...1000).contains(d), d.rounded() == d else {
                    throw fail(path + ".weight", "must be a whole number from 1 to 1000")
                }
                weight = Int(d)
            }
            var family = "system"
            if let f = t["family"] {
                guard let s = f.stringValue, !s.isEmpty else { throw fail(path + ".family", "must be a string") }
                family = s
            }
            typography[name] = Typography(size: size, lineHeight: lineHeight, weight: weight, family: family)
        }
        for (name, v) in try object("spacing") { spacing[name] = try number(v, "spacing.\(name)") }
        for (name, v) in try object("radius") { radius[name] = try number(v, "radius.\(name)") }
        for (name, v) in try object("animations") { animations[name] = try number(v, "animations.\(name)") }
        for (name, v) in try object("gestures") { gestures[name] = try number(v, "gestures.\(name)") }
        for (name, v) in try object("settings") {
            guard let s = v.stringValue else { throw fail("settings.\(name)", "must be a string") }
            settings[name] = s
        }
        if let pairs = root["contrastPairs"] {
            guard let list = pairs.arrayValue else { throw fail("contrastPairs", "must be an array") }
            for (i, p) in list.enumerated() {
                let path = "contrastPairs[\(i)]"
                guard let text = p["text"]?.stringValue, let bg = p["background"]?.stringValue else {
                    throw fail(path, "needs string \"text\" and \"background\" colour names")
                }
                guard colors[text] != nil else { throw fail(path + ".text", "no colour named \"\(text)\"") }
                guard colors[bg] != nil else { throw fail(path + ".background", "no colour named \"\(bg)\"") }
                contrastPairs.append(ContrastPair(text: text, background: bg,
                                                  largeText: p["largeText"]?.boolValue ?? false))
            }
        }
    }

    /// The theme as JSON in the form of schemas/theme.json.
    public var jsonValue: JSONValue {
        var root: [String: JSONValue] = ["id": .string(id)]
        root["colors"] = .object(colors.mapValues { p in
            p.light == p.dark ? .string(p.light.description)
                : .object(["light": .string(p.light.description), "dark": .string(p.dark.description)])
        })
        root["typography"] = .object(typography.mapValues { t in
            .object(["size": .double(t.size), "lineHeight": .double(t.lineHeight),
                     "weight": .int(Int64(t.weight)), "family": .string(t.family)])
        })
        root["spacing"] = .object(spacing.mapValues { .double($0) })
        root["radius"] = .object(radius.mapValues { .double($0) })
        root["animations"] = .object(animations.mapValues { .double($0) })
        if !gestures.isEmpty { root["gestures"] = .object(gestures.mapValues { .double($0) }) }
        if !settings.isEmpty { root["settings"] = .object(settings.mapValues { .string($0) }) }
        if !contrastPairs.isEmpty {
            root["contrastPairs"] = .array(contrastPairs.map {
                .object(["text": .string($0.text), "background": .string($0.background),
                         "largeText": .bool($0.largeText)])
            })
        }
        return .object(root)
    }
}
