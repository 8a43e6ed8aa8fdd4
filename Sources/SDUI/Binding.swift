// Binding.swift - `{{path}}` placeholders filled from screen and host values.
import Foundation

/// The values a token's `{{path}}` placeholders are filled from: the screen
/// item's `bind` first, then the host app's bindings.
///
/// **Paths.** `name(.name | [index])*`, e.g. `team.players[0].id`; names are
/// letters, digits, `_` and `-`; spaces inside the braces are ignored
/// (`{{ title }}`).  A path is looked up whole in the item's `bind`; only if
/// it is not found there is it looked up in the host's.  An explicit `null`
/// counts as found.
///
/// **Whole values.**  A string that is exactly one placeholder takes the
/// bound value with its own type: `"{{cart.count}}"` bound to `3` is the
/// number 3, `"{{totals.hasDiscount}}"` the boolean, a list stays a list.
///
/// **Inside text.**  Strings are inserted as they are, integers in decimal,
/// other numbers in their shortest form, booleans as `true`/`false`, and
/// `null` as nothing.  A list or object inside text inserts nothing and is
/// reported as `bad_binding`.
///
/// **Missing binding.**  Inside text it inserts nothing; a whole-value
/// placeholder removes the prop, so the renderer's default applies (a
/// missing `visible` leaves the node visible).  Each is reported as
/// `missing_binding`; the node still renders.
///
/// **Escaping.**  `\{{` writes a literal `{{` (in JSON source: `"\\{{"`).
/// A `{{` without a closing `}}`, or with a malformed path, is left as
/// written and reported as `bad_binding`.
///
/// **No second pass.**  Bound values are inserted as data: a bound string
/// that looks like `{{x}}` or `@color.primary` is not resolved again.
public struct BindingScope: Sendable {
    public var item: [String: TokenValue]
    public var host: [String: TokenValue]

    public init(item: [String: TokenValue] = [:], host: [String: TokenValue] = [:]) {
        self.item = item
        self.host = host
    }

    /// One step of a path.
    enum Step: Equatable {
        case key(Substring)
        case index(Int)
    }

    /// The value at `path`, item first, then host; nil when neither has it.
    public func lookup(_ path: String) -> TokenValue? {
        guard let steps = Self.parse(Substring(path)) else { return nil }
        return Self.walk(steps, .object(item)) ?? Self.walk(steps, .object(host))
    }

    /// Parses a path; nil when malformed.
    static func parse(_ path: Substring) -> [Step]? {
        var steps: [Step] = []
        var i = path.startIndex
        func isNameChar(_ c: Character) -> Bool {
            c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-")
        }
        var expectName = true
        while i < path.endIndex {
            if expectName {
                let start = i
                while i < path.endIndex, isNameChar(path[i]) { i = path.index(after: i) }
                guard start < i else { return nil }
                steps.append(.key(path[start..<i]))
                expectName = false
            } else if path[i] == "." {
                i = path.index(after: i)
                expectName = true
                guard i < path.endIndex else { return nil }
            } else if path[i] == "[" {
                i = path.index(after: i)
                let start = i
                while i < path.endIndex, path[i].isASCII, path[i].isNumber { i = path.index(after: i) }
                guard start < i, i < path.endIndex, path[i] == "]", i.utf16Offset(in: path) - start.utf16Offset(in: path) <= 9,
                      let n = Int(path[start..<i]) else { return nil }
                steps.append(.index(n))
                i = path.index(after: i)
            } else {
                return nil
            }
        }
        return steps.isEmpty || expectName ? nil : steps
    }

    static func walk(_ steps: [Step], _ root: TokenValue) -> TokenValue? {
        var cur = root
        for s in steps {
            switch s {
            case .key(let k):
                guard case .object(let o) = cur, let next = o[String(k)] else { return nil }
                cur = next
            case .index(let n):
                guard case .array(let a) = cur, a.indices.contains(n) else { return nil }
                cur = a[n]
            }
        }
        return cur
    }
}

/// A problem found while filling a template.
struct BindingProblem: Equatable {
    enum Kind: Equatable { case missing, malformed, notText }
    var kind: Kind
    var text: String
}

enum BindingTemplate {
    /// Whether `s` may hold a placeholder or an escape (a cheap pre-check).
    static func mayContainPlaceholder(_ s: String) -> Bool {
        s.utf8.contains(UInt8(ascii: "{"))
    }

    /// Fills `s`.  Returns nil for a whole-value placeholder whose binding is
    /// missing (the prop is removed); problems are appended to `problems`.
    static func fill(_ s: String, scope: BindingScope, problems: inout [BindingProblem]) -> TokenValue? {
        let u = Array(s.utf8)
        // Whole value: exactly "{{ path }}".
        if u.count >= 4, u[0] == 0x7B, u[1] == 0x7B, u[u.count - 1] == 0x7D, u[u.count - 2] == 0x7D,
           !u[2..<(u.count - 2)].contains(0x7B), !u[2..<(u.count - 2)].contains(0x7D) {
            let inner = String(decoding: u[2..<(u.count - 2)], as: UTF8.self)
            let path = inner.trimmingCharacters(in: .whitespaces)
            guard BindingScope.parse(Substring(path)) != nil else {
                problems.append(BindingProblem(kind: .malformed, text: s))
                return .string(s)
            }
            if let v = scope.lookup(path) { return v }
            problems.append(BindingProblem(kind: .missing, text: path))
            return nil
        }
        var out: [UInt8] = []
        out.reserveCapacity(u.count)
        var i = 0
        while i < u.count {
            if u[i] == 0x5C, i + 2 < u.count, u[i + 1] == 0x7B, u[i + 2] == 0x7B {   // \{{
                out.append(0x7B); out.append(0x7B)
                i += 3
                continue
            }
            guard u[i] == 0x7B, i + 1 < u.count, u[i + 1] == 0x7B else {
                out.append(u[i])
                i += 1
                continue
            }
            // Find the closing "}}" with no brace in between.
            var j = i + 2
            while j + 1 < u.count, !(u[j] == 0x7D && u[j + 1] == 0x7D), u[j] != 0x7B { j += 1 }
            guard j + 1 < u.count, u[j] == 0x7D, u[j + 1] == 0x7D else {
                problems.append(BindingProblem(kind: .malformed, text: String(decoding: u[i...], as: UTF8.self)))
                out.append(contentsOf: u[i...])
                break
            }
            let raw = String(decoding: u[(i + 2)..<j], as: UTF8.self)
            let path = raw.trimmingCharacters(in: .whitespaces)
            if BindingScope.parse(Substring(path)) == nil {
                problems.append(BindingProblem(kind: .malformed, text: "{{\(raw)}}"))
                out.append(contentsOf: u[i...(j + 1)])
            } else if let v = scope.lookup(path) {
                switch v {
                case .string(let t): out.append(contentsOf: t.utf8)
                case .int(let n): out.append(contentsOf: String(n).utf8)
                case .double(let d): out.append(contentsOf: text(d).utf8)
                case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
                case .null: break
                case .array, .object: problems.append(BindingProblem(kind: .notText, text: path))
                }
            } else {
                problems.append(BindingProblem(kind: .missing, text: path))
            }
            i = j + 2
        }
        return .string(String(decoding: out, as: UTF8.self))
    }

    /// A double in its shortest form, without a trailing `.0`.
    static func text(_ d: Double) -> String {
        if d.rounded() == d, abs(d) < 1e15 { return String(Int64(d)) }
        return d.description
    }
}
