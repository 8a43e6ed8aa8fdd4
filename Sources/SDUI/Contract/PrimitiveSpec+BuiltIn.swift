// PrimitiveSpec+BuiltIn.swift - the built-in primitives, one row each.
import Foundation
import SDUICore

extension PrimitiveSpec {
    /// The built-in primitives in `X-Primitives` order: the core five
    /// (Column 3, Row 2, Text 4, AsyncImage 2, Spacer 1), the form
    /// primitives the built-in blocks are drawn with, then the rest.  Each
    /// row has an entry in `schemas/primitives.json`.
    public static let builtIn: [PrimitiveSpec] = [
        PrimitiveSpec("Column", version: 3, props: box, accessibility: AccessibilityRule(.group),
                      gestures: ["swipe", "longPress"], preview: HTMLPreview.column),
        PrimitiveSpec("Row", version: 2, props: box, accessibility: AccessibilityRule(.group),
                      gestures: ["swipe", "longPress"], preview: HTMLPreview.row),
        PrimitiveSpec("Text", version: 4, props: [
            "text": .required(.string), "style": .optional(.typography), "color": .optional(.color),
            "maxLines": .optional(.number), "padding": .optional(.length),
            "action": .optional(.action), "visible": .optional(.bool), "fixedSize": .optional(.bool),
        ], themeNames: ["style": .typography], accessibility: AccessibilityRule(.text, label: ["text"]),
           gestures: ["longPress"], preview: HTMLPreview.text),
        PrimitiveSpec("AsyncImage", version: 2, props: [
            "url": .required(.string), "width": .optional(.length), "height": .optional(.length),
            "cornerRadius": .optional(.length), "placeholderColor": .optional(.color),
            "aspectRatio": .optional(.number), "visible": .optional(.bool),
        ], accessibility: AccessibilityRule(.image, traits: [.image]),
           gestures: ["longPress", "pinch"], preview: HTMLPreview.image),
        PrimitiveSpec("Spacer", version: 1, props: [
            "size": .optional(.length), "flexible": .optional(.bool), "background": .optional(.color),
        ], themeNames: ["size": .spacing], accessibility: AccessibilityRule(.none), preview: HTMLPreview.spacer),
        PrimitiveSpec("Button", version: 1, props: [
            "label": .required(.string), "action": .optional(.action), "style": .optional(.string),
            "background": .optional(.color), "color": .optional(.color),
            "cornerRadius": .optional(.length), "height": .optional(.length),
            "padding": .optional(.length), "visible": .optional(.bool),
        ], accessibility: AccessibilityRule(.button, label: ["label"], traits: [.button]),
           gestures: ["longPress"], preview: HTMLPreview.button),
        PrimitiveSpec("TextField", version: 1, props: [
            "key": .required(.string), "label": .optional(.string),
            "placeholder": .optional(.string), "secure": .optional(.bool),
            "padding": .optional(.length), "required": .optional(.bool),
        ], accessibility: AccessibilityRule(.textField, label: ["label"]), preview: HTMLPreview.textField),
        PrimitiveSpec("Slider", version: 1, props: [
            "key": .required(.string), "min": .required(.number), "max": .required(.number),
            "step": .optional(.number), "tint": .optional(.color), "padding": .optional(.length),
            "required": .optional(.bool),
        ], accessibility: AccessibilityRule(.slider, label: ["label"], traits: [.adjustable]) { props in
            (props["value"] ?? props["min"]).flatMap { v -> String? in
                if case .int(let i) = v { return String(i) }
                if case .double(let d) = v, d.isFinite { return JSONValue.text(d) }
                return nil
            }
        }, preview: HTMLPreview.slider),
        PrimitiveSpec("Choice", version: 1, props: [
            "key": .required(.string), "options": .required(.array), "mode": .optional(.string),
            "spacing": .optional(.length), "required": .optional(.bool),
        ], accessibility: AccessibilityRule(.radioGroup, label: ["label"]), preview: HTMLPreview.choice),
        PrimitiveSpec("Toggle", version: 1, props: [
            "key": .required(.string), "value": .optional(.bool), "tint": .optional(.color),
            "label": .optional(.string), "padding": .optional(.length), "required": .optional(.bool),
        ], accessibility: AccessibilityRule(.toggle, label: ["label"]) { props in
            props["value"]?.boolValue == true ? "on" : "off"
        }, preview: HTMLPreview.toggle),
        PrimitiveSpec("Badge", version: 1, props: [
            "text": .required(.string), "color": .optional(.color), "background": .optional(.color),
            "cornerRadius": .optional(.length), "padding": .optional(.length), "visible": .optional(.bool),
        ], accessibility: AccessibilityRule(.status, label: ["text"]), preview: HTMLPreview.badge),
    ]

    /// The props of the containers (Column, Row).
    private static let box: [String: PropRule] = [
        "spacing": .optional(.length), "padding": .optional(.length),
        "background": .optional(.color), "cornerRadius": .optional(.length),
        "alignment": .optional(.string), "action": .optional(.action), "visible": .optional(.bool),
    ]
}
