// BuiltInBlocks.swift - the renderers of the ten built-in blocks.
import Foundation
import SDUICore

/// The built-in block renderers.  Layout follows these rules: one
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

    /// Single or multiple choice over `options` of `{label, value}`, named
    /// by the block's `label` (its accessible name).
    static func choice(_ f: Fields) throws -> JSONValue {
        let key = try string(f, "key")
        guard let options = f["options"]?.arrayValue, !options.isEmpty else {
            throw SDUIError(.schema, "needs a non-empty list \"options\"")
        }
        for (i, o) in options.enumerated() where o["label"]?.stringValue == nil || o["value"] == nil {
            throw SDUIError(.schema, "options[\(i)] needs a string \"label\" and a \"value\"")
        }
        let multi = f["multiple"]?.boolValue ?? (f["mode"]?.stringValue == "multi")
        var props: Fields = ["key": .string(key), "options": .array(options), "mode": .string(multi ? "multi" : "single"),
                             "style": .string(try optionalString(f, "style") ?? "list"),
                             "spacing": "@spacing.sm", "padding": sidePadding]
        // The block's label is the input's accessible name (the screen's heading shows the question).
        if let label = try optionalString(f, "label") { props["accessibilityLabel"] = .string(label) }
        try required(f, &props)
        return n("Choice", 1, props)
    }

    /// A text field bound to `key`.
    static func textInput(_ f: Fields) throws -> JSONValue {
        let key = try string(f, "key")
        var props: Fields = ["key": .string(key), "padding": sidePadding]
        for k in ["label", "placeholder", "keyboard"] { if let s = try optionalString(f, k) { props[k] = .string(s) } }
        try required(f, &props)
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
        try required(f, &props)
        return n("Slider", 1, props)
    }

    /// An on/off switch bound to `key`, with an optional label and default.
    static func toggle(_ f: Fields) throws -> JSONValue {
        let key = try string(f, "key")
        var props: Fields = ["key": .string(key), "tint": "@color.primary", "padding": sidePadding]
        if let label = try optionalString(f, "label") { props["label"] = .string(label) }
        if let d = f["default"] {
            guard let b = d.boolValue else { throw SDUIError(.schema, "\"default\" must be true or false") }
            props["value"] = .bool(b)
        }
        try required(f, &props)
        return n("Toggle", 1, props)
    }

    /// Copies an input block's `required: true` to its node, where a screen
    /// session reads it (a flow reads it from the block).
    static func required(_ f: Fields, _ props: inout Fields) throws {
        guard let r = f["required"] else { return }
        guard let b = r.boolValue else { throw SDUIError(.schema, "\"required\" must be true or false") }
        if b { props["required"] = true }
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
                text(icon, "bodyMedium", "primary", ["fixedSize": true]), text(line, "bodyMedium", "textPrimary")])])
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
