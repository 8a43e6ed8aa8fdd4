// HTMLPreview+Primitives.swift - one drawing function per built-in primitive,
// each named by its row of PrimitiveSpec.builtIn, and the helpers they share.
import Foundation
import SDUICore

extension HTMLPreview {
    /// Column: a vertical flexbox (``container(_:_:axis:)``).
    static func column(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) { container(&r, n, axis: .column) }

    /// Row: a horizontal flexbox (``container(_:_:axis:)``).
    static func row(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) { container(&r, n, axis: .row) }

    /// Column or Row: a flexbox with gap, padding, alignment and box
    /// styles; its children are laid out along `axis`.
    static func container(_ r: inout Renderer, _ n: RenderNode, axis: Axis) {
        var css = CSS()
        box(n.props, into: &css, paddingIsMargin: false)
        css.set("gap", length(n.props["spacing"]))
        css.set("width", length(n.props["width"]))
        css.set("height", length(n.props["height"]))
        if let (property, value) = alignment(n.props["alignment"], axis: axis) {
            css.set(property, value)
        }
        r.write(openingTag("div", n, css: css))
        r.children(n, axis: axis)
        r.write("</div>")
    }

    /// Text: a paragraph styled from its typography object and text props.
    static func text(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) {
        var css = CSS()
        leaf(n.props, in: axis, into: &css)
        typography(n.props["style"], into: &css)
        css.set("color", color(n.props["color"]))
        css.set("text-align", keyword(n.props["textAlign"], textAligns))
        css.set("font-style", keyword(n.props["fontStyle"], fontStyles))
        css.set("text-transform", keyword(n.props["textTransform"], textTransforms))
        css.set("letter-spacing", number(n.props["letterSpacing"]).flatMap { abs($0) <= 100 ? format($0) + "px" : nil })
        lineClamp(n.props["maxLines"], into: &css)
        // `fixedSize`: keeps its own size in a row (an icon beside a line that wraps).
        if n.props["fixedSize"]?.boolValue == true { css.set("flex", "none") }
        var extra: [(String, String)] = []
        if let lang = n.props["lang"]?.stringValue { extra.append(("lang", lang)) }
        r.write(element("p", n, css: css, attributes: extra, content: escape(display(n.props["text"]) ?? "")))
    }

    /// AsyncImage: a sized box with the placeholder colour, the image as its
    /// background, so it still shows as a box when the image cannot load.
    static func image(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) {
        var css = CSS()
        leaf(n.props, in: axis, into: &css)
        imageSize(n.props, in: axis, into: &css)
        css.set("background-color", color(n.props["placeholderColor"]) ?? color(n.props["background"]) ?? "#E5E7EB")
        css.set("background-image", imageURL(n.props["url"]).map { "url(\"\($0)\")" })
        css.set("background-size", n.props["contentMode"]?.stringValue == "FIT" ? "contain" : nil)
        r.write(element("div", n, css: css, content: ""))   // role and label: openingTag's ARIA
    }

    /// Width, height and aspect ratio of an image; a missing width fills the
    /// parent, a missing height follows the aspect ratio (square, or 16:9).
    static func imageSize(_ props: [String: JSONValue], in axis: Axis, into css: inout CSS) {
        let width = length(props["width"])
        let ratio = number(props["aspectRatio"]).flatMap { $0 > 0 && $0 <= 100 ? format($0) : nil }
        if let width {
            css.set("width", width)
            css.set("flex-shrink", "0")
        } else if axis == .column {
            css.set("align-self", "stretch")
        } else {
            css.set("flex", "1 1 0")
        }
        if let height = length(props["height"]) {
            css.set("height", height)
        } else {
            css.set("aspect-ratio", ratio ?? (width != nil ? "1" : "16 / 9"))
        }
    }

    /// Spacer: a flexible gap (`flex: 1`) or a fixed one along the parent's axis.
    static func spacer(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) {
        var css = CSS()
        let size = length(n.props["size"])
        if let size, n.props["flexible"]?.boolValue != true {
            css.set("flex", "0 0 \(size)")
        } else {
            css.set("flex", "1 1 0")
        }
        css.set("background-color", color(n.props["background"]))
        if n.props["visible"]?.boolValue == false { css.set("display", "none") }
        r.write(element("div", n, css: css, content: ""))   // hidden: openingTag's ARIA
    }

    /// Button: a real button in the filled, outline or text style.
    static func button(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) {
        var css = CSS()
        leaf(n.props, in: axis, into: &css)
        buttonColors(n.props, into: &css)
        typography(n.props["style"], into: &css)
        css.set("border-radius", length(n.props["cornerRadius"]))
        css.set("height", length(n.props["height"]))
        if n.props["fullWidth"]?.boolValue == true {
            fill(axis, into: &css)
        } else if axis == .row {
            css.set("flex", "none")   // a control keeps its size in a row; the text beside it wraps
        }
        let label = escape(display(n.props["label"]) ?? "")
        r.write(element("button", n, css: css, attributes: [("type", "button")], content: label))
    }

    /// The colours of a button for its style (`filled` unless told otherwise).
    static func buttonColors(_ props: [String: JSONValue], into css: inout CSS) {
        let background = color(props["background"])
        let foreground = color(props["color"])
        switch props["style"]?.stringValue {
        case "outline":
            css.set("background-color", "transparent")
            css.set("color", foreground ?? "#111827")
            css.set("border-color", color(props["borderColor"]) ?? background ?? "currentColor")
        case "text":
            css.set("background-color", "transparent")
            css.set("color", foreground ?? "#111827")
        default:
            css.set("background-color", background ?? "#111827")
            css.set("color", foreground ?? "#FFFFFF")
        }
    }

    /// TextField: a label above a text input (a password input when `secure`).
    static func textField(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) {
        var css = CSS()
        leaf(n.props, in: axis, into: &css)
        var input: [(String, String)] = [("type", n.props["secure"]?.boolValue == true ? "password" : "text")]
        if let key = n.props["key"]?.stringValue { input.append(("name", key)) }
        if let hint = display(n.props["placeholder"]) { input.append(("placeholder", hint)) }
        if let value = display(n.props["value"]) { input.append(("value", value)) }
        r.write(element("label", n, css: css,
                        content: fieldLabel(n.props["label"], detail: nil) + "<input\(attributes(input))>" + fieldMessage(n)))
    }

    /// Slider: a label with the current value, over a range input.
    static func slider(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) {
        var css = CSS()
        leaf(n.props, in: axis, into: &css)
        css.set("accent-color", color(n.props["tint"]))
        let lower = number(n.props["min"]) ?? 0
        let upper = number(n.props["max"]) ?? 100
        let value = number(n.props["value"]) ?? number(n.props["defaultValue"]) ?? lower
        var input = [("type", "range"), ("min", format(lower)), ("max", format(upper)), ("value", format(value))]
        if let step = number(n.props["step"]), step > 0 { input.append(("step", format(step))) }
        if let key = n.props["key"]?.stringValue { input.append(("name", key)) }
        let unit = display(n.props["unit"]).map { " " + $0 } ?? ""
        let caption = fieldLabel(n.props["label"], detail: format(value) + unit)
        r.write(element("label", n, css: css, content: caption + "<input\(attributes(input))>" + fieldMessage(n)))
    }

    /// Choice: a fieldset of radio buttons (single) or checkboxes (multi),
    /// in a group named once per page.
    static func choice(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) {
        let group = r.nextGroup()
        let multi = n.props["mode"]?.stringValue == "multi"
        let selected = selectedValues(n.props["selected"])
        var css = CSS()
        leaf(n.props, in: axis, into: &css)
        css.set("gap", length(n.props["spacing"]))
        css.set("accent-color", color(n.props["tint"]))
        let options = (n.props["options"]?.arrayValue ?? []).map {
            option($0, group: group, multi: multi, selected: selected)
        }
        let legend = display(n.props["label"]).map {
            "<legend class=\"sdui-field-label\">\(escape($0))</legend>"
        } ?? ""
        let style = n.props["style"]?.stringValue == "list" ? "sdui-choice-list" : "sdui-choice-cards"
        r.write(element("fieldset", n, extraClass: style, css: css, content: legend + options.joined() + fieldMessage(n)))
    }

    /// Toggle: a checkbox drawn as a switch, tinted when on.
    static func toggle(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) {
        var css = CSS()
        leaf(n.props, in: axis, into: &css)
        css.set("--sdui-tint", color(n.props["tint"]))
        if axis == .row { css.set("flex", "none") }   // a switch keeps its size beside its text
        var input = [("type", "checkbox"), ("role", "switch")]
        if let key = n.props["key"]?.stringValue { input.append(("name", key)) }
        if n.props["value"]?.boolValue == true { input.append(("checked", "")) }
        let label = display(n.props["label"]).map { "<span>\(escape($0))</span>" } ?? ""
        r.write(element("label", n, css: css, content: "<input\(attributes(input))>" + label + fieldMessage(n)))
    }

    /// An input's validation message (its `message` prop, which a screen
    /// session sets from the store's rules), escaped; empty without one.
    static func fieldMessage(_ n: RenderNode) -> String {
        display(n.props["message"]).map { "<span class=\"sdui-field-message\" role=\"alert\">\(escape($0))</span>" } ?? ""
    }

    /// Badge: a short label in a pill (a count, "New", a status) that hugs
    /// its text: small semibold type in the given colours (grey and near
    /// black otherwise), fully rounded unless `cornerRadius` says otherwise.
    static func badge(_ r: inout Renderer, _ n: RenderNode, _ axis: Axis) {
        var css = CSS()
        css.set("align-self", axis == .column ? "flex-start" : "center")
        css.set("flex", "none")
        css.set("background-color", "#E5E7EB")
        css.set("border-radius", "999px")
        leaf(n.props, in: axis, into: &css)   // the token's background, radius, margin, alignment
        css.set("color", color(n.props["color"]) ?? "#111827")
        css.set("padding", "2px 8px")
        css.set("font-size", "12px")
        css.set("font-weight", "600")
        css.set("line-height", "16px")
        r.write(element("span", n, css: css, content: escape(display(n.props["text"]) ?? "")))
    }

    /// One option of a Choice: an input, the icon and the label.
    static func option(_ v: JSONValue, group: String, multi: Bool, selected: Set<String>) -> String {
        let value = display(v["value"]) ?? display(v["label"]) ?? ""
        var input = [("type", multi ? "checkbox" : "radio"), ("name", group), ("value", value)]
        if selected.contains(value) { input.append(("checked", "")) }
        let icon = display(v["icon"]).map { "<span class=\"sdui-option-icon\">\(escape($0))</span>" } ?? ""
        let label = "<span>\(escape(display(v["label"]) ?? value))</span>"
        return "<label class=\"sdui-option\"><input\(attributes(input))>\(icon)\(label)</label>"
    }

    /// The values a Choice's `selected` names: one string, or an array of them.
    static func selectedValues(_ v: JSONValue?) -> Set<String> {
        if let items = v?.arrayValue { return Set(items.compactMap(display)) }
        return Set([v].compactMap { display($0) })
    }

    /// The caption of a form field, with an optional value on the right.
    static func fieldLabel(_ label: JSONValue?, detail: String?) -> String {
        let text = display(label).map { "<span>\(escape($0))</span>" } ?? ""
        let extra = detail.map { "<output>\(escape($0))</output>" } ?? ""
        return text.isEmpty && extra.isEmpty ? "" : "<span class=\"sdui-field-label\">\(text)\(extra)</span>"
    }
}
