// BlockRegistry.swift - seed 001 block screens and the renderers of their blocks.
import Foundation
import SDUICore

/// A seed 001 screen: an ordered list of blocks in one scrolling column.
///
///     {"id": "screen_goal", "type": "standard", "themeId": "theme_mint_dark",
///      "blocks": [{"type": "header", "title": "What is your goal?"}, …]}
public struct BlockScreen: Sendable, Hashable, Codable {
    public var id: String
    public var type: String?
    public var themeId: String?
    /// Each block is an object with a string `type`; its other fields
    /// belong to that type's renderer.
    public var blocks: [JSONValue]

    public init(id: String, type: String? = "standard", themeId: String? = nil, blocks: [JSONValue]) {
        self.id = id
        self.type = type
        self.themeId = themeId
        self.blocks = blocks
    }

    /// Decodes a block screen; errors name `source`.
    public init(json: Data, source: String? = nil) throws {
        do {
            self = try JSONDecoder().decode(BlockScreen.self, from: json)
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw SDUIError(.schema, "missing \"\(key.stringValue)\" at \(ScreenPayload.path(ctx))", input: source)
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw SDUIError(.schema, "wrong type at \(ScreenPayload.path(ctx))", input: source)
        } catch {
            throw SDUIError.notJSON(json, error, what: "not a block screen", input: source)
        }
    }
}

/// What a theme's seed 001 settings ask of every block: the button style
/// (`"buttonStyle": "filled" | "outline"`, default filled) and the corner
/// radius name (`"radius": "sm" | "md" | "lg"`) for cards, images and
/// buttons.  Other values fall back to the defaults.
public struct BlockStyle: Sendable, Equatable {
    public enum ButtonStyle: String, Sendable { case filled, outline }
    public var buttonStyle: ButtonStyle
    /// A radius name, or nil for each block's own default.
    public var radius: String?

    public init(buttonStyle: ButtonStyle = .filled, radius: String? = nil) {
        self.buttonStyle = buttonStyle
        self.radius = radius
    }

    /// The style a theme's settings ask for.
    public init(settings: [String: String]) {
        buttonStyle = settings["buttonStyle"].flatMap(ButtonStyle.init(rawValue:)) ?? .filled
        radius = settings["radius"].flatMap { ["sm", "md", "lg"].contains($0) ? $0 : nil }
    }

    /// `@radius.<name>` for a block whose own default is `fallback`.
    func radius(_ fallback: String) -> JSONValue { .string("@radius.\(radius ?? fallback)") }
}

/// Routes each block type to a renderer (seed 001's Block Registry).
///
/// A renderer turns a block's fields, and the theme's ``BlockStyle``, into
/// one node in token form,
/// `{"primitive", "primitiveVersion", "props"}`, which then resolves like
/// any token: `@group.name` theme references, `{{path}}` host bindings,
/// prop rules and version checks all apply.  A renderer throws
/// a `.schema` ``SDUIError`` for fields it cannot use.  An unknown type, or a thrown
/// error, becomes a placeholder and a `render_error` event.
public struct BlockRegistry: Sendable {
    public typealias Renderer = @Sendable ([String: JSONValue], BlockStyle) throws -> JSONValue
    private var renderers: [String: Renderer]

    public init() { renderers = [:] }

    /// Adds or replaces the renderer of `type`.
    public mutating func register(_ type: String, _ renderer: @escaping Renderer) {
        renderers[type] = renderer
    }

    /// Adds or replaces the renderer of `type`, one that ignores the style.
    public mutating func register(_ type: String,
                                  _ renderer: @escaping @Sendable ([String: JSONValue]) throws -> JSONValue) {
        renderers[type] = { fields, _ in try renderer(fields) }
    }

    public func renderer(for type: String) -> Renderer? { renderers[type] }

    /// Block types with a renderer, sorted.
    public var types: [String] { renderers.keys.sorted() }

    /// Seed 001's ten V1 blocks: header, media, choice, text_input, slider,
    /// benefits_list, testimonial, cta, spacer and footer.
    public static let builtIn: BlockRegistry = {
        var r = BlockRegistry()
        r.register("header", Blocks.header)
        r.register("media", Blocks.media)
        r.register("choice", Blocks.choice)
        r.register("text_input", Blocks.textInput)
        r.register("slider", Blocks.slider)
        r.register("benefits_list", Blocks.benefitsList)
        r.register("testimonial", Blocks.testimonial)
        r.register("cta", Blocks.cta)
        r.register("spacer", Blocks.spacer)
        r.register("footer", Blocks.footer)
        return r
    }()
}

/// The built-in block renderers.  Layout follows seed 001's rules: one
/// vertical column, consistent horizontal padding, token-based spacing, and
/// the CTA pinned to the bottom safe area.
enum Blocks {
    typealias Fields = [String: JSONValue]

    static func n(_ primitive: String, _ version: Int, _ props: Fields) -> JSONValue {
        .object(["primitive": .string(primitive), "primitiveVersion": .int(Int64(version)), "props": .object(props)])
    }

    static func text(_ text: String, _ style: String, _ color: String, _ extra: Fields = [:]) -> JSONValue {
        n("Text", 4, extra.merging(["text": .string(text), "style": .string("@typography.\(style)"),
                                    "color": .string("@color.\(color)")]) { _, new in new })
    }

    static func string(_ f: Fields, _ key: String) throws -> String {
        guard let s = f[key]?.stringValue, !s.isEmpty else { throw SDUIError(.schema, "needs a non-empty string \"\(key)\"") }
        return s
    }

    static func optionalString(_ f: Fields, _ key: String) throws -> String? {
        guard let v = f[key] else { return nil }
        guard let s = v.stringValue else { throw SDUIError(.schema, "\"\(key)\" must be a string") }
        return s
    }

    static func number(_ f: Fields, _ key: String) throws -> Double? {
        guard let v = f[key] else { return nil }
        guard let d = v.doubleValue, d.isFinite else { throw SDUIError(.schema, "\"\(key)\" must be a number") }
        return d
    }

    static let sidePadding: JSONValue = .object(["horizontal": .string("@spacing.md")])

    /// Title and optional subtitle.
    static func header(_ f: Fields) throws -> JSONValue {
        var children = [text(try string(f, "title"), "title", "textPrimary", ["accessibilityRole": "header"])]
        if let sub = try optionalString(f, "subtitle") { children.append(text(sub, "bodyMedium", "textSecondary")) }
        return n("Column", 3, ["spacing": "@spacing.xs", "padding": sidePadding, "children": .array(children)])
    }

    /// An image from the CDN.  The URL must be HTTPS with a literal host
    /// (``ImageURLPolicy/structuralRejection(forTemplate:)``); the resolver
    /// checks the host against ``RenderContext/imagePolicy`` when one is set.
    static func media(_ f: Fields, _ style: BlockStyle) throws -> JSONValue {
        let url = try string(f, "url")
        if let r = ImageURLPolicy.structuralRejection(forTemplate: url) { throw SDUIError(.schema, "url: \(r)") }
        var props: Fields = ["url": .string(url), "cornerRadius": style.radius("lg"),
                             "placeholderColor": "@color.surface"]
        let ratio = try number(f, "aspectRatio") ?? 16.0 / 9.0
        guard ratio > 0, ratio <= 100 else { throw SDUIError(.schema, "\"aspectRatio\" must be above 0 and at most 100") }
        props["aspectRatio"] = .double(ratio)
        if let alt = try optionalString(f, "alt") { props["accessibilityLabel"] = .string(alt) }
        return n("Column", 3, ["padding": sidePadding, "children": .array([n("AsyncImage", 2, props)])])
    }

    /// Single or multiple choice over `options` of `{label, value}`.
    static func choice(_ f: Fields) throws -> JSONValue {
        let key = try string(f, "key")
        guard let options = f["options"]?.arrayValue, !options.isEmpty else {
            throw SDUIError(.schema, "needs a non-empty list \"options\"")
        }
        for (i, o) in options.enumerated() where o["label"]?.stringValue == nil || o["value"] == nil {
            throw SDUIError(.schema, "options[\(i)] needs a string \"label\" and a \"value\"")
        }
        let multi = f["multiple"]?.boolValue ?? (f["mode"]?.stringValue == "multi")
        return n("Choice", 1, ["key": .string(key), "options": .array(options), "mode": .string(multi ? "multi" : "single"),
                               "style": .string(try optionalString(f, "style") ?? "list"),
                               "spacing": "@spacing.sm", "padding": sidePadding])
    }

    /// A text field bound to `key`.
    static func textInput(_ f: Fields) throws -> JSONValue {
        let key = try string(f, "key")
        var props: Fields = ["key": .string(key), "padding": sidePadding]
        for k in ["label", "placeholder", "keyboard"] { if let s = try optionalString(f, k) { props[k] = .string(s) } }
        return n("TextField", 1, props)
    }

    /// A slider over [min, max].
    static func slider(_ f: Fields) throws -> JSONValue {
        let key = try string(f, "key")
        guard let lo = try number(f, "min"), let hi = try number(f, "max") else {
            throw SDUIError(.schema, "needs numbers \"min\" and \"max\"")
        }
        guard lo < hi else { throw SDUIError(.schema, "\"min\" must be below \"max\"") }
        var props: Fields = ["key": .string(key), "min": JSONValue.number(lo), "max": JSONValue.number(hi),
                             "tint": "@color.primary", "padding": sidePadding]
        if let step = try number(f, "step") {
            guard step > 0 else { throw SDUIError(.schema, "\"step\" must be above 0") }
            props["step"] = JSONValue.number(step)
        }
        if let d = try number(f, "default") { props["defaultValue"] = JSONValue.number(min(max(d, lo), hi)) }
        if let label = try optionalString(f, "label") { props["label"] = .string(label) }
        return n("Slider", 1, props)
    }

    /// A list of benefits, each with a check mark or its own icon.
    static func benefitsList(_ f: Fields) throws -> JSONValue {
        guard let items = f["items"]?.arrayValue, !items.isEmpty else {
            throw SDUIError(.schema, "needs a non-empty list \"items\"")
        }
        let rows: [JSONValue] = try items.enumerated().map { i, item in
            let (line, icon): (String, String)
            if let s = item.stringValue { (line, icon) = (s, "✓") }
            else if let s = item["text"]?.stringValue { (line, icon) = (s, item["icon"]?.stringValue ?? "✓") }
            else { throw SDUIError(.schema, "items[\(i)] must be a string or {\"text\": …}") }
            return n("Row", 2, ["spacing": "@spacing.sm", "alignment": "TOP", "children": .array([
                text(icon, "bodyMedium", "primary"), text(line, "bodyMedium", "textPrimary")])])
        }
        return n("Column", 3, ["spacing": "@spacing.sm", "padding": sidePadding, "children": .array(rows)])
    }

    /// A quote with its author, on a surface card.
    static func testimonial(_ f: Fields, _ style: BlockStyle) throws -> JSONValue {
        var children = [text(try string(f, "quote"), "bodyLarge", "textPrimary", ["fontStyle": "italic"])]
        if let author = try optionalString(f, "author") { children.append(text("— \(author)", "caption", "textSecondary")) }
        let card = n("Column", 3, ["spacing": "@spacing.sm", "padding": "@spacing.md", "background": "@color.surface",
                                   "cornerRadius": style.radius("md"), "children": .array(children)])
        return n("Column", 3, ["padding": sidePadding, "children": .array([card])])
    }

    /// Primary and optional secondary action, pinned to the bottom.
    static func cta(_ f: Fields, _ blockStyle: BlockStyle) throws -> JSONValue {
        func button(_ key: String, style: String) throws -> JSONValue? {
            guard let b = f[key] else { return nil }
            guard let label = b["label"]?.stringValue, !label.isEmpty else {
                throw SDUIError(.schema, "\(key) needs a non-empty string \"label\"")
            }
            let action: JSONValue
            switch b["action"] {
            case nil: action = .object(["type": "next"])
            case .string(let name)? where !name.isEmpty: action = .object(["type": .string(name)])
            case .object(let o)? where !(o["type"]?.stringValue ?? "").isEmpty: action = .object(o)
            default: throw SDUIError(.schema, "\(key).action must be an action name or an object with a string \"type\"")
            }
            var props: Fields = ["label": .string(label), "style": .string(style), "fullWidth": true,
                                 "action": action, "cornerRadius": blockStyle.radius("md")]
            switch style {
            case "filled":
                props["background"] = "@color.primary"
                props["color"] = "@color.onPrimary"
            case "outline":
                props["borderColor"] = "@color.primary"
                props["color"] = "@color.primary"
            default:
                props["color"] = "@color.primary"
            }
            return n("Button", 1, props)
        }
        guard let primary = try button("primary", style: blockStyle.buttonStyle.rawValue) else {
            throw SDUIError(.schema, "needs a \"primary\" action")
        }
        var children = [primary]
        if let secondary = try button("secondary", style: "text") { children.append(secondary) }
        return n("Column", 3, ["spacing": "@spacing.sm", "padding": .object(["horizontal": "@spacing.md",
                               "bottom": "@spacing.md"]), "pinToBottom": true, "children": .array(children)])
    }

    /// Vertical space by name (`xs/s/m/l/xl`; default `m`).
    static func spacer(_ f: Fields) throws -> JSONValue {
        let size = try optionalString(f, "size") ?? "m"
        guard ["xs", "s", "sm", "m", "md", "l", "lg", "xl"].contains(size) else {
            throw SDUIError(.schema, "\"size\" must be one of xs, s, m, l, xl")
        }
        return n("Spacer", 1, ["size": .string(size)])
    }

    /// Small print at the end of the screen.
    static func footer(_ f: Fields) throws -> JSONValue {
        n("Column", 3, ["padding": sidePadding, "alignment": "CENTER", "children": .array([
            text(try string(f, "text"), "caption", "textSecondary", ["textAlign": "center"])])])
    }
}
