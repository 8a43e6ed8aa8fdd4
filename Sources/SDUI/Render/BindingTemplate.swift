// BindingTemplate.swift - a string with `{{path}}` placeholders, parsed once.
import SDUICore

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

/// A prop string holding placeholders, split once into literal text and
/// parsed paths, so a resolve only looks values up and joins (the rules are
/// ``BindingScope``'s).
///
/// Parsing walks the bytes once: `\{{` becomes a literal `{{`; `{{` opens a
/// placeholder that ends at the first `}}`, with no brace in between; the
/// text inside, trimmed of spaces and tabs, is a binding path.  A `{{`
/// without its `}}` makes the rest of the string a malformed part, kept as
/// written; so does a path that does not parse.  A string that is exactly
/// one placeholder is a whole value, which keeps the bound value's type.
struct BindingTemplate: Sendable {
    /// One piece of a template.
    enum Part: Sendable, Equatable {
        /// Text copied as it is (escapes already undone).
        case text(String)
        /// A placeholder: its parsed path and the path as written.
        case path(KeyPath, written: String)
        /// Kept as written and reported as `bad_binding` at each fill.
        case malformed(String)
    }

    /// The string as written.
    let source: String
    /// The parts in order; for a whole value, one `.path` or `.malformed`.
    let parts: [Part]
    /// Whether the string is exactly one placeholder.
    let isWholeValue: Bool

    /// Every path the template binds, in order (a repeat appears again;
    /// ``NodePlan`` keeps each path once per node).
    var paths: [KeyPath] {
        parts.compactMap { if case .path(let p, _) = $0 { p } else { nil } }
    }

    /// Splits `s` into parts (see the type's documentation).
    init(_ s: String) {
        source = s
        let u = Array(s.utf8)
        // Whole value: exactly "{{ path }}" with no brace inside.
        if u.count >= 4, u[0] == 0x7B, u[1] == 0x7B, u[u.count - 1] == 0x7D, u[u.count - 2] == 0x7D,
           !u[2..<(u.count - 2)].contains(0x7B), !u[2..<(u.count - 2)].contains(0x7D) {
            let written = String(decoding: Self.trimmed(u[2..<(u.count - 2)]), as: UTF8.self)
            isWholeValue = true
            parts = [BindingScope.parse(Substring(written)).map { .path($0, written: written) } ?? .malformed(s)]
            return
        }
        isWholeValue = false
        var parts: [Part] = []
        var text: [UInt8] = []
        func flush() {
            if !text.isEmpty { parts.append(.text(String(decoding: text, as: UTF8.self))) }
            text.removeAll(keepingCapacity: true)
        }
        var i = 0
        while i < u.count {
            if u[i] == 0x5C, i + 2 < u.count, u[i + 1] == 0x7B, u[i + 2] == 0x7B {   // \{{
                text.append(0x7B); text.append(0x7B)
                i += 3
                continue
            }
            guard u[i] == 0x7B, i + 1 < u.count, u[i + 1] == 0x7B else {
                text.append(u[i])
                i += 1
                continue
            }
            // The closing "}}", with no brace in between.
            var j = i + 2
            while j + 1 < u.count, !(u[j] == 0x7D && u[j + 1] == 0x7D), u[j] != 0x7B { j += 1 }
            flush()
            guard j + 1 < u.count, u[j] == 0x7D, u[j + 1] == 0x7D else {
                parts.append(.malformed(String(decoding: u[i...], as: UTF8.self)))
                i = u.count
                break
            }
            let written = String(decoding: Self.trimmed(u[(i + 2)..<j]), as: UTF8.self)
            if let path = BindingScope.parse(Substring(written)) {
                parts.append(.path(path, written: written))
            } else {
                parts.append(.malformed(String(decoding: u[i...(j + 1)], as: UTF8.self)))
            }
            i = j + 2
        }
        flush()
        self.parts = parts
    }

    /// Fills the template from `scope`.  Returns nil for a whole-value
    /// placeholder whose binding is missing (the prop is removed); problems
    /// are appended to `problems`.  `limit` bounds the bytes the fill may
    /// produce (counted as ``BindingLimits/size(of:within:)`` counts them);
    /// past it the fill stops, returns nil and reports a `.limit` problem.
    /// `produced` receives what the fill produced.
    func fill(scope: BindingScope, problems: inout [BindingProblem], limit: Int = .max,
              produced: inout Int) -> JSONValue? {
        if isWholeValue {
            switch parts[0] {
            case .path(let path, let written):
                guard let v = scope.lookup(path) else {
                    problems.append(BindingProblem(kind: .missing, text: written))
                    return nil
                }
                guard let n = BindingLimits.size(of: v, within: limit) else {
                    problems.append(BindingProblem(kind: .limit, text: "{{\(written)}} is over \(limit) bytes"))
                    return nil
                }
                produced = n
                return v
            default:
                problems.append(BindingProblem(kind: .malformed, text: source))
                return .string(source)
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(source.utf8.count)
        for part in parts {
            switch part {
            case .text(let t):
                out.append(contentsOf: t.utf8)
                continue   // literal text is checked at the next placeholder or at the end
            case .malformed(let t):
                problems.append(BindingProblem(kind: .malformed, text: t))
                out.append(contentsOf: t.utf8)
            case .path(let path, let written):
                guard let v = scope.lookup(path) else {
                    problems.append(BindingProblem(kind: .missing, text: written))
                    break
                }
                if case .string(let t) = v, out.count + t.utf8.count > limit {
                    problems.append(BindingProblem(kind: .limit, text: "the text filled from {{\(written)}} is over \(limit) bytes"))
                    return nil
                }
                switch v {
                case .string(let t): out.append(contentsOf: t.utf8)
                case .int(let n): out.append(contentsOf: String(n).utf8)
                case .double(let d): out.append(contentsOf: JSONValue.text(d).utf8)
                case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
                case .null: break
                case .array, .object: problems.append(BindingProblem(kind: .notText, text: written))
                }
            }
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

    /// Parses `s` and fills it (for callers holding a string, not a plan).
    static func fill(_ s: String, scope: BindingScope, problems: inout [BindingProblem],
                     limit: Int = .max, produced: inout Int) -> JSONValue? {
        BindingTemplate(s).fill(scope: scope, problems: &problems, limit: limit, produced: &produced)
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
