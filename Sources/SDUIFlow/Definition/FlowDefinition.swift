// FlowDefinition.swift - a published flow (schemas/flow.json): screens of
// blocks and the conditional transitions between them.
import Crypto
import Foundation
import SDUI
import SDUICore

/// A flow (schemas/flow.json): an id, a version, a start screen and the
/// screens, each a block screen with an optional list of
/// transitions.
///
/// ```json
/// {"id": "onboarding", "version": 3, "themeId": "theme_mint_dark", "start": "screen_goal",
///  "screens": [{"id": "screen_goal", "type": "standard", "blocks": [...],
///               "next": [{"when": "answers.goal == 'strength'", "to": "screen_strength"},
///                        {"to": "screen_done"}]},
///              {"id": "screen_done", "blocks": [...]}]}
/// ```
///
/// Decoding checks the shape (every error names the input and the JSON
/// path); ``FlowValidator`` checks the graph, the conditions and the keys.
public struct FlowDefinition: Sendable, Hashable {
    /// The flow's id.
    public var id: String
    /// The flow's version as its JSON gives it (an integer's digits, or a
    /// string); events carry it.
    public var version: String
    /// The flow's theme: second in the resolution order, after a screen's own.
    public var themeId: String?
    /// The id of the first screen.
    public var start: String
    /// The screens, in document order.
    public var screens: [FlowScreen]
    /// The definition as decoded (unknown members kept).
    public var json: JSONValue
    /// SHA-256 (lowercase hex) of the definition's canonical JSON (sorted
    /// keys, compact): the same content has the same hash however it was
    /// written, and any change of content changes it.  Saved progress
    /// records it, so a resume can tell that the definition changed.
    public var contentHash: String

    /// Decodes a definition from JSON text; errors name `source`.
    ///
    /// - Throws: `SDUIError` `.json` for text that is not JSON (with its
    ///   position), `.schema` for a value of the wrong shape (with its JSON
    ///   path), `.limit` for a definition over `limits` (naming the bound,
    ///   the value and the JSON path).
    public init(json data: Data, source: String? = nil, limits: FlowLimits = FlowLimits()) throws {
        try self.init(value: try JSONValue(json: data, source: source), source: source, limits: limits)
    }

    /// Reads a definition from a decoded value; errors name `source`.
    public init(value: JSONValue, source: String? = nil, limits: FlowLimits = FlowLimits()) throws {
        let root = JSONPathReader(value, input: source)
        id = try root.required("id").string()
        let v = try root.required("version")
        switch v.value {
        case .string(let s) where !s.isEmpty: version = s
        default: version = String(try v.int())
        }
        themeId = try root.optionalString("themeId")
        start = try root.required("start").string()
        let list = try root.required("screens")
        if let count = list.value.arrayValue?.count, count > limits.maxScreens {
            throw list.limitError(FlowLimits.over(count, "screens", limits.maxScreens, "maxScreens"))
        }
        var budget = FlowScreen.Budget(blocks: limits.maxBlocks, transitions: limits.maxTransitions)
        screens = try list.array().map { try FlowScreen(reader: $0, limits: limits, budget: &budget) }
        guard !screens.isEmpty else { throw root.error("\"screens\" must not be empty") }
        json = value
        contentHash = Self.hash(value)
    }

    /// The screen with `id`, if any (the first, should ids repeat).
    public func screen(_ id: String) -> FlowScreen? {
        screens.first { $0.id == id }
    }

    /// The index of screen `id` in ``screens``.
    public func index(of id: String) -> Int? {
        screens.firstIndex { $0.id == id }
    }

    /// SHA-256 of `value`'s canonical JSON.
    static func hash(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = (try? encoder.encode(value)) ?? Data()
        return SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}

/// One screen of a flow: a block screen and where `next` leads.
public struct FlowScreen: Sendable, Hashable {
    /// The screen's id, unique in its flow.
    public var id: String
    /// The screen's type (`standard` by default).
    public var type: String
    /// The screen's theme, first in the resolution order.
    public var themeId: String?
    /// The blocks, each an object with a string `type`.
    public var blocks: [JSONValue]
    /// Where `next` leads: the first entry whose condition holds (or that
    /// has none).  Nil or empty: `next` completes the flow.
    public var next: [FlowTransition]
    /// The screen's JSON path in its definition (`$.screens[2]`).
    public var jsonPath: String

    /// A screen from its parts.
    public init(id: String, type: String = "standard", themeId: String? = nil, blocks: [JSONValue],
                next: [FlowTransition] = [], jsonPath: String = "$") {
        self.id = id
        self.type = type
        self.themeId = themeId
        self.blocks = blocks
        self.next = next
        self.jsonPath = jsonPath
    }

    /// What is left of the flow's bounds on blocks and transitions while
    /// its screens are read.
    struct Budget {
        var blocks: Int
        var transitions: Int
    }

    init(reader r: JSONPathReader, limits: FlowLimits, budget: inout Budget) throws {
        id = try r.required("id").string()
        type = try r.optionalString("type") ?? "standard"
        themeId = try r.optionalString("themeId")
        let blockList = try r.required("blocks")
        let blockCount = blockList.value.arrayValue?.count ?? 0
        guard blockCount <= budget.blocks else {
            throw blockList.limitError(FlowLimits.over(limits.maxBlocks - budget.blocks + blockCount,
                                                       "blocks in all so far", limits.maxBlocks, "maxBlocks"))
        }
        budget.blocks -= blockCount
        blocks = try blockList.array().map { b in
            _ = try b.object()
            _ = try b.required("type").string()
            return b.value
        }
        if let list = try r.member("next") {
            let count = list.value.arrayValue?.count ?? 0
            guard count <= budget.transitions else {
                throw list.limitError(FlowLimits.over(limits.maxTransitions - budget.transitions + count,
                                                      "transitions in all so far", limits.maxTransitions,
                                                      "maxTransitions"))
            }
            budget.transitions -= count
            next = try list.array().map { try FlowTransition(reader: $0, limits: limits) }
        } else {
            next = []
        }
        jsonPath = r.path
    }

    /// The screen as the renderer takes it.
    public var blockScreen: BlockScreen {
        BlockScreen(id: id, type: type, themeId: themeId, blocks: blocks)
    }

    /// The answer keys the screen's blocks write, with each block's index
    /// and whether an answer is required before `next`.
    public var inputs: [FlowInput] {
        blocks.enumerated().compactMap { i, b in
            guard let key = b["key"]?.stringValue, !key.isEmpty else { return nil }
            return FlowInput(key: key, block: i, type: b["type"]?.stringValue ?? "",
                             required: b["required"]?.boolValue ?? false)
        }
    }

    /// The completion screen's test: `next` has nowhere to go.
    public var completes: Bool { next.isEmpty }
}

/// An answer a block writes (`answers.<key>` in the flow's store).
public struct FlowInput: Sendable, Hashable {
    /// The answer's key.
    public var key: String
    /// The block's index on its screen.
    public var block: Int
    /// The block's type (`choice`, `text_input`, `slider`…).
    public var type: String
    /// Whether `next` waits for an answer.
    public var required: Bool

    /// An input from its parts.
    public init(key: String, block: Int, type: String, required: Bool) {
        self.key = key
        self.block = block
        self.type = type
        self.required = required
    }
}

/// One entry of a screen's `next` list.
public struct FlowTransition: Sendable, Hashable {
    /// The condition, in the expression language (docs/expressions.md);
    /// nil always holds.
    public var when: String?
    /// The screen it leads to.
    public var to: String
    /// Its JSON path (`$.screens[0].next[1]`).
    public var jsonPath: String

    /// A transition from its parts.
    public init(when: String? = nil, to: String, jsonPath: String = "$") {
        self.when = when
        self.to = to
        self.jsonPath = jsonPath
    }

    init(reader r: JSONPathReader, limits: FlowLimits) throws {
        if let w = try r.member("when") {
            guard let s = w.value.stringValue else { throw w.error("must be a string (an expression)") }
            guard s.utf8.count <= limits.maxConditionBytes else {
                throw w.limitError(FlowLimits.over(s.utf8.count, "bytes", limits.maxConditionBytes,
                                                   "maxConditionBytes"))
            }
            when = s
        } else {
            when = nil
        }
        to = try r.required("to").string()
        jsonPath = r.path
    }
}
