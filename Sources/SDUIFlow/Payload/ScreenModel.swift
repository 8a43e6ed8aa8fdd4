// ScreenModel.swift - the normalized screen payload: templates refer to
// components by id, components to bodies by id; decoding joins them.
import Foundation
import SDUI
import SDUICore

/// A screen in the normalized form (schemas/normalized-screen.json), joined:
///
/// ```json
/// {"screenName": "home",
///  "templates": [{"id": "t1", "type": "column", "order": 1,
///                 "componentsId": [{"id": "c1", "order": 1}]}],
///  "components": [{"id": "c1", "type": "header", "bodyId": "b1"}],
///  "body": [{"id": "b1", "body": {"title": "Hello"}}]}
/// ```
///
/// decodes to `ScreenModel(screenName: "home", templates: [TemplateModel(id: "t1",
/// type: .column, components: [ComponentModel(id: "c1", type: "header",
/// body: BodyModel(id: "b1", data: ["title": "Hello"]))])])`.  Templates and
/// each template's components are sorted by `order` (equal orders keep
/// document order).  A reference to a missing component or body, a
/// duplicate id, a missing field or a value of the wrong type is an error
/// naming it and its JSON path.  A component or body may be used by more
/// than one template.
///
/// It renders (``ScreenItemsConvertible``): each template lays out its
/// components (`column` and `list` one under another, `row` side by side);
/// a component's `type` is a block type and its body's data are the
/// block's fields, so `header`, `cta`, `benefits_list`… draw as on a block
/// screen, and an unknown type is a placeholder with a `render_error`.
///
/// Reuse is cheap to decode and bounded to draw: a component is joined to
/// its body once, however many templates list it, and what a render
/// builds is counted against ``RenderContext/renderLimits``, so a payload
/// that lists one large component in every template draws up to the bound,
/// then a placeholder with a `limit` issue naming the screen, the template
/// and the component.
public struct ScreenModel: Sendable, Hashable {
    /// The screen's name (its id when rendered).
    public var screenName: String
    /// The templates, sorted by `order`.
    public var templates: [TemplateModel]

    /// A model from its parts.
    public init(screenName: String, templates: [TemplateModel]) {
        self.screenName = screenName
        self.templates = templates
    }

    /// Decodes a normalized payload from JSON text; errors name `source`.
    public init(json: Data, source: String? = nil) throws {
        try self.init(value: try JSONValue(json: json, source: source), source: source)
    }

    /// Reads a normalized payload from a decoded value; errors name `source`.
    public init(value: JSONValue, source: String? = nil) throws {
        let root = JSONPathReader(value, input: source)
        screenName = try root.required("screenName").string()

        var bodies: [String: BodyModel] = [:]
        var bodyPath: [String: String] = [:]
        for b in try root.required("body").array() {
            let id = try b.required("id").string()
            if let first = bodyPath[id] { throw b.error("duplicate body id \"\(id)\" (first at \(first))") }
            let data = try b.required("body")
            bodies[id] = BodyModel(id: id, data: try data.object())
            bodyPath[id] = b.path
        }

        // Each component is joined once, here; every use below copies the
        // joined model, which shares its storage, so a component listed by
        // every template costs one reference per use, not one body.
        var components: [String: (model: ComponentModel, path: String)] = [:]
        for c in try root.required("components").array() {
            let id = try c.required("id").string()
            if let first = components[id] { throw c.error("duplicate component id \"\(id)\" (first at \(first.path))") }
            let type = try c.required("type").string()
            let bodyRef = try c.required("bodyId")
            let bodyId = try bodyRef.string()
            guard let body = bodies[bodyId] else { throw bodyRef.error("no body with id \"\(bodyId)\"") }
            components[id] = (ComponentModel(id: id, type: ComponentType(rawValue: type), body: body), c.path)
        }

        var templates: [(order: Int, index: Int, model: TemplateModel)] = []
        var templatePath: [String: String] = [:]
        for (ti, t) in try root.required("templates").array().enumerated() {
            let id = try t.required("id").string()
            if let first = templatePath[id] { throw t.error("duplicate template id \"\(id)\" (first at \(first))") }
            templatePath[id] = t.path
            let type = TemplateType(rawValue: try t.required("type").string())
            let order = try t.required("order").int()
            var refs: [(order: Int, index: Int, model: ComponentModel)] = []
            var seen: [String: String] = [:]
            for (ci, r) in try t.required("componentsId").array().enumerated() {
                let refID = try r.required("id")
                let cid = try refID.string()
                if let first = seen[cid] { throw refID.error("component \"\(cid)\" listed twice in this template (first at \(first))") }
                seen[cid] = refID.path
                guard let c = components[cid] else { throw refID.error("no component with id \"\(cid)\"") }
                var use = c.model
                use.order = try r.required("order").int()
                refs.append((use.order, ci, use))
            }
            refs.sort { ($0.order, $0.index) < ($1.order, $1.index) }
            templates.append((order, ti, TemplateModel(id: id, type: type, order: order, components: refs.map(\.model))))
        }
        templates.sort { ($0.order, $0.index) < ($1.order, $1.index) }
        self.templates = templates.map(\.model)
    }

    /// Whether `value` looks like a normalized payload (it has the members
    /// `screenName` and `templates`), by ``ScreenFormat``'s rule.
    public static func matches(_ value: JSONValue) -> Bool {
        ScreenFormat(of: value) == .normalizedPayload
    }
}

/// One template: a layout of components.
public struct TemplateModel: Sendable, Hashable {
    /// The template's id, unique in the payload.
    public var id: String
    /// How it lays out its components.
    public var type: TemplateType
    /// Its `order` among the screen's templates.
    public var order: Int
    /// The components, sorted by their `order` in this template.
    public var components: [ComponentModel]

    /// A template from its parts; `components` are kept in the order given.
    public init(id: String, type: TemplateType, order: Int = 0, components: [ComponentModel]) {
        self.id = id
        self.type = type
        self.order = order
        self.components = components
    }
}

/// How a template lays out its components: `column`, `row`, `list`, or a
/// type this version does not know (drawn as a placeholder).
public struct TemplateType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The type's name as in the JSON (`column`).
    public var rawValue: String
    /// The type named `rawValue`, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Components one under another.
    public static let column = TemplateType(rawValue: "column")
    /// Components side by side.
    public static let row = TemplateType(rawValue: "row")
    /// Laid out as a column.
    public static let list = TemplateType(rawValue: "list")
    /// The type's name (``rawValue``).
    public var description: String { rawValue }
}

/// One component: a block type and its body.
public struct ComponentModel: Sendable, Hashable {
    /// The component's id, unique in the payload.
    public var id: String { didSet { block = Self.join(id, type, body) } }
    /// The block type it draws as.
    public var type: ComponentType { didSet { block = Self.join(id, type, body) } }
    /// Its order in the template it was read from.
    public var order: Int
    /// The body its `bodyId` names: the block's fields.
    public var body: BodyModel { didSet { block = Self.join(id, type, body) } }
    /// The block this component draws as: the body's data with the
    /// component's type as `type` and its id as `id` (which names it in
    /// render issues).  Joined when the component is made or changed, not
    /// on each use: copies of a component (one per template that lists it)
    /// share one block.
    public private(set) var block: JSONValue

    /// A component from its parts.
    public init(id: String, type: ComponentType, order: Int = 0, body: BodyModel) {
        self.id = id
        self.type = type
        self.order = order
        self.body = body
        block = Self.join(id, type, body)
    }

    /// The body's data with `type` and `id` set.
    private static func join(_ id: String, _ type: ComponentType, _ body: BodyModel) -> JSONValue {
        var fields = body.data
        fields["type"] = .string(type.rawValue)
        fields["id"] = .string(id)
        return .object(fields)
    }

    /// Equal when id, type, order and body are (``block`` follows from them).
    public static func == (a: ComponentModel, b: ComponentModel) -> Bool {
        a.id == b.id && a.type == b.type && a.order == b.order && a.body == b.body
    }

    /// Hashes what ``==`` compares.
    public func hash(into h: inout Hasher) {
        h.combine(id)
        h.combine(type)
        h.combine(order)
        h.combine(body)
    }
}

/// A component's type: a block type (`header`, `cta`, …).
public struct ComponentType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The block type's name (`header`).
    public var rawValue: String
    /// The type named `rawValue`, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The type's name (``rawValue``).
    public var description: String { rawValue }
}

/// A body: the data of the component that refers to it.
public struct BodyModel: Sendable, Hashable {
    /// The body's id, unique in the payload.
    public var id: String
    /// The payload's `body` object: the fields of the block a component draws.
    public var data: [String: JSONValue]

    /// A body from its parts.
    public init(id: String, data: [String: JSONValue]) {
        self.id = id
        self.data = data
    }
}

extension ScreenModel: ScreenItemsConvertible {
    /// One layout block per template (`{"type": "column", "blocks": […]}`),
    /// its components as the blocks inside.
    public var screenItems: ScreenItems {
        ScreenItems(id: screenName, items: templates.map { t in
            .block(.object(["type": .string(t.type.rawValue), "id": .string(t.id),
                            "blocks": .array(t.components.map(\.block))]))
        })
    }
}
