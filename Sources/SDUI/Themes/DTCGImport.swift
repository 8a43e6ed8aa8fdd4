// DTCGImport.swift - reads a W3C Design Tokens Community Group file into a Theme.
import Foundation
import SDUICore

/// Imports the W3C Design Tokens Community Group format into a ``Theme``.
///
/// - A token is an object with `$value`; any other object is a group.
///   `$type` is the token's own or the nearest enclosing group's.  Other
///   `$`-members (`$description`, `$extensions`, …) are not names.
/// - An alias is a string value `{group.token}`; it takes the value (and,
///   without a `$type` of its own, the type) of the token it names.  Aliases
///   may chain; inside composite values (typography) members may be aliases
///   too.  A cycle is an error that lists it: `color.a → color.b → color.a`;
///   so is a chain deeper than ``maxAliasDepth``.
/// - Dark values: `$extensions` → `"com.sdui"` → `"dark"` holds the token's
///   value in dark mode (itself a value or an alias, resolved in dark mode).
/// - Mapping: `color` tokens become colours; `dimension` tokens under a
///   top-level `spacing`/`space` group become spacing and under
///   `radius`/`borderRadius` radius; `duration` tokens become animations;
///   `typography` tokens become typography.  A token's theme name is its
///   path without the top-level group, in lower camel case
///   (`color.text.primary` → `textPrimary`).  Other tokens serve as alias
///   targets only.
/// - Values: colours as hex strings or `{"hex": …}` objects; dimensions as
///   numbers, `"16px"`, `"1rem"` (16 px) or `{"value": 16, "unit": "px"}`;
///   durations as `"200ms"`, `"0.2s"` or `{"value": 200, "unit": "ms"}`;
///   font weights as numbers or names (`bold`); line heights as a multiple
///   of the font size or a dimension.
///
/// Errors are `.schema`, naming `source` and the token path.
public enum DTCGImport {
    /// How many aliases may lead to a value (`{a}` → `{b}` → … ).
    public static let maxAliasDepth = 64

    struct Entry {
        var value: JSONValue
        var dark: JSONValue?
        var type: String?
    }

    /// A theme with the given id from a DTCG JSON document.
    public static func theme(json: Data, id: String, source: String? = nil) throws -> Theme {
        try theme(try JSONValue(json: json, source: source), id: id, source: source)
    }

    /// A theme with the given id from a parsed DTCG document.
    public static func theme(_ root: JSONValue, id: String, source: String? = nil) throws -> Theme {
        var importer = Importer(source: source)
        guard case .object(let members) = root else { throw importer.fail("the top level", "must be an object") }
        try importer.collect(members, path: [], inherited: nil)
        return try importer.build(id: id)
    }

    struct Importer {
        let source: String?
        var entries: [String: Entry] = [:]
        var order: [String] = []

        func fail(_ path: String, _ message: String) -> SDUIError {
            SDUIError(.schema, "\(path): \(message)", input: source)
        }

        /// Walks groups, recording every token with its inherited type.
        mutating func collect(_ group: [String: JSONValue], path: [String], inherited: String?) throws {
            var type = inherited
            if let t = group["$type"] {
                guard let s = t.stringValue else { throw fail(path.joined(separator: "."), "$type must be a string") }
                type = s
            }
            for name in group.keys.sorted() where !name.hasPrefix("$") {
                let p = path + [name]
                let dotted = p.joined(separator: ".")
                guard !name.isEmpty, !name.contains("."), !name.contains("{"), !name.contains("}") else {
                    let shown = name.isEmpty ? (path + [#""""#]).joined(separator: ".") : dotted
                    throw fail(shown, "a name must be non-empty, without '.', '{' or '}'")
                }
                guard case .object(let o) = group[name]! else {
                    throw fail(dotted, "expected a token (an object with $value) or a group")
                }
                if let v = o["$value"] {
                    var own = type
                    if let t = o["$type"] {
                        guard let s = t.stringValue else { throw fail(dotted, "$type must be a string") }
                        own = s
                    }
                    let dark = o["$extensions"]?["com.sdui"]?["dark"]
                    entries[dotted] = Entry(value: v, dark: dark, type: own)
                    order.append(dotted)
                } else {
                    try collect(o, path: p, inherited: type)
                }
            }
        }

        /// `{a.b}` → `a.b`.
        static func alias(_ v: JSONValue) -> String? {
            guard let s = v.stringValue, s.count > 2, s.first == "{", s.last == "}" else { return nil }
            return String(s.dropFirst().dropLast())
        }

        /// Resolved values by mode and path, with the number of aliases
        /// followed to reach them: each token is resolved once per mode,
        /// however many aliases and composites share it.
        var resolved: [Bool: [String: (value: JSONValue, type: String?, depth: Int)]] = [:]

        /// The token's value in `mode` with every alias followed, its type,
        /// and how many aliases were followed.  `chain` is the aliases that
        /// led here (for the cycle message).  More than
        /// ``DTCGImport/maxAliasDepth`` aliases in a row is an error.
        mutating func resolve(_ path: String, dark: Bool, chain: [String] = [])
            throws -> (value: JSONValue, type: String?, depth: Int) {
            func tooDeep() -> SDUIError {
                fail(chain.first ?? path, "aliases nest deeper than \(DTCGImport.maxAliasDepth)")
            }
            if let done = resolved[dark]?[path] {
                guard chain.count + done.depth <= DTCGImport.maxAliasDepth else { throw tooDeep() }
                return done
            }
            if let i = chain.firstIndex(of: path) {
                throw fail(chain[0], "alias cycle: " + (chain[i...] + [path]).joined(separator: " → "))
            }
            guard chain.count <= DTCGImport.maxAliasDepth else { throw tooDeep() }
            guard let e = entries[path] else {
                throw fail(chain.last ?? path, "alias to \"{\(path)}\", which is not a token")
            }
            let raw = dark ? (e.dark ?? e.value) : e.value
            let next = chain + [path]
            var result: (value: JSONValue, type: String?, depth: Int) = (raw, e.type, 0)
            if let target = Self.alias(raw) {
                let t = try resolve(target, dark: dark, chain: next)
                result = (t.value, e.type ?? t.type, t.depth + 1)
            } else if case .object(let members) = raw {   // composite: members may be aliases
                var out: [String: JSONValue] = [:]
                var depth = 0
                for (k, m) in members {
                    if let target = Self.alias(m) {
                        let t = try resolve(target, dark: dark, chain: next)
                        out[k] = t.value
                        depth = max(depth, t.depth + 1)
                    } else {
                        out[k] = m
                    }
                }
                result = (.object(out), e.type, depth)
            }
            resolved[dark, default: [:]][path] = result
            return result
        }

        /// Maps every resolved token into the theme's groups.
        mutating func build(id: String) throws -> Theme {
            var theme = Theme(id: id)
            for path in order {
                let (light, type, _) = try resolve(path, dark: false)
                let dark = try resolve(path, dark: true).value
                let segments = path.split(separator: ".").map(String.init)
                let top = segments[0]
                let name = Self.camel(segments.count > 1 ? Array(segments.dropFirst()) : segments)
                switch type {
                case "color":
                    theme.colors[name] = Theme.ColorPair(light: try color(light, path), dark: try color(dark, path))
                case "dimension" where ["spacing", "space"].contains(top):
                    theme.spacing[name] = try dimension(light, path)
                case "dimension" where ["radius", "borderRadius", "radii"].contains(top):
                    theme.radius[name] = try dimension(light, path)
                case "duration":
                    theme.animations[name] = try duration(light, path)
                case "typography":
                    theme.typography[name] = try typography(light, path)
                case nil:
                    throw fail(path, "no $type on the token or its groups")
                default:
                    continue
                }
            }
            return theme
        }

        static func camel(_ parts: [String]) -> String {
            guard let first = parts.first else { return "" }
            return first + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        }

        func color(_ v: JSONValue, _ path: String) throws -> RGBColor {
            let hex = v.stringValue ?? v["hex"]?.stringValue
            guard let hex, let c = try? RGBColor(hex: hex) else {
                throw fail(path, "a color needs a hex value (#RRGGBB or #RRGGBBAA)")
            }
            return c
        }

        /// A dimension in points, from 0 to ``Theme/maxLength``.
        func dimension(_ v: JSONValue, _ path: String) throws -> Double {
            try inRange(anyDimension(v, path), "px", path)
        }

        /// `d` when it is from 0 to ``Theme/maxLength`` (in `unit`).
        func inRange(_ d: Double, _ unit: String, _ path: String) throws -> Double {
            guard d.isFinite, d >= 0, d <= Theme.maxLength else {
                throw fail(path, "must be from 0 to \(JSONValue.text(Theme.maxLength)) \(unit)")
            }
            return d
        }

        func anyDimension(_ v: JSONValue, _ path: String) throws -> Double {
            if let d = v.doubleValue { return d }
            if let value = v["value"]?.doubleValue, let unit = v["unit"]?.stringValue {
                return try scale(value, unit, path)
            }
            if let s = v.stringValue {
                let digits = s.prefix { $0.isNumber || $0 == "." || $0 == "-" }
                if let d = Double(digits) { return try scale(d, String(s.dropFirst(digits.count)), path) }
            }
            throw fail(path, "a dimension is a number, \"16px\", \"1rem\" or {\"value\", \"unit\"}")
        }

        func scale(_ d: Double, _ unit: String, _ path: String) throws -> Double {
            switch unit {
            case "px", "pt", "": return d
            case "rem", "em": return d * 16
            default: throw fail(path, "unknown unit \"\(unit)\" (px or rem)")
            }
        }

        /// A duration in milliseconds, from 0 to ``Theme/maxLength``.
        func duration(_ v: JSONValue, _ path: String) throws -> Double {
            try inRange(anyDuration(v, path), "ms", path)
        }

        func anyDuration(_ v: JSONValue, _ path: String) throws -> Double {
            if let d = v.doubleValue { return d }
            var value: Double?, unit: String?
            if let d = v["value"]?.doubleValue { (value, unit) = (d, v["unit"]?.stringValue) }
            else if let s = v.stringValue {
                let digits = s.prefix { $0.isNumber || $0 == "." }
                (value, unit) = (Double(digits), String(s.dropFirst(digits.count)))
            }
            switch (value, unit) {
            case (let d?, "ms"): return d
            case (let d?, "s"): return d * 1000
            default: throw fail(path, "a duration is \"200ms\", \"0.2s\" or {\"value\", \"unit\"}")
            }
        }

        func typography(_ v: JSONValue, _ path: String) throws -> Theme.Typography {
            guard let size = v["fontSize"] else { throw fail(path, "typography needs fontSize") }
            let px = try dimension(size, path + ".fontSize")
            guard px >= 1 else { throw fail(path + ".fontSize", "must be at least 1 px") }
            var lineHeight = px * 1.25
            if let lh = v["lineHeight"] {
                if let m = lh.doubleValue, m.isFinite, m > 0, m < 4 { lineHeight = px * m }
                else { lineHeight = try dimension(lh, path + ".lineHeight") }
                guard lineHeight >= 1 else { throw fail(path + ".lineHeight", "must be at least 1 px") }
            }
            var weight = 400
            if let w = v["fontWeight"] {
                if let n = w.intValue, (1...1000).contains(n) { weight = Int(n) }
                else if let s = w.stringValue, let n = Self.weights[s.lowercased()] { weight = n }
                else { throw fail(path + ".fontWeight", "a number 1–1000 or a weight name such as bold") }
            }
            var family = "system"
            if let f = v["fontFamily"] {
                if let s = f.stringValue { family = s }
                else if let s = f[0]?.stringValue { family = s }
            }
            return Theme.Typography(size: px, lineHeight: lineHeight.rounded(), weight: weight, family: family)
        }

        static let weights: [String: Int] = [
            "thin": 100, "hairline": 100, "extra-light": 200, "ultra-light": 200, "light": 300,
            "normal": 400, "regular": 400, "book": 400, "medium": 500, "semi-bold": 600, "demi-bold": 600,
            "bold": 700, "extra-bold": 800, "ultra-bold": 800, "black": 900, "heavy": 900,
        ]
    }
}
