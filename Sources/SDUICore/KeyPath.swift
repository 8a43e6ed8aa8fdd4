// KeyPath.swift - a path into a JSONValue (`a.b`, `items[0].title`,
// `answers['first name']`, `items[*].price`), parsed once and then used to
// read, write, remove, match and compare.

/// A parsed path into a ``JSONValue``.
///
/// **Grammar.**  A path is one or more components, with no spaces:
///
///     path    = first rest*
///     first   = name | bracket
///     rest    = "." name | bracket
///     bracket = "[" ( index | "*" | quoted ) "]"
///     name    = one or more of A-Z a-z 0-9 _ -
///     index   = "0" | [1-9][0-9]*            (at most 2147483647)
///     quoted  = "'" chars "'" | '"' chars '"'
///
/// A name made of digits is a member name, not an index (`a.0` is the member
/// `"0"`; `a[0]` is the first element).  A quoted name holds any text; inside
/// it `\` starts a JSON escape (`\"`, `\'`, `\\`, `\/`, `\b`, `\f`, `\n`,
/// `\r`, `\t`, `\uXXXX` with surrogate pairs) and a raw control character
/// (below U+0020) is refused.  `[*]` is the wildcard: every element of an
/// array (wildcards do not range over object members, whose order JSON does
/// not keep).
///
/// **Canonical text.**  ``description`` writes a member bare when it is a
/// non-empty name (`.name`, or `name` first) and otherwise as `['…']` with
/// single quotes, escaping `'`, `\` and control characters; indexes as
/// `[n]`; the wildcard as `[*]`.  It parses back to the same components, so
/// `KeyPath(p.description) == p`, and two paths are equal exactly when their
/// components are (`a["b"]`, `a['b']` and `a.b` are one path).
///
/// **Bounds.**  The text is at most ``maxTextBytes`` UTF-8 bytes and holds at
/// most ``maxComponents`` components; an index is at most ``maxIndex``.
/// Past a bound the error is `.limit`; any other fault is `.argument`.  Both
/// carry the byte `offset` in the text where the fault is, and a message
/// saying what was expected there.
///
/// **Reading and writing.**  ``get(in:)``, ``set(_:in:)`` and
/// ``remove(from:)`` walk a value along the path; each documents what it
/// does with a missing part, a wrong type and a wildcard.
public struct KeyPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// The member of an object with this name.
        case key(String)
        /// The element of an array at this position (0-based).
        case index(Int)
        /// Every element of an array: `[*]`.
        case wildcard
    }

    /// The longest path text accepted, in UTF-8 bytes.
    public static let maxTextBytes = 4096
    /// The most components a path may have.
    public static let maxComponents = 64
    /// The largest index accepted (`Int32.max`).
    public static let maxIndex = Int(Int32.max)

    /// The steps of the path, first to last; never empty.
    public let components: [Component]

    /// The canonical text of the path (see the type's documentation); it
    /// parses back to this path.
    public let description: String

    /// Whether any component is the wildcard `[*]`.
    public var hasWildcard: Bool { components.contains(.wildcard) }

    /// Parses `text`.
    ///
    /// - Throws: ``SDUIError`` `.argument` for malformed text and `.limit`
    ///   for text past a bound, with the byte `offset` of the fault in
    ///   `text` and a message saying what was expected there.
    public init(_ text: String) throws {
        var parser = Parser(text: text)
        let parsed = try parser.parse()
        self.components = parsed
        self.description = Self.canonicalText(parsed[...])
    }

    /// A path made of `components`.
    ///
    /// - Throws: ``SDUIError`` `.argument` when `components` is empty or an
    ///   index is negative, `.limit` when there are more than
    ///   ``maxComponents``, an index is over ``maxIndex`` or the canonical
    ///   text would be over ``maxTextBytes``.
    public init(components: [Component]) throws {
        guard !components.isEmpty else {
            throw SDUIError(.argument, "a key path needs at least one component")
        }
        guard components.count <= Self.maxComponents else {
            throw SDUIError(.limit, "a key path has at most \(Self.maxComponents) components; this one has \(components.count)")
        }
        for case .index(let n) in components {
            guard n >= 0 else { throw SDUIError(.argument, "index \(n) is negative") }
            guard n <= Self.maxIndex else {
                throw SDUIError(.limit, "index \(n) is over the largest index, \(Self.maxIndex)")
            }
        }
        let text = Self.canonicalText(components[...])
        guard text.utf8.count <= Self.maxTextBytes else {
            throw SDUIError(.limit, "a key path is at most \(Self.maxTextBytes) bytes; this one would be \(text.utf8.count)")
        }
        self.components = components
        self.description = text
    }

    /// Whether two paths have the same components, however their text was
    /// written (`a.b` equals `a['b']`).
    public static func == (a: KeyPath, b: KeyPath) -> Bool { a.components == b.components }
    /// Hashes the components, so equal paths hash alike.
    public func hash(into hasher: inout Hasher) { hasher.combine(components) }
}

// MARK: - Parsing

extension KeyPath {
    /// A one-pass reader of path text, byte by byte over its UTF-8.
    ///
    /// Each step of the loop stands at the start of a component (or of the
    /// `.` before one), reads it whole and appends it; every refusal names
    /// the byte where the text stopped making sense.  Bounds are checked as
    /// they are reached: the text length first, the component count as each
    /// component starts, an index's value digit by digit so it cannot
    /// overflow.
    private struct Parser {
        let text: String
        let bytes: [UInt8]
        var i = 0

        init(text: String) {
            self.text = text
            self.bytes = Array(text.utf8)
        }

        /// Reads the whole text into components.
        mutating func parse() throws -> [Component] {
            guard bytes.count <= KeyPath.maxTextBytes else {
                throw fault(.limit, at: KeyPath.maxTextBytes,
                            "a key path is at most \(KeyPath.maxTextBytes) bytes; this one is \(bytes.count)")
            }
            guard !bytes.isEmpty else {
                throw fault(.argument, at: 0, "expected a name or '[' to start the path; the path is empty")
            }
            var components: [Component] = []
            while i < bytes.count {
                let start = i
                if components.count == KeyPath.maxComponents {
                    throw fault(.limit, at: start, "a key path has at most \(KeyPath.maxComponents) components")
                }
                let b = bytes[i]
                if b == UInt8(ascii: "[") {
                    components.append(try bracket())
                } else if components.isEmpty {
                    guard isNameByte(b) else {
                        throw fault(.argument, at: i, "expected a name or '[' to start the path, found \(shown(i))")
                    }
                    components.append(.key(name()))
                } else if b == UInt8(ascii: ".") {
                    i += 1
                    guard i < bytes.count, isNameByte(bytes[i]) else {
                        let hint = i < bytes.count && bytes[i] == UInt8(ascii: "[") ? " (write '[' without the '.')" : ""
                        throw fault(.argument, at: i, "expected a name after '.', found \(shown(i))\(hint)")
                    }
                    components.append(.key(name()))
                } else {
                    throw fault(.argument, at: i, "expected '.' or '[' after a component, found \(shown(i))")
                }
            }
            assert(!components.isEmpty && components.count <= KeyPath.maxComponents)
            return components
        }

        /// Reads a bare name; `i` is at its first byte, which is a name byte.
        mutating func name() -> String {
            let start = i
            while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
            assert(i > start)
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }

        /// Reads `[ index | * | quoted ]`; `i` is at the `[`.
        mutating func bracket() throws -> Component {
            assert(bytes[i] == UInt8(ascii: "["))
            i += 1
            guard i < bytes.count else {
                throw fault(.argument, at: i, "expected an index, '*' or a quoted name after '[', found the end of the path")
            }
            let component: Component
            let b = bytes[i]
            if b == UInt8(ascii: "*") {
                i += 1
                component = .wildcard
            } else if isDigit(b) {
                component = .index(try index())
            } else if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
                component = .key(try quoted())
            } else {
                let hint = b == UInt8(ascii: "-") ? " (an index cannot be negative)" : ""
                throw fault(.argument, at: i, "expected an index, '*' or a quoted name after '[', found \(shown(i))\(hint)")
            }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "]") else {
                throw fault(.argument, at: i, "expected ']' to close the '[', found \(shown(i))")
            }
            i += 1
            return component
        }

        /// Reads a decimal index; `i` is at its first digit.
        mutating func index() throws -> Int {
            let start = i
            if bytes[i] == UInt8(ascii: "0"), i + 1 < bytes.count, isDigit(bytes[i + 1]) {
                throw fault(.argument, at: i, "an index has no leading zeros")
            }
            var n = 0
            while i < bytes.count, isDigit(bytes[i]) {
                n = n * 10 + Int(bytes[i] - UInt8(ascii: "0"))
                guard n <= KeyPath.maxIndex else {
                    throw fault(.limit, at: start, "the index is over the largest index, \(KeyPath.maxIndex)")
                }
                i += 1
            }
            return n
        }

        /// Reads a quoted name with its escapes; `i` is at the opening quote.
        mutating func quoted() throws -> String {
            let quote = bytes[i]
            i += 1
            var out: [UInt8] = []
            while true {
                guard i < bytes.count else {
                    throw fault(.argument, at: i, "expected a closing \(quote == UInt8(ascii: "'") ? "\"'\"" : "'\"'") for the quoted name, found the end of the path")
                }
                let b = bytes[i]
                if b == quote {
                    i += 1
                    return String(decoding: out, as: UTF8.self)
                } else if b == UInt8(ascii: "\\") {
                    try escape(into: &out)
                } else if b < 0x20 {
                    throw fault(.argument, at: i, "a control character (U+\(hex4(UInt32(b)))) in a quoted name must be written as an escape")
                } else {
                    out.append(b)
                    i += 1
                }
            }
        }

        /// Reads one escape into `out`; `i` is at the backslash.
        mutating func escape(into out: inout [UInt8]) throws {
            let at = i
            guard i + 1 < bytes.count else {
                throw fault(.argument, at: at, "expected an escape after '\\', found the end of the path")
            }
            let e = bytes[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hexUnit(escapeAt: at)
                if (0xDC00...0xDFFF).contains(scalar) {
                    throw fault(.argument, at: at, "\\u\(hex4(scalar)) is a low surrogate without a high surrogate before it")
                }
                if (0xD800...0xDBFF).contains(scalar) {
                    let second = i
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fault(.argument, at: i, "expected '\\u' and a low surrogate after the high surrogate \\u\(hex4(scalar))")
                    }
                    i += 2
                    let low = try hexUnit(escapeAt: second)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw fault(.argument, at: second, "expected a low surrogate (\\uDC00 to \\uDFFF) after \\u\(hex4(scalar)), found \\u\(hex4(low))")
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                // Not a surrogate, or a pair joined above: always a scalar.
                UTF8.encode(Unicode.Scalar(scalar)!) { out.append($0) }
            default:
                throw fault(.argument, at: at, "unknown escape '\\\(shownByte(e))'; expected one of \\\" \\' \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
            }
        }

        /// Reads the four hex digits of a `\u` escape; `i` is at the first.
        mutating func hexUnit(escapeAt at: Int) throws -> UInt32 {
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard i < bytes.count, let d = hexValue(bytes[i]) else {
                    throw fault(.argument, at: i, "expected four hex digits after '\\u', found \(shown(i))")
                }
                v = v << 4 | d
                i += 1
            }
            return v
        }

        /// An error at byte `offset` of the text.
        func fault(_ category: SDUIError.Category, at offset: Int, _ message: String) -> SDUIError {
            SDUIError(category, message, input: "key path \(Self.excerpt(text))", offset: offset)
        }

        /// How the byte at `at` reads in a message: the character there, or
        /// "the end of the path".
        func shown(_ at: Int) -> String {
            guard at < bytes.count else { return "the end of the path" }
            let b = bytes[at]
            if b < 0x80 { return "'\(shownByte(b))'" }
            // The character that starts here (a lead byte: the parser only
            // stops at the start of a character outside quoted names).
            var end = at + 1
            while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
            return "'\(String(decoding: bytes[at..<end], as: UTF8.self))'"
        }

        /// An ASCII byte as a message shows it (control characters as U+XXXX).
        func shownByte(_ b: UInt8) -> String {
            b < 0x20 || b == 0x7F ? "U+\(hex4(UInt32(b)))" : String(UnicodeScalar(b))
        }

        /// The path as an error's `input` names it: quoted, and cut after 64
        /// characters.
        static func excerpt(_ text: String) -> String {
            text.count <= 64 ? "\"\(text)\"" : "\"\(text.prefix(64))…\""
        }
    }
}

/// Whether `b` may appear in a bare name: A-Z a-z 0-9 _ -.
private func isNameByte(_ b: UInt8) -> Bool {
    (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
        || isDigit(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
}

private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

private func hexValue(_ b: UInt8) -> UInt32? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b - UInt8(ascii: "A") + 10)
    default: return nil
    }
}

/// `v` as four upper-case hex digits.
private func hex4(_ v: UInt32) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}

// MARK: - Canonical text

extension KeyPath {
    /// The canonical text of `components` (see the type's documentation).
    static func canonicalText(_ components: ArraySlice<Component>) -> String {
        var out = ""
        for (n, c) in components.enumerated() {
            switch c {
            case .key(let k) where !k.isEmpty && k.utf8.allSatisfy(isNameByte):
                if n > 0 { out += "." }
                out += k
            case .key(let k):
                out += "['" + JSONValue.escaped(k, quote: "'") + "']"
            case .index(let i):
                out += "[\(i)]"
            case .wildcard:
                out += "[*]"
            }
        }
        return out
    }

    /// The byte offset in ``description`` where component `k` starts (its
    /// `.` or `[` included); `components.count` gives the text's length.
    func offset(ofComponent k: Int) -> Int {
        Self.canonicalText(components[..<k]).utf8.count
    }

    /// A place in a value as a message names it: its path, or "the root".
    @usableFromInline
    static func placeText(_ components: [Component]) -> String {
        components.isEmpty ? "the root" : canonicalText(components[...])
    }
}

// MARK: - Reading

extension KeyPath {
    /// The value at this path in `root`.
    ///
    /// Without a wildcard: the value there, or nil when any step is missing
    /// (no such member, an index out of range, or a step into a value of the
    /// wrong type).  An explicit `null` is found: `.null`, not nil.
    ///
    /// With a wildcard: an array of every value the path reaches, in
    /// document order, flattened across several wildcards
    /// (`rows[*].cells[*]` is one list of cells).  Elements that lack the
    /// rest of the path are skipped, so the array may be empty.  The result
    /// is nil only when the part before the first wildcard does not reach an
    /// array.
    @inlinable
    public func get<V: KeyPathTraversable>(in root: V) -> V? {
        guard let firstWildcard = components.firstIndex(of: .wildcard) else {
            var cur = root
            for c in components {
                guard let next = Self.child(of: cur, c) else { return nil }
                cur = next
            }
            return cur
        }
        var cur = root
        for c in components[..<firstWildcard] {
            guard let next = Self.child(of: cur, c) else { return nil }
            cur = next
        }
        guard cur.pathArray != nil else { return nil }
        var found: [V] = []
        collect(cur, from: firstWildcard, into: &found)
        return V.pathArray(found)
    }

    /// Appends every value reached from `node` by components `k...`.
    @inlinable
    func collect<V: KeyPathTraversable>(_ node: V, from k: Int, into found: inout [V]) {
        guard k < components.count else {
            found.append(node)
            return
        }
        if components[k] == .wildcard {
            guard let items = node.pathArray else { return }
            for item in items { collect(item, from: k + 1, into: &found) }
        } else if let next = Self.child(of: node, components[k]) {
            collect(next, from: k + 1, into: &found)
        }
    }

    /// One concrete step from `node`; nil when it leads nowhere.
    @inlinable
    static func child<V: KeyPathTraversable>(of node: V, _ c: Component) -> V? {
        switch c {
        case .key(let k): return node.pathObject?[k]
        case .index(let n):
            guard let items = node.pathArray else { return nil }
            return n < items.count ? items[n] : nil
        case .wildcard: return nil
        }
    }
}

// MARK: - Writing

extension KeyPath {
    /// Writes `value` at this path in `root`.
    ///
    /// - A **name** needs an object where it applies (else `.schema`).  A
    ///   missing member is created: as `value` at the last step, and as an
    ///   empty object before a further name.  Nothing else is created.
    /// - An **index** needs an existing array (else `.notFound` when it is
    ///   missing, `.schema` when it is another type).  At the last step the
    ///   index may be within the array (the element is replaced) or equal to
    ///   its count (`value` is appended); past that is `.notFound`.  Before a
    ///   further step the element must exist.
    /// - A **wildcard** applies the rest of the path to every element of an
    ///   existing array (at the last step, every element becomes `value`); an
    ///   empty array is left as it is.
    /// - `null` is a value, not a missing member: a step into it is `.schema`.
    ///
    /// All or nothing: the whole path is checked before anything is written,
    /// so when this throws, `root` is unchanged.  An error names this path
    /// (`input`), the byte `offset` in ``description`` of the step that
    /// failed, and, in its message, the place reached (with the element a
    /// wildcard stood for: `items[2].price is a number, not an object`).
    @inlinable
    public func set<V: KeyPathTraversable>(_ value: V, in root: inout V) throws {
        var trail: [Component] = []
        try check(root, from: 0, trail: &trail)
        Self.write(value, into: &root, components[...])
    }

    /// Throws the error `set` would meet walking `node` (reached by the
    /// first `k` components, concretely `trail`) along the rest of the
    /// path, without writing.
    @inlinable
    func check<V: KeyPathTraversable>(_ node: V, from k: Int, trail: inout [Component]) throws {
        assert(trail.count == k)
        let last = k == components.count - 1
        switch components[k] {
        case .key(let name):
            guard let members = node.pathObject else { throw typeFault(k, trail, node, "an object") }
            if last { return }
            if let next = members[name] {
                trail.append(.key(name))
                try check(next, from: k + 1, trail: &trail)
                trail.removeLast()
            } else if let j = components[(k + 1)...].firstIndex(where: { if case .key = $0 { false } else { true } }) {
                // The objects made for the missing names hold no arrays.
                let missing = trail + components[k..<j]
                throw fault(.notFound, j, "\(Self.placeText(missing)) does not exist; set creates objects for names, not arrays")
            }
        case .index(let n):
            guard let items = node.pathArray else { throw typeFault(k, trail, node, "an array") }
            if last {
                guard n <= items.count else {
                    throw fault(.notFound, k, "index \(n) is past the end of \(Self.placeText(trail)), which has \(items.count) elements; set may replace one or append at \(items.count)")
                }
                return
            }
            guard n < items.count else {
                throw fault(.notFound, k, "index \(n) is past the end of \(Self.placeText(trail)), which has \(items.count) elements")
            }
            trail.append(.index(n))
            try check(items[n], from: k + 1, trail: &trail)
            trail.removeLast()
        case .wildcard:
            guard let items = node.pathArray else { throw typeFault(k, trail, node, "an array") }
            if last { return }
            for (j, item) in items.enumerated() {
                trail.append(.index(j))
                try check(item, from: k + 1, trail: &trail)
                trail.removeLast()
            }
        }
    }

    /// Writes `value` at `rest` in `node`; `check` has passed, so every step
    /// is possible.  Each container is taken out of `node` while it changes,
    /// so it is changed in place rather than copied.
    @inlinable
    static func write<V: KeyPathTraversable>(_ value: V, into node: inout V, _ rest: ArraySlice<Component>) {
        guard let c = rest.first else {
            node = value
            return
        }
        let tail = rest.dropFirst()
        switch c {
        case .key(let name):
            guard var members = node.pathObject else { preconditionFailure("set: checked path met a non-object") }
            node = V.pathPlaceholder
            var child = members.removeValue(forKey: name) ?? V.pathObject([:])
            write(value, into: &child, tail)
            members[name] = child
            node = V.pathObject(members)
        case .index(let n):
            guard var items = node.pathArray else { preconditionFailure("set: checked path met a non-array") }
            node = V.pathPlaceholder
            if n == items.count {
                assert(tail.isEmpty)
                items.append(value)
            } else {
                write(value, into: &items[n], tail)
            }
            node = V.pathArray(items)
        case .wildcard:
            guard var items = node.pathArray else { preconditionFailure("set: checked path met a non-array") }
            node = V.pathPlaceholder
            for j in items.indices { write(value, into: &items[j], tail) }
            node = V.pathArray(items)
        }
    }

    /// Removes the value at this path from `root` and returns it.
    ///
    /// Without a wildcard: the removed value, or nil (and `root` unchanged)
    /// when nothing is there.  Removing an element shifts the later ones
    /// down.
    ///
    /// With a wildcard: every value the path reaches is removed, and they
    /// are returned as an array in document order, as ``get(in:)`` would
    /// have listed them (`items[*]` empties `items`).  The result is nil
    /// only when the part before the first wildcard does not reach an array.
    @discardableResult @inlinable
    public func remove<V: KeyPathTraversable>(from root: inout V) -> V? {
        if let firstWildcard = components.firstIndex(of: .wildcard) {
            var cur = root
            for c in components[..<firstWildcard] {
                guard let next = Self.child(of: cur, c) else { return nil }
                cur = next
            }
            guard cur.pathArray != nil else { return nil }
        }
        var removed: [V] = []
        Self.remove(from: &root, components[...], into: &removed)
        if hasWildcard { return V.pathArray(removed) }
        assert(removed.count <= 1)
        return removed.first
    }

    /// Removes what `rest` reaches in `node`, appending it to `removed`.
    @inlinable
    static func remove<V: KeyPathTraversable>(from node: inout V, _ rest: ArraySlice<Component>, into removed: inout [V]) {
        guard let c = rest.first else { return }
        let tail = rest.dropFirst()
        switch c {
        case .key(let name):
            guard var members = node.pathObject, members[name] != nil else { return }
            node = V.pathPlaceholder
            if tail.isEmpty {
                removed.append(members.removeValue(forKey: name)!)
            } else {
                remove(from: &members[name]!, tail, into: &removed)
            }
            node = V.pathObject(members)
        case .index(let n):
            guard var items = node.pathArray, n < items.count else { return }
            node = V.pathPlaceholder
            if tail.isEmpty {
                removed.append(items.remove(at: n))
            } else {
                remove(from: &items[n], tail, into: &removed)
            }
            node = V.pathArray(items)
        case .wildcard:
            guard var items = node.pathArray else { return }
            node = V.pathPlaceholder
            if tail.isEmpty {
                removed.append(contentsOf: items)
                items.removeAll()
            } else {
                for j in items.indices { remove(from: &items[j], tail, into: &removed) }
            }
            node = V.pathArray(items)
        }
    }

    /// A `set` error at component `k`.
    @usableFromInline
    func fault(_ category: SDUIError.Category, _ k: Int, _ message: String) -> SDUIError {
        SDUIError(category, message, input: "key path \(Parser.excerpt(description))", offset: offset(ofComponent: k))
    }

    /// A `set` error: the value reached by the first `k` components (the
    /// place `trail`) is not the container component `k` needs.
    @inlinable
    func typeFault<V: KeyPathTraversable>(_ k: Int, _ trail: [Component], _ found: V, _ wanted: String) -> SDUIError {
        fault(.schema, k, "\(Self.placeText(trail)) is \(found.pathKindText), not \(wanted)")
    }
}

// MARK: - Comparing paths

extension KeyPath {
    /// Whether this path is one of those `pattern` stands for: the same
    /// number of components, each equal, except that a wildcard in
    /// `pattern` matches any index (`items[3].price` matches
    /// `items[*].price`).  A wildcard in this path matches only a wildcard
    /// in `pattern`; a wildcard never matches a name.
    public func matches(_ pattern: KeyPath) -> Bool {
        guard components.count == pattern.components.count else { return false }
        return zip(components, pattern.components).allSatisfy { c, p in
            switch (c, p) {
            case (.index, .wildcard): return true
            default: return c == p
            }
        }
    }

    /// Whether the two paths reach a shared part of a value: one is the
    /// other's parent, ancestor, equal or child, with a wildcard (on either
    /// side) matching any index or wildcard.  `cart` and `cart.total`
    /// intersect (a change to either touches the other); `cart.total` and
    /// `cart.items` do not; `items[*].price` and `items[2]` do.
    public func intersects(_ other: KeyPath) -> Bool {
        zip(components, other.components).allSatisfy { a, b in
            switch (a, b) {
            case (.wildcard, .index), (.index, .wildcard): return true
            default: return a == b
            }
        }
    }

    /// Whether `other` starts with all of this path's components, compared
    /// exactly (a wildcard is a prefix of a wildcard only; see
    /// ``intersects(_:)`` for wildcard-aware comparison).  A path is a
    /// prefix of itself.
    public func isPrefix(of other: KeyPath) -> Bool {
        components.count <= other.components.count && other.components.starts(with: components)
    }
}

// MARK: - Text forms

extension KeyPath: Codable {
    /// Decodes a path from its text form (any text ``init(_:)`` accepts).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try KeyPath(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "not a key path: \(error)",
                                                    underlyingError: error))
        }
    }

    /// Encodes the path as its canonical text, ``description``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension KeyPath: ExpressibleByStringLiteral {
    /// A path written in code: `let p: KeyPath = "items[*].price"`.
    ///
    /// A literal is part of the program, so a malformed one is a programming
    /// error: it stops the program with a precondition failure that quotes
    /// the literal and says what is wrong.  Note that Swift reads
    /// `KeyPath("…")` with a literal argument as this literal form too, so
    /// `try KeyPath("a..b")` stops rather than throws; ``init(_:)`` throws
    /// for text held in a variable, which is how text from data arrives.
    public init(stringLiteral value: String) {
        do {
            self = try KeyPath(value)
        } catch {
            preconditionFailure("invalid KeyPath literal \"\(value)\": \(error)")
        }
    }
}
