// BlockStyle.swift - what a theme asks of every block: button style and corner radius.
import Foundation
import SDUICore

/// What a theme's settings ask of every block: the button style
/// (`"buttonStyle": "filled" | "outline"`, default filled) and the corner
/// radius name (`"radius": "sm" | "md" | "lg"`) for cards, images and
/// buttons.  Other values fall back to the defaults.
public struct BlockStyle: Sendable, Equatable {
    /// How the primary CTA is drawn: `filled` (the primary colour behind the
    /// label) or `outline` (a border and label in the primary colour).
    public enum ButtonStyle: String, Sendable { case filled, outline }
    /// The primary CTA's style (default `filled`).
    public var buttonStyle: ButtonStyle
    /// A radius name, or nil for each block's own default.
    public var radius: String?

    /// A style from its parts: by default a filled button and each block's own radius.
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
