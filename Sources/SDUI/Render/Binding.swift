// Binding.swift - `{{path}}` placeholders filled from screen and host values.
import Foundation
import SDUICore

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
/// **Bounds.**  What fills may produce is bounded per string, per node and
/// per tree (``BindingLimits``): a token of five thousand `{{a}}` bound to a
/// megabyte must not make a gigabyte.  A fill that would pass a bound stops
/// there, and the node becomes a placeholder with a `limit` issue.
///
/// **No second pass.**  Bound values are inserted as data: a bound string
/// that looks like `{{x}}` or `@color.primary` is not resolved again.  The
/// one lookup that follows a fill: in a spacing prop or a Text's `style`, a
/// filled string is taken as a spacing or typography name, as a written one
/// would be (`"style": "{{st}}"` with `st` = `"caption"`).
public struct BindingScope: Sendable {
    public var item: [String: JSONValue]
    public var host: [String: JSONValue]

    public init(item: [String: JSONValue] = [:], host: [String: JSONValue] = [:]) {
        self.item = item
        self.host = host
    }

    /// One step of a path.
    enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    /// The value at `path`, item first, then host; nil when neither has it.
    public func lookup(_ path: String) -> JSONValue? {
        guard let steps = Self.parse(Array(path.utf8)[...]) else { return nil }
        return lookup(steps)
    }

    func lookup(_ steps: [Step]) -> JSONValue? {
        Self.walk(steps, item) ?? Self.walk(steps, host)
    }

    /// Parses a path; nil when malformed.
    static func parse(_ path: Substring) -> [Step]? { parse(Array(path.utf8)[...]) }

    /// Parses a path given as UTF-8 bytes; nil when malformed.
    static func parse(_ u: ArraySlice<UInt8>) -> [Step]? {
        func isName(_ b: UInt8) -> Bool {
            (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x2D
        }
        var steps: [Step] = []
        var i = u.startIndex
        var expectName = true
        while i < u.endIndex {
            if expectName {
                let start = i
                while i < u.endIndex, isName(u[i]) { i += 1 }
                guard start < i else { return nil }
                steps.append(.key(String(decoding: u[start..<i], as: UTF8.self)))
                expectName = false
            } else if u[i] == UInt8(ascii: ".") {
                i += 1
                expectName = true
                guard i < u.endIndex else { return nil }
            } else if u[i] == UInt8(ascii: "[") {
                i += 1
                var n = 0, digits = 0
                while i < u.endIndex, u[i] >= 0x30, u[i] <= 0x39, digits < 10 {
                    n = n * 10 + Int(u[i] - 0x30)
                    digits += 1
                    i += 1
                }
                guard digits > 0, digits <= 9, i < u.endIndex, u[i] == UInt8(ascii: "]") else { return nil }
                steps.append(.index(n))
                i += 1
            } else {
                return nil
            }
        }
        return steps.isEmpty || expectName ? nil : steps
    }

    static func walk(_ steps: [Step], _ root: [String: JSONValue]) -> JSONValue? {
        guard case .key(let first)? = steps.first, var cur = root[first] else { return nil }
        for s in steps.dropFirst() {
            switch s {
            case .key(let k):
                guard case .object(let o) = cur, let next = o[k] else { return nil }
                cur = next
            case .index(let n):
                guard case .array(let a) = cur, a.indices.contains(n) else { return nil }
                cur = a[n]
            }
        }
        return cur
    }
}
/// How much text and data binding fills may produce (see ``BindingScope``).
/// A bound value counts by its size as JSON text would hold it, roughly:
/// a string by its UTF-8 bytes, a number or boolean by its digits, a list or
/// object by the sum of its members plus one byte each.
public struct BindingLimits: Sendable, Equatable {
    /// Bytes one filled string (or one whole-value binding) may hold.
    public var maxStringBytes: Int
    /// Bytes all the fills of one node's props may produce together.
    public var maxNodeBytes: Int
    /// Bytes all the fills of one render tree may produce together.
    public var maxTreeBytes: Int

    /// 64 KiB per string, 256 KiB per node, 4 MiB per tree.
    public init(maxStringBytes: Int = 64 << 10, maxNodeBytes: Int = 256 << 10, maxTreeBytes: Int = 4 << 20) {
        self.maxStringBytes = maxStringBytes
        self.maxNodeBytes = maxNodeBytes
        self.maxTreeBytes = maxTreeBytes
    }

    /// The size of `v` as counted against the limits, or nil when it is
    /// over `budget`.  Stops walking as soon as the budget is spent, so the
    /// cost of a huge bound value is bounded by the budget, not its size.
    static func size(of v: JSONValue, within budget: Int) -> Int? {
        var used = 0
        func add(_ n: Int) -> Bool {
            used += n
            return used <= budget
        }
        func walk(_ v: JSONValue) -> Bool {
            switch v {
            case .string(let s): return add(s.utf8.count + 2)
            case .int, .double: return add(8)
            case .bool: return add(5)
            case .null: return add(4)
            case .array(let a):
                guard add(2) else { return false }
                for x in a where !(add(1) && walk(x)) { return false }
                return true
            case .object(let o):
                guard add(2) else { return false }
                for (k, x) in o where !(add(k.utf8.count + 4) && walk(x)) { return false }
                return true
            }
        }
        return walk(v) ? used : nil
    }
}

/// A problem found while filling a template.
struct BindingProblem: Equatable {
    enum Kind: Equatable {
        case missing, malformed, notText
        /// The fill would pass its byte budget; `text` says which value.
        case limit
    }
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
    /// `limit` bounds the bytes the fill may produce (counted as
    /// ``BindingLimits/size(of:within:)`` counts them); past it the fill
    /// stops, returns nil and reports a `.limit` problem.  `produced`
    /// receives what the fill produced.
    static func fill(_ s: String, scope: BindingScope, problems: inout [BindingProblem],
                     limit: Int = .max, produced: inout Int) -> JSONValue? {
        let u = Array(s.utf8)
        // Whole value: exactly "{{ path }}".
        if u.count >= 4, u[0] == 0x7B, u[1] == 0x7B, u[u.count - 1] == 0x7D, u[u.count - 2] == 0x7D,
           !u[2..<(u.count - 2)].contains(0x7B), !u[2..<(u.count - 2)].contains(0x7D) {
            let path = trimmed(u[2..<(u.count - 2)])
            guard let steps = BindingScope.parse(path) else {
                problems.append(BindingProblem(kind: .malformed, text: s))
                return .string(s)
            }
            if let v = scope.lookup(steps) {
                guard let n = BindingLimits.size(of: v, within: limit) else {
                    problems.append(BindingProblem(kind: .limit, text: "{{\(String(decoding: path, as: UTF8.self))}} "
                                                   + "is over \(limit) bytes"))
                    return nil
                }
                produced = n
                return v
            }
            problems.append(BindingProblem(kind: .missing, text: String(decoding: path, as: UTF8.self)))
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
            let path = trimmed(u[(i + 2)..<j])
            if let steps = BindingScope.parse(path), let v = scope.lookup(steps) {
                if case .string(let t) = v, out.count + t.utf8.count > limit {
                    problems.append(BindingProblem(kind: .limit, text: "the text filled from {{"
                                                   + "\(String(decoding: path, as: UTF8.self))}} is over \(limit) bytes"))
                    return nil
                }
                switch v {
                case .string(let t): out.append(contentsOf: t.utf8)
                case .int(let n): out.append(contentsOf: String(n).utf8)
                case .double(let d): out.append(contentsOf: JSONValue.text(d).utf8)
                case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
                case .null: break
                case .array, .object:
                    problems.append(BindingProblem(kind: .notText, text: String(decoding: path, as: UTF8.self)))
                }
            } else if BindingScope.parse(path) == nil {
                problems.append(BindingProblem(kind: .malformed, text: String(decoding: u[i...(j + 1)], as: UTF8.self)))
                out.append(contentsOf: u[i...(j + 1)])
            } else {
                problems.append(BindingProblem(kind: .missing, text: String(decoding: path, as: UTF8.self)))
            }
            i = j + 2
            if out.count > limit {
                problems.append(BindingProblem(kind: .limit, text: "the filled text is over \(limit) bytes"))
                return nil
            }
        }
        if out.count > limit {   // literal text after the last placeholder
            problems.append(BindingProblem(kind: .limit, text: "the filled text is over \(limit) bytes"))
            return nil
        }
        produced = out.count
        return .string(String(decoding: out, as: UTF8.self))
    }

    /// `fill` without a bound, for callers that do not count.
    static func fill(_ s: String, scope: BindingScope, problems: inout [BindingProblem]) -> JSONValue? {
        var produced = 0
        return fill(s, scope: scope, problems: &problems, limit: .max, produced: &produced)
    }

    /// `bytes` without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var a = bytes.startIndex, b = bytes.endIndex
        while a < b, bytes[a] == 0x20 || bytes[a] == 0x09 { a += 1 }
        while b > a, bytes[b - 1] == 0x20 || bytes[b - 1] == 0x09 { b -= 1 }
        return bytes[a..<b]
    }

}
