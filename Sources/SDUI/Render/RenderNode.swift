// RenderNode.swift - one node of a resolved render tree, ready to draw.
import Foundation
import SDUICore

/// A node of a render tree: what a UI layer draws, with nothing left to look
/// up.  Props hold final values only: bindings are filled in, theme
/// references are replaced by colours (`"#RRGGBB"` or `"#RRGGBBAA"`),
/// points (numbers) and typography objects (`{"size", "weight",
/// "lineHeight", "family"}`), and spacing names are points.
///
/// A node is one of three kinds:
/// - ``Kind/primitive``: draw `primitive` at `version` with `props`;
/// - ``Kind/placeholder``: something could not be drawn (unknown or newer
///   primitive, bad content, failed lookup); `reason` says why and
///   `primitive` names what was asked for, when known;
/// - ``Kind/skeleton``: the token is not cached and the registry cannot be
///   reached; draw a loading shape until it arrives.
public struct RenderNode: Sendable, Hashable, Codable {
    /// What a node is: a primitive to draw, a placeholder or a skeleton (see above).
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case primitive, placeholder, skeleton
    }

    /// Whether to draw the primitive, a placeholder or a skeleton.
    public var kind: Kind
    /// The primitive to draw (for a placeholder: the one that was asked for,
    /// or empty when unknown).
    public var primitive: String
    /// The primitive version the node needs (0 for placeholders without one).
    public var version: Int
    /// Fully resolved props, without `children`.
    public var props: [String: JSONValue]
    /// The child nodes, in order (empty for a leaf).
    public var children: [RenderNode]
    /// The design token this node came from (nil for nodes a block made).
    public var token: String?
    /// For placeholders and skeletons: a stable reason code
    /// (see ``RenderIssue/Kind``).
    public var reason: String?

    /// A node from its parts; by default a primitive with no props, children,
    /// token or reason.
    public init(kind: Kind = .primitive, primitive: String, version: Int,
                props: [String: JSONValue] = [:], children: [RenderNode] = [],
                token: String? = nil, reason: String? = nil) {
        self.kind = kind
        self.primitive = primitive
        self.version = version
        self.props = props
        self.children = children
        self.token = token
        self.reason = reason
    }

    /// A placeholder standing for `primitive` (when known).
    public static func placeholder(_ reason: RenderIssue.Kind, primitive: String = "",
                                   version: Int = 0, token: String?) -> RenderNode {
        RenderNode(kind: .placeholder, primitive: primitive, version: version,
                   token: token, reason: reason.rawValue)
    }

    /// A skeleton standing for a token that is on its way.
    public static func skeleton(token: String?) -> RenderNode {
        RenderNode(kind: .skeleton, primitive: "", version: 0, token: token,
                   reason: RenderIssue.Kind.offline.rawValue)
    }

    /// The node at `path` (child indexes) below this one; this node for `[]`.
    /// Every index must be in range (a path a tree handed out).
    public func descendant(at path: [Int]) -> RenderNode {
        var n = self
        for i in path { n = n.children[i] }
        return n
    }

    /// Replaces the node at `path` below this one (this node for `[]`) by
    /// `node`; every index must be in range.
    public mutating func replaceDescendant(at path: [Int], with node: RenderNode) {
        guard let first = path.first else {
            self = node
            return
        }
        children[first].replaceDescendant(at: Array(path.dropFirst()), with: node)
    }

    /// This node and all its descendants, depth first.
    public var allNodes: [RenderNode] {
        var out: [RenderNode] = []
        func visit(_ n: RenderNode) {
            out.append(n)
            n.children.forEach(visit)
        }
        visit(self)
        return out
    }

    private enum CodingKeys: String, CodingKey {
        case kind, primitive, version, props, children, token, reason, accessibility
    }

    /// Decodes a node as ``encode(to:)`` writes it; absent `props` and
    /// `children` are empty.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(Kind.self, forKey: .kind)
        primitive = try c.decode(String.self, forKey: .primitive)
        version = try c.decode(Int.self, forKey: .version)
        props = try c.decodeIfPresent([String: JSONValue].self, forKey: .props) ?? [:]
        children = try c.decodeIfPresent([RenderNode].self, forKey: .children) ?? []
        token = try c.decodeIfPresent(String.self, forKey: .token)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
    }

    /// Encodes the node in the shape of schemas/render-tree.json, leaving out
    /// empty `props` and `children` and a nil `token` or `reason`.  A
    /// primitive node carries its derived ``accessibility`` (`role`, and
    /// `label`, `value`, `hint`, `traits`, `hidden` when set), so a UI layer
    /// reading the JSON gets it too; decoding derives it again.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(primitive, forKey: .primitive)
        try c.encode(version, forKey: .version)
        if !props.isEmpty { try c.encode(props, forKey: .props) }
        if !children.isEmpty { try c.encode(children, forKey: .children) }
        try c.encodeIfPresent(token, forKey: .token)
        try c.encodeIfPresent(reason, forKey: .reason)
        if let a = accessibility { try c.encode(a.jsonValue, forKey: .accessibility) }
    }
}
