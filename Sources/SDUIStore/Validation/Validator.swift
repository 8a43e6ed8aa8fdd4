// Validator.swift - checks a proposed state against the rules a write touches.
//
// A write is validated on the state it would produce, not on the value
// alone: writing `cart` validates the rule of `cart.total` against the new
// `cart`, removing `user.name` checks that it is not required, and a rule
// on `items[*].price` checks every item's price.  For each rule whose path
// intersects the written path, the validator reads the value at the rule's
// path (each concrete path, for a wildcard rule) in the proposed state and
// checks kind, range and pattern.  In strict mode the first fault refuses
// the write; in lenient mode a value is coerced where a form exists, else
// replaced by the rule's default, and the proposed state is amended in
// place, with a warning for each amendment.
import Foundation
import SDUICore

/// The rules of a store, ready to check writes.
struct Validator {
    let options: ValidationOptions
    private let rules: [(path: KeyPath, rule: ValidationRule)]
    /// `matches(v, p)`: the expression language's regular expressions.
    private let matcher: CompiledExpression

    /// Parses the rules' paths and checks their patterns.
    ///
    /// - Throws: ``SDUIError`` naming the rule's key path when a path is
    ///   malformed or a pattern is not a valid pattern.
    init(_ options: ValidationOptions) throws {
        self.options = options
        self.matcher = try CompiledExpression("matches(v, p)")
        var rules: [(KeyPath, ValidationRule)] = []
        for (text, rule) in options.schema.sorted(by: { $0.key < $1.key }) {
            let path = try KeyPath(text)
            if let pattern = rule.pattern {
                do {
                    _ = try matcher.evaluate(JSONDocument(["v": "", "p": .string(pattern)]))
                } catch let e as SDUIError {
                    throw SDUIError(e.category, "the pattern of \(text) is not valid: \(e.message)",
                                    input: "validation rule '\(text)'")
                }
            }
            rules.append((path, rule))
        }
        self.rules = rules
    }

    /// Checks `state` after a write at `written` (nil: everything was
    /// replaced), amending it in lenient mode.  Returns the result and
    /// appends lenient amendments to `warnings`.
    func check(_ state: inout StoreValue, written: KeyPath?, warnings: inout [String]) -> ValidationResult {
        for (path, rule) in rules where written.map({ path.intersects($0) }) ?? true {
            for concrete in Self.expand(path, in: state) {
                if let reason = apply(rule, at: concrete, in: &state, warnings: &warnings) {
                    return .failed(reason: reason)
                }
            }
        }
        return .ok
    }

    /// Brings the values a store already holds when the rules arrive (what
    /// a scope loaded from its saved state, or wrote before) into line with
    /// them, in either mode, since they cannot be refused any more: a
    /// missing required key gets its default; a value of another form is
    /// normalised (a colour string becomes `.color`); an invalid value is
    /// coerced when a form exists, else replaced by the rule's default,
    /// else removed.  Each repair of an invalid value is a warning.
    /// Returns the paths changed.
    func repair(_ state: inout StoreValue, warnings: inout [String]) -> [KeyPath] {
        var changed: [KeyPath] = []
        for (path, rule) in rules {
            if rule.required, !path.hasWildcard, path.get(in: state) == nil, let d = rule.defaultValue,
               (try? path.set(d, in: &state)) != nil {
                changed.append(path)
            }
            for concrete in Self.expand(path, in: state) {
                guard let value = concrete.get(in: state) else { continue }
                switch Self.judge(value, rule, lenient: true, matcher: matcher) {
                case .valid(let normal):
                    if normal != value, (try? concrete.set(normal, in: &state)) != nil { changed.append(concrete) }
                case .invalid(let reason, let coerced):
                    if let coerced, (try? concrete.set(coerced, in: &state)) != nil {
                        warnings.append("\(concrete) held before the rules: \(reason); coerced to \(coerced.jsonValue)")
                    } else if let d = rule.defaultValue, (try? concrete.set(d, in: &state)) != nil {
                        warnings.append("\(concrete) held before the rules: \(reason); replaced by its default")
                    } else {
                        concrete.remove(from: &state)
                        warnings.append("\(concrete) held before the rules: \(reason); removed")
                    }
                    changed.append(concrete)
                }
            }
        }
        return changed
    }

    /// Checks one concrete path; a reason when the write must be refused.
    private func apply(_ rule: ValidationRule, at path: KeyPath, in state: inout StoreValue,
                       warnings: inout [String]) -> String? {
        let lenient = options.mode == .lenient
        guard let value = path.get(in: state) else {
            guard rule.required else { return nil }
            if lenient, let d = rule.defaultValue, (try? path.set(d, in: &state)) != nil {
                warnings.append("\(path) is required and was missing; wrote its default")
                return nil
            }
            return "\(path) is required"
        }
        switch Self.judge(value, rule, lenient: lenient, matcher: matcher) {
        case .valid(let normal):
            if normal != value { try? path.set(normal, in: &state) }
            return nil
        case .invalid(let reason, let coerced):
            if lenient {
                if let coerced, (try? path.set(coerced, in: &state)) != nil {
                    warnings.append("\(path): \(reason); coerced to \(coerced.jsonValue)")
                    return nil
                }
                if let d = rule.defaultValue, (try? path.set(d, in: &state)) != nil {
                    warnings.append("\(path): \(reason); wrote its default")
                    return nil
                }
            }
            return "\(path): \(reason)"
        }
    }

    /// The verdict on one value.
    enum Verdict {
        /// Acceptable, in this form (a colour string becomes `.color`).
        case valid(StoreValue)
        /// Not acceptable; `coerced` is the lenient form, when there is one.
        case invalid(String, coerced: StoreValue?)
    }

    /// Judges `value` against `rule`.
    static func judge(_ value: StoreValue, _ rule: ValidationRule, lenient: Bool, matcher: CompiledExpression) -> Verdict {
        let (normal, coerced) = kindForm(value, rule.kind)
        guard let v = normal else {
            let form = coerced.flatMap { c -> StoreValue? in
                if case .valid(let n) = judge(c, rule, lenient: lenient, matcher: matcher) { return n }
                return nil
            }
            return .invalid("\(value.pathKindText) is not \(article(rule.kind))", coerced: form)
        }
        if let size = measure(v) {
            if let lo = rule.min, size < lo { return .invalid("\(describe(v, size)) is less than the minimum \(JSONValue.text(lo))", coerced: nil) }
            if let hi = rule.max, size > hi { return .invalid("\(describe(v, size)) is more than the maximum \(JSONValue.text(hi))", coerced: nil) }
        }
        if let pattern = rule.pattern, case .string(let s) = v.jsonValue {
            let doc = try? JSONDocument(["v": .string(s), "p": .string(pattern)])
            if let doc, (try? matcher.evaluate(doc)) != .bool(true) {
                return .invalid("\(JSONValue.literal(s)) does not match the pattern \(JSONValue.literal(pattern))", coerced: nil)
            }
        }
        return .valid(v)
    }

    /// `value` in `kind`'s form (nil when it is not of that kind) and,
    /// for lenient mode, the coercion of a value of another kind.
    private static func kindForm(_ value: StoreValue, _ kind: ValidationRule.Kind) -> (StoreValue?, StoreValue?) {
        switch (kind, value) {
        case (.string, .string), (.number, .number), (.number, .integer), (.integer, .integer),
             (.bool, .bool), (.array, .array), (.object, .object):
            return (value, nil)
        case (.string, .color(let s)), (.string, .url(let s)):
            return (.string(s), nil)
        case (.string, _):
            return (nil, value.jsonValue.scalarText.map { .string($0) })
        case (.number, .string(let s)):
            return (nil, parseNumber(s))
        case (.integer, .number(let d)):
            return (nil, d.rounded() == d && abs(d) < 9.2e18 ? .integer(Int(d)) : nil)
        case (.integer, .string(let s)):
            return (nil, Int(s.trimmingCharacters(in: .whitespaces)).map { .integer($0) })
        case (.bool, .string(let s)):
            switch s.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "1", "yes": return (nil, .bool(true))
            case "false", "0", "no": return (nil, .bool(false))
            default: return (nil, nil)
            }
        case (.bool, .integer(let n)):
            return (nil, n == 0 || n == 1 ? .bool(n == 1) : nil)
        case (.color, .color(let s)), (.color, .string(let s)):
            return (try? RGBColor(hex: s)) != nil ? (.color(s), nil) : (nil, nil)
        case (.url, .url(let s)), (.url, .string(let s)):
            return isURL(s) ? (.url(s), nil) : (nil, nil)
        default:
            return (nil, nil)
        }
    }

    /// A number read from text: an integer when it is one.
    private static func parseNumber(_ s: String) -> StoreValue? {
        let t = s.trimmingCharacters(in: .whitespaces)
        if let n = Int(t) { return .integer(n) }
        if let d = Double(t), d.isFinite { return .number(d) }
        return nil
    }

    /// Whether `s` is an absolute URL with a scheme and something after it.
    private static func isURL(_ s: String) -> Bool {
        guard let u = URL(string: s), let scheme = u.scheme, !scheme.isEmpty else { return false }
        return s.count > scheme.count + 1
    }

    /// What min/max bound: a number's value, a string's length, a count.
    private static func measure(_ v: StoreValue) -> Double? {
        switch v {
        case .integer(let n): return Double(n)
        case .number(let d): return d
        case .string(let s): return Double(s.unicodeScalars.count)
        case .array(let a): return Double(a.count)
        case .object(let o): return Double(o.count)
        default: return nil
        }
    }

    /// A value and its measure as a message says it.
    private static func describe(_ v: StoreValue, _ size: Double) -> String {
        switch v {
        case .integer, .number: return JSONValue.text(size)
        case .string: return "a string of length \(JSONValue.text(size))"
        default: return "\(v.pathKindText) of \(JSONValue.text(size)) items"
        }
    }

    /// The kind with its article: `a number`, `an integer`, `a URL`.
    private static func article(_ k: ValidationRule.Kind) -> String {
        switch k {
        case .integer, .array, .object: return "an \(k.rawValue)"
        case .url: return "a URL"
        case .color: return "a colour"
        default: return "a \(k.rawValue)"
        }
    }

    /// The concrete paths a rule's path stands for in `state` (itself when
    /// it has no wildcard; each element's path otherwise).
    static func expand(_ path: KeyPath, in state: StoreValue) -> [KeyPath] {
        guard path.hasWildcard else { return [path] }
        var out: [[KeyPath.Component]] = []
        func walk(_ node: StoreValue?, _ k: Int, _ trail: [KeyPath.Component]) {
            guard k < path.components.count else { out.append(trail); return }
            let c = path.components[k]
            if c == .wildcard {
                guard case .array(let items)? = node else { return }
                for i in items.indices { walk(items[i], k + 1, trail + [.index(i)]) }
            } else {
                let next: StoreValue?
                switch (c, node) {
                case (.key(let name), .object(let m)?): next = m[name]
                case (.index(let i), .array(let a)?): next = i < a.count ? a[i] : nil
                default: next = nil
                }
                walk(next, k + 1, trail + [c])
            }
        }
        walk(state, 0, [])
        return out.compactMap { try? KeyPath(components: $0) }
    }
}
