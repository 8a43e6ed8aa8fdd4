// BlockRegistry.swift - routes each block type to its renderer.
import Foundation
import SDUICore

/// Routes each block type to a renderer (the Block Registry).
///
/// A renderer turns a block's fields, and the theme's ``BlockStyle``, into
/// one node in token form,
/// `{"primitive", "primitiveVersion", "props"}`, which then resolves like
/// any token: `@group.name` theme references, `{{path}}` host bindings,
/// prop rules and version checks all apply.  A renderer throws
/// a `.schema` `SDUIError` for fields it cannot use.  An unknown type, or a thrown
/// error, becomes a placeholder and a `render_error` event.
public struct BlockRegistry: Sendable {
    /// A block renderer: takes the block's JSON object (`type` included) and the
    /// theme's style, returns one node in token form; throws a `.schema` `SDUIError`
    /// for fields it cannot use.
    public typealias Renderer = @Sendable ([String: JSONValue], BlockStyle) throws -> JSONValue
    private var renderers: [String: Renderer]

    /// An empty registry; ``builtIn`` has the ten built-in blocks.
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

    /// The renderer of block `type`; nil when none is registered.
    public func renderer(for type: String) -> Renderer? { renderers[type] }

    /// Block types with a renderer, sorted.
    public var types: [String] { renderers.keys.sorted() }

    /// The eleven built-in blocks: header, media, choice, text_input, slider,
    /// toggle, benefits_list, testimonial, cta, spacer and footer.
    public static let builtIn: BlockRegistry = {
        var r = BlockRegistry()
        r.register("header", Blocks.header)
        r.register("media", Blocks.media)
        r.register("choice", Blocks.choice)
        r.register("text_input", Blocks.textInput)
        r.register("slider", Blocks.slider)
        r.register("toggle", Blocks.toggle)
        r.register("benefits_list", Blocks.benefitsList)
        r.register("testimonial", Blocks.testimonial)
        r.register("cta", Blocks.cta)
        r.register("spacer", Blocks.spacer)
        r.register("footer", Blocks.footer)
        return r
    }()
}
