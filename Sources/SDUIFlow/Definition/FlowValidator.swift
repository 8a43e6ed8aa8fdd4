// FlowValidator.swift - the checks a flow passes before it is published or run.
//
// Decoding already proved the shape; what is left is what a shape cannot
// say.  The screens are a directed graph: an edge for every `next` entry.
// Three walks over it find the faults a user meets only at run time:
//
//   - forward from `start`: every screen not reached is unreachable;
//   - backward from the completing screens (those without `next`): every
//     reachable screen not reached this way can never complete the flow;
//   - backward from each screen S: the screens that can come before S (its
//     ancestors that are reachable).  A condition on S that reads
//     `answers.K` needs some such screen, or S itself, to write K (a block
//     with that key, or a `set` action on `answers.K`); otherwise the key
//     is read before any screen can write it, and the condition tests
//     `null` on every run.
//
// Each walk is a breadth-first search over at most all edges, so the whole
// check is O(screens × edges) at worst (the ancestor walk per screen that
// has conditions), which for flows of tens of screens is nothing.

import SDUI
import SDUICore

/// One fault of a flow definition: what, on which screen, where in the JSON.
public struct FlowIssue: Sendable, Hashable, CustomStringConvertible {
    /// How bad it is: an error keeps the flow from being published or run.
    public enum Severity: String, Sendable, Hashable { case error, warning }

    /// What kind of fault it is (a stable code for tools).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case unknownStart = "unknown_start"
        case unknownTarget = "unknown_target"
        case unreachable
        case noCompletion = "no_completion"
        case badCondition = "bad_condition"
        case keyReadBeforeWritten = "key_read_before_written"
        case duplicateScreen = "duplicate_screen"
        case duplicateKey = "duplicate_key"
        case unknownBlock = "unknown_block"
        case badAction = "bad_action"
        case noDefaultTransition = "no_default_transition"
    }

    /// Whether it keeps the flow from being published or run.
    public var severity: Severity
    /// Which check found it.
    public var kind: Kind
    /// The screen the fault is on (nil for the flow as a whole).
    public var screen: String?
    /// The JSON path of the value at fault (`$.screens[1].next[0].when`).
    public var path: String
    /// What is wrong, for a person.
    public var message: String

    /// `error: $.screens[1].next[0].to (screen "a"): …`
    public var description: String {
        "\(severity.rawValue): \(path)" + (screen.map { " (screen \"\($0)\")" } ?? "") + ": \(message)"
    }
}

/// Checks a ``FlowDefinition``: targets, reachability, completion,
/// conditions, keys, blocks and actions (see the file's essay).
public struct FlowValidator: Sendable {
    /// The block types a screen may use.
    public var blocks: BlockRegistry
    /// The actions a button may name.
    public static let actions: Set<String> = ["next", "back", "exit", "set", "open_url", "submit", "track"]

    /// A validator that knows `blocks`' types.
    public init(blocks: BlockRegistry = .builtIn) { self.blocks = blocks }

    /// The errors of `flow`, then its warnings; empty when it is sound.
    public func validate(_ flow: FlowDefinition) -> [FlowIssue] {
        var issues: [FlowIssue] = []
        func add(_ k: FlowIssue.Kind, _ screen: String?, _ path: String, _ m: String,
                 _ s: FlowIssue.Severity = .error) {
            issues.append(FlowIssue(severity: s, kind: k, screen: screen, path: path, message: m))
        }

        // Ids and keys.
        var firstIndex: [String: Int] = [:]
        var keyOwner: [String: (screen: String, path: String)] = [:]
        for (i, s) in flow.screens.enumerated() {
            if let j = firstIndex[s.id] {
                add(.duplicateScreen, s.id, "\(s.jsonPath).id", "duplicate screen id (first at $.screens[\(j)])")
            } else {
                firstIndex[s.id] = i
            }
            for input in s.inputs {
                let path = "\(s.jsonPath).blocks[\(input.block)].key"
                if let owner = keyOwner[input.key] {
                    add(.duplicateKey, s.id, path,
                        "answer key \"\(input.key)\" is also written at \(owner.path) (screen \"\(owner.screen)\")")
                } else {
                    keyOwner[input.key] = (s.id, path)
                }
            }
        }

        // Blocks and actions.
        var setKeys: [Int: Set<String>] = [:]
        for (i, s) in flow.screens.enumerated() {
            for (j, b) in s.blocks.enumerated() {
                let type = b["type"]?.stringValue ?? ""
                if blocks.renderer(for: type) == nil {
                    add(.unknownBlock, s.id, "\(s.jsonPath).blocks[\(j)].type",
                        "unknown block type \"\(type)\" (known: \(blocks.types.joined(separator: ", ")))")
                }
                for (path, action) in Self.actions(in: b, at: "\(s.jsonPath).blocks[\(j)]") {
                    switch FlowAction.parse(action) {
                    case .failure(let why): add(.badAction, s.id, path, why.message)
                    case .success(.set(let key, _)): setKeys[i, default: []].insert(key)
                    case .success: break
                    }
                }
            }
        }

        // The graph.
        let n = flow.screens.count
        var edges = [[Int]](repeating: [], count: n)
        var reverse = [[Int]](repeating: [], count: n)
        for (i, s) in flow.screens.enumerated() where firstIndex[s.id] == i {
            for t in s.next {
                guard let j = firstIndex[t.to] else {
                    add(.unknownTarget, s.id, "\(t.jsonPath).to", "no screen \"\(t.to)\" in the flow")
                    continue
                }
                edges[i].append(j)
                reverse[j].append(i)
            }
            if !s.next.isEmpty, !s.next.contains(where: { $0.when == nil }) {
                add(.noDefaultTransition, s.id, "\(s.jsonPath).next",
                    "every entry has a condition: when none holds, next stays on this screen", .warning)
            }
        }
        guard let start = firstIndex[flow.start] else {
            add(.unknownStart, nil, "$.start", "no screen \"\(flow.start)\" in the flow")
            return issues.sorted { $0.severity == .error && $1.severity != .error }
        }
        let reachable = Self.walk(from: [start], edges)
        let completing = (0..<n).filter { firstIndex[flow.screens[$0].id] == $0 && flow.screens[$0].completes }
        let canComplete = Self.walk(from: completing, reverse)
        for (i, s) in flow.screens.enumerated() where firstIndex[s.id] == i {
            if !reachable.contains(i) {
                add(.unreachable, s.id, s.jsonPath, "no path from the start screen \"\(flow.start)\" leads here")
            } else if !canComplete.contains(i) {
                add(.noCompletion, s.id, s.jsonPath, "no path from this screen completes the flow")
            }
        }

        // Conditions.
        for (i, s) in flow.screens.enumerated() where firstIndex[s.id] == i {
            var before: Set<Int>?
            for t in s.next {
                guard let when = t.when else { continue }
                let expr: CompiledExpression
                do {
                    expr = try CompiledExpression(when)
                } catch let e as SDUIError {
                    add(.badCondition, s.id, "\(t.jsonPath).when", "does not parse: " + Self.exprMessage(e))
                    continue
                } catch {
                    add(.badCondition, s.id, "\(t.jsonPath).when", "does not parse: \(error)")
                    continue
                }
                for key in Self.answerKeys(read: expr) {
                    if before == nil { before = Self.walk(from: [i], reverse).intersection(reachable).union([i]) }
                    let written = before!.contains { w in
                        flow.screens[w].inputs.contains { $0.key == key } || setKeys[w]?.contains("answers.\(key)") == true
                    }
                    if !written {
                        add(.keyReadBeforeWritten, s.id, "\(t.jsonPath).when",
                            "reads answers.\(key), which no screen before it (or this one) writes")
                    }
                }
            }
        }
        return issues.filter { $0.severity == .error } + issues.filter { $0.severity == .warning }
    }

    /// The errors only.
    public func errors(_ flow: FlowDefinition) -> [FlowIssue] {
        validate(flow).filter { $0.severity == .error }
    }

    /// Every screen index reached from `roots` along `edges`.
    static func walk(from roots: [Int], _ edges: [[Int]]) -> Set<Int> {
        var seen = Set(roots)
        var queue = roots
        while let i = queue.popLast() {
            for j in edges[i] where seen.insert(j).inserted { queue.append(j) }
        }
        return seen
    }

    /// The answer keys an expression reads (`answers.goal` → `goal`).
    static func answerKeys(read expr: CompiledExpression) -> [String] {
        expr.paths.compactMap { text in
            guard let p = try? KeyPath(text), p.components.count >= 2,
                  p.components[0] == .key("answers"), case .key(let k) = p.components[1] else { return nil }
            return k
        }
    }

    /// The actions of a block: each `action` member of its buttons, with
    /// its JSON path.
    static func actions(in block: JSONValue, at path: String) -> [(String, JSONValue)] {
        var out: [(String, JSONValue)] = []
        for key in ["primary", "secondary"] {
            if let b = block[key], b.objectValue != nil {
                out.append(("\(path).\(key).action", b["action"] ?? .string("next")))
            }
        }
        if let a = block["action"] { out.append(("\(path).action", a)) }
        return out
    }

    /// An expression error's message with its offset.
    static func exprMessage(_ e: SDUIError) -> String {
        (e.offset.map { "at byte \($0): " } ?? "") + e.message
    }
}
