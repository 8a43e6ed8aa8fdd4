// PlaygroundOptions.swift - what the page's panels choose: theme, mode, text
// scale and the app's primitive map, checked as they come from the page.
#if Server
import Foundation
import SDUI
import SDUICore

/// The panels' choices for one page, and the render context they make.
package struct PlaygroundOptions: Sendable, Equatable {
    /// The theme id picked; nil for the screen's own (then the folder's first).
    package var theme: String?
    /// Light or dark.
    package var mode: ThemeMode = .light
    /// The text scale, 1.0 to 3.1.
    package var textScale: Double = 1
    /// The app's `X-Primitives` as typed; nil for the built-in map.
    package var primitives: String?
    /// The locale picked (canonical); nil for the catalogs' default.
    package var locale: String?

    /// The text scales the panel offers.
    package static let textScales: ClosedRange<Double> = 1.0...3.1

    package init() {}

    /// These options with the members `message` sets (`theme`, `mode`,
    /// `textScale`, `primitives`, `locale`; absent ones stay).
    ///
    /// - Throws: `.argument` naming the member for a value out of range or
    ///   of the wrong type, or a primitive map that does not parse.
    package func applying(_ message: JSONValue) throws -> PlaygroundOptions {
        var next = self
        if let theme = message["theme"] {
            switch theme {
            case .null: next.theme = nil
            case .string(let s): next.theme = s.isEmpty ? nil : String(s.prefix(256))
            default: throw SDUIError(.argument, "theme is a theme id or null", input: "options.theme")
            }
        }
        if let mode = message["mode"] {
            guard let text = mode.stringValue, let m = ThemeMode(rawValue: text) else {
                throw SDUIError(.argument, "mode is \"light\" or \"dark\"", input: "options.mode")
            }
            next.mode = m
        }
        if let scale = message["textScale"] {
            guard let d = scale.doubleValue, Self.textScales.contains(d) else {
                throw SDUIError(.argument, "textScale is a number from 1.0 to 3.1", input: "options.textScale")
            }
            next.textScale = d
        }
        if let locale = message["locale"] {
            switch locale {
            case .null: next.locale = nil
            case .string(let s) where s.isEmpty: next.locale = nil
            case .string(let s):
                do { next.locale = try LocaleTag(String(s.prefix(64))).identifier } catch {
                    throw SDUIError(.argument, "locale is a locale tag (de-CH) or null", input: "options.locale")
                }
            default: throw SDUIError(.argument, "locale is a locale tag or null", input: "options.locale")
            }
        }
        if let primitives = message["primitives"] {
            switch primitives {
            case .null: next.primitives = nil
            case .string(let s):
                let text = s.trimmingCharacters(in: .whitespaces)
                if !text.isEmpty { _ = try PrimitiveMap(parsing: text) }   // refused before it is kept
                next.primitives = text.isEmpty ? nil : text
            default: throw SDUIError(.argument, "primitives is an X-Primitives value or null", input: "options.primitives")
            }
        }
        return next
    }

    /// A render context for `themes`: the picked theme is the only one in
    /// the catalog (so it wins over the screen's own), else all of them with
    /// the first as the flow's; the app's primitive map is what it sent,
    /// whole, as an app's `X-Primitives` header is.
    package func context(themes: [Theme], strings: StringCatalog? = nil) -> RenderContext {
        var context = RenderContext()
        if let theme, let picked = themes.first(where: { $0.id == theme }) {
            context.themes = ThemeCatalog([picked])
            context.flowThemeID = picked.id
        } else {
            context.themes = ThemeCatalog(themes)
            context.flowThemeID = themes.first?.id
        }
        context.mode = mode
        context.textScale = textScale
        context.strings = strings
        context.locale = locale
        if let primitives, let map = try? PrimitiveMap(parsing: primitives) { context.primitives = map }
        context.logger.logLevel = .critical
        return context
    }

    /// The options as the page's `state` message carries them.
    package var json: JSONValue {
        ["theme": theme.map(JSONValue.string) ?? .null, "mode": .string(mode.rawValue),
         "textScale": .double(textScale), "primitives": primitives.map(JSONValue.string) ?? .null,
         "locale": locale.map(JSONValue.string) ?? .null]
    }
}
#endif
