// PropRule.swift - what a primitive's props must look like once resolved.
import Foundation
import SDUICore

/// A rule for one prop of a primitive, checked on the resolved value (after
/// bindings and theme references).  A node missing a required prop, or with
/// a required prop of the wrong kind, becomes a placeholder; an optional
/// prop of the wrong kind is dropped.  A `string` prop given a number or a
/// boolean (a whole-value binding such as `"{{stats.wins}}"`) takes its text
/// form, so a bound count still shows.  Props without a rule pass as they
/// are: renderers ignore props they do not know (the version rule in
/// ``PrimitiveMap``).
public struct PropRule: Sendable, Hashable, CustomStringConvertible {
    /// The kind of value a prop must hold once resolved.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case string, number, bool
        /// A hex colour string.
        case color
        /// A number ≥ 0 in points, or an object of them (padding sides).
        case length
        /// A typography object: `size` above 0; optional `lineHeight` above
        /// 0, whole `weight` 1–1000 and string `family` (filled in when
        /// missing: 1.25 × size, 400, "system").
        case typography
        case object, array
        /// An object with a string `type` (`{"type": "navigate", …}`).
        case action
        case any
    }

    /// The kind of value the prop must hold.
    public var kind: Kind
    /// Whether the node becomes a placeholder when the prop is missing or of
    /// the wrong kind; an optional prop of the wrong kind is only dropped.
    public var required: Bool

    /// A rule for a prop of `kind`, optional unless `required` is true.
    public init(_ kind: Kind, required: Bool = false) {
        self.kind = kind
        self.required = required
    }

    /// A rule for a prop the node cannot do without.
    public static func required(_ kind: Kind) -> PropRule { PropRule(kind, required: true) }
    /// A rule for a prop that is dropped when its value is of the wrong kind.
    public static func optional(_ kind: Kind) -> PropRule { PropRule(kind) }

    /// The kind's name, after `required ` when the prop is required: `required string`.
    public var description: String { (required ? "required " : "") + kind.rawValue }

    /// Whether a resolved value satisfies the rule's kind.
    public func accepts(_ v: JSONValue) -> Bool {
        switch kind {
        case .any: return true
        case .string: return v.stringValue != nil
        case .number: return v.doubleValue.map(\.isFinite) ?? false
        case .bool: return v.boolValue != nil
        case .color: return v.stringValue.map(Self.isHexColor) ?? false
        case .length:
            if let d = v.doubleValue { return d.isFinite && d >= 0 }
            guard let sides = v.objectValue else { return false }
            return sides.values.allSatisfy { ($0.doubleValue.map { $0.isFinite && $0 >= 0 }) ?? false }
        case .typography:
            guard case .object(let o) = v else { return false }
            func positive(_ x: JSONValue?) -> Bool { x?.doubleValue.map { $0.isFinite && $0 > 0 } ?? false }
            guard positive(o["size"]) else { return false }
            if let lh = o["lineHeight"], !positive(lh) { return false }
            if let w = o["weight"], !(w.intValue.map { (1...1000).contains($0) } ?? false) { return false }
            if let f = o["family"], f.stringValue == nil { return false }
            return true
        case .object: return v.objectValue != nil
        case .array: return v.arrayValue != nil
        case .action: return v["type"]?.stringValue != nil
        }
    }

    /// An accepted typography object with its missing members filled in
    /// (lineHeight 1.25 × size, weight 400, family "system", as a theme's),
    /// or nil when none is missing (a theme's always has all four).
    static func completedTypography(_ v: JSONValue) -> JSONValue? {
        guard case .object(var o) = v, o["lineHeight"] == nil || o["weight"] == nil || o["family"] == nil,
              let size = o["size"]?.doubleValue else { return nil }
        if o["lineHeight"] == nil { o["lineHeight"] = JSONValue.number(size * 1.25) }
        if o["weight"] == nil { o["weight"] = .int(400) }
        if o["family"] == nil { o["family"] = .string("system") }
        return .object(o)
    }

    /// `#RGB`, `#RRGGBB` or `#RRGGBBAA` (``RGBColor``'s rule).
    static func isHexColor(_ s: String) -> Bool { RGBColor.isHex(s) }

    /// The rules of the built-in primitives, by primitive: each row's
    /// ``PrimitiveSpec/props``.
    public static let builtIn: [String: [String: PropRule]] =
        Dictionary(PrimitiveSpec.builtIn.map { ($0.name, $0.props) }, uniquingKeysWith: { first, _ in first })
}
