// NodeAccessibility.swift - what assistive technology is told about a node
// of a render tree, and the one rule that derives it when the author gave
// nothing.
//
// Every primitive row (PrimitiveSpec) names an AccessibilityRule: the role
// its nodes have, the props their label is read from when no
// `accessibilityLabel` is given, and whether they take input.  The
// derivation is the same for every row:
//
//   - hidden: `accessibilityHidden: true`, `decorative: true` (an image
//     that only decorates), or a row whose role is `none` (Spacer);
//   - role: the row's; a node with an `action` whose role is not already
//     interactive (a Text, an image, a Column or Row that is tapped) is a
//     button, and a link when its action opens a URL;
//   - label: `accessibilityLabel`, else `alt`, else the row's label props
//     in order (a Button's `label`, a Text's `text`, a TextField's
//     `label`); a tapped container without one takes its descendants'
//     labels, joined with ", ", as VoiceOver and TalkBack read a group;
//   - value: `accessibilityValue`, else the row's (a Toggle's on/off, a
//     Slider's value or its min);
//   - hint: `accessibilityHint`;
//   - traits: the row's, `header` for `accessibilityHeading: true`, and
//     `button`/`link` for a tapped node.
//
// A UI layer reads `RenderNode.accessibility`; the HTML preview writes it
// as ARIA; `AccessibilityLint` checks it.
import Foundation
import SDUICore

/// What assistive technology is told about one node (see the file's essay).
public struct NodeAccessibility: Sendable, Hashable {
    /// What the node is, as the platforms' accessibility APIs name roles.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        /// Not exposed (a spacer).
        case none
        /// A container read as a group.
        case group
        /// Static text.
        case text
        /// An image.
        case image
        /// Something that runs an action when activated.
        case button
        /// Something that opens a URL.
        case link
        /// A text input.
        case textField = "text-field"
        /// A value chosen along a range.
        case slider
        /// One choice of several.
        case radioGroup = "radio-group"
        /// An on/off switch.
        case toggle = "switch"
        /// A short status (a badge).
        case status

        /// Whether a user operates it (and so it needs a label and a target size).
        public var isInteractive: Bool {
            switch self {
            case .button, .link, .textField, .slider, .radioGroup, .toggle: return true
            case .none, .group, .text, .image, .status: return false
            }
        }
    }

    /// A trait added to the role.
    public enum Trait: String, Sendable, Hashable, CaseIterable {
        /// Activating it runs an action.
        case button
        /// It opens a URL.
        case link
        /// A heading (`accessibilityHeading: true`).
        case header
        /// An image.
        case image
        /// Its value is adjusted (a slider).
        case adjustable
        /// Its input is required.
        case required
    }

    /// The node's role.
    public var role: Role
    /// What is read for it; nil when nothing can be read.
    public var label: String?
    /// Where the label came from: the prop name (`accessibilityLabel`,
    /// `alt`, `label`, `text`), `children`, or nil.
    public var labelSource: String?
    /// Its current value, when it has one.
    public var value: String?
    /// What activating it does, when the author said.
    public var hint: String?
    /// Traits beyond the role.
    public var traits: [Trait]
    /// Whether it is hidden from assistive technology.
    public var hidden: Bool

    /// A description from its parts.
    public init(role: Role, label: String? = nil, labelSource: String? = nil, value: String? = nil,
                hint: String? = nil, traits: [Trait] = [], hidden: Bool = false) {
        self.role = role
        self.label = label
        self.labelSource = labelSource
        self.value = value
        self.hint = hint
        self.traits = traits
        self.hidden = hidden
    }
}

extension NodeAccessibility {
    /// As the render tree's JSON carries it: `role`, and `label`, `value`,
    /// `hint`, `traits` (when any) and `hidden` (when true).
    public var jsonValue: JSONValue {
        var o: [String: JSONValue] = ["role": .string(role.rawValue)]
        if let label { o["label"] = .string(label) }
        if let value { o["value"] = .string(value) }
        if let hint { o["hint"] = .string(hint) }
        if !traits.isEmpty { o["traits"] = .array(traits.map { .string($0.rawValue) }) }
        if hidden { o["hidden"] = .bool(true) }
        return .object(o)
    }
}

/// A primitive row's part of the derivation (see the file's essay).
public struct AccessibilityRule: Sendable {
    /// The role of the row's nodes.
    public let role: NodeAccessibility.Role
    /// Props a label is read from, in order, when `accessibilityLabel` and
    /// `alt` are absent.
    public let labelProps: [String]
    /// Traits every node of the row has.
    public let traits: [NodeAccessibility.Trait]
    /// The node's value, from its props.
    let value: @Sendable ([String: JSONValue]) -> String?

    /// A rule: the role, the props the label comes from, the row's traits
    /// and how its value is read.
    init(_ role: NodeAccessibility.Role, label: [String] = [], traits: [NodeAccessibility.Trait] = [],
         value: @escaping @Sendable ([String: JSONValue]) -> String? = { _ in nil }) {
        self.role = role
        self.labelProps = label
        self.traits = traits
        self.value = value
    }

    /// The rule of a primitive without a row (an app's own): a group.
    static let unknown = AccessibilityRule(.group)
}

extension RenderNode {
    /// What assistive technology is told about this node, derived by its
    /// row's rule; nil for placeholders and skeletons (they are announced
    /// as loading or unavailable by the UI layer).
    public var accessibility: NodeAccessibility? {
        guard kind == .primitive else { return nil }
        return NodeAccessibility.derive(self, rule: PrimitiveSpec.named(primitive)?.accessibility ?? .unknown)
    }
}

extension NodeAccessibility {
    /// The most characters a label joined from descendants may have.
    static let maxJoinedLabel = 512

    /// The derivation of the file's essay.
    static func derive(_ n: RenderNode, rule: AccessibilityRule) -> NodeAccessibility {
        let p = n.props
        func text(_ name: String) -> String? {
            guard let v = p[name] else { return nil }
            let s: String
            switch v {
            case .string(let x): s = x
            case .int(let i): s = String(i)
            case .double(let d) where d.isFinite: s = JSONValue.text(d)
            default: return nil
            }
            let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        var a = NodeAccessibility(role: rule.role, traits: rule.traits)
        a.hidden = p["accessibilityHidden"]?.boolValue == true || p["decorative"]?.boolValue == true || rule.role == .none
        if let action = p["action"], action != .null, !a.role.isInteractive {
            let opensURL = action["type"]?.stringValue == "open_url"
            a.role = opensURL ? .link : .button
            a.traits.append(opensURL ? .link : .button)
        }
        for name in ["accessibilityLabel", "alt"] + rule.labelProps {
            if let l = text(name) {
                a.label = l
                a.labelSource = name
                break
            }
        }
        if a.label == nil, a.role == .button || a.role == .link, !n.children.isEmpty {
            let joined = n.children.flatMap(\.allNodes).compactMap { child -> String? in
                guard let c = child.accessibility, !c.hidden, !c.role.isInteractive else { return nil }
                return c.labelSource == "children" ? nil : c.label
            }.joined(separator: ", ")
            if !joined.isEmpty {
                a.label = String(joined.prefix(maxJoinedLabel))
                a.labelSource = "children"
            }
        }
        a.value = text("accessibilityValue") ?? rule.value(p)
        a.hint = text("accessibilityHint")
        if p["accessibilityHeading"]?.boolValue == true { a.traits.append(.header) }
        if p["required"]?.boolValue == true { a.traits.append(.required) }
        return a
    }
}
