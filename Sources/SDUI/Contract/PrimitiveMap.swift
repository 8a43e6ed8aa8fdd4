// PrimitiveMap.swift - the primitive-version contract: the primitives a client draws, at which versions.
import Foundation
internal import CSDUI
import SDUICore

/// The primitives a client renders and the highest version of each, as sent
/// in the `X-Primitives` header: `Column@3,Text@4,AsyncImage@2`.
///
/// **Version rule.**  Versions are positive integers.  A client with `X@n`
/// renders every node that needs `X@m` for `m ≤ n`.  A token is compatible
/// only if every node of its tree is: the root and each nested child, whose
/// `primitiveVersion` defaults to 1.
///
/// **Minor feature flags: none.**  A change that an
/// older client can safely ignore — a new optional prop — needs no new
/// version, because renderers ignore props they do not know.  A change that
/// an older client would draw wrongly needs the next integer version.  So
/// the header stays one integer per primitive, and the server's choice of a
/// token version stays a single comparison per node.
///
/// **Grammar** (strict, white space tolerated around items):
///
///     header  = item *( OWS "," OWS item )
///     item    = name "@" version
///     name    = ALPHA *63( ALPHA / DIGIT / "_" )
///     version = %x31-39 *8DIGIT            ; 1 … 999,999,999
///
/// At most 4,096 bytes and 256 items; a name may appear once.
public struct PrimitiveMap: Sendable, Equatable, CustomStringConvertible {
    /// Primitives in header order, with their versions.
    public private(set) var entries: [(name: String, version: Int)]
    private var index: [String: Int]
    /// Prop rules by primitive (not part of the header), sorted by prop
    /// name so checks (and the issues they raise) come in the same order on
    /// every run.
    private var rules: [String: [(name: String, rule: PropRule)]] = [:]

    /// Longest `X-Primitives` value ``init(parsing:)`` accepts, in bytes (4,096);
    /// a longer one is a `.limit` error.
    public static let maxHeaderBytes = 4096
    /// Most primitives ``init(parsing:)`` accepts in one header (256).
    public static let maxItems = 256

    /// The built-in primitives: each row of ``PrimitiveSpec/builtIn`` at its
    /// version, in table order (the core five, Column 3, Row 2, Text 4,
    /// AsyncImage 2 and Spacer 1, first), with the row's prop rules.
    public static let builtIn = try! PrimitiveMap(specs: PrimitiveSpec.builtIn)

    /// A map of the rows `specs`, with their prop rules; a repeated or
    /// malformed name, or a version below 1, is an error.
    init(specs: [PrimitiveSpec]) throws {
        try self.init(specs.map { ($0.name, $0.version) })
        for spec in specs { rules[spec.name] = Self.sorted(spec.props) }
    }

    /// A map of the given primitives; a repeated or malformed name, or a
    /// version below 1, is an error.
    public init(_ entries: [(String, Int)]) throws {
        self.entries = []
        self.index = [:]
        for (name, version) in entries { try add(name, version) }
    }

    /// Parses an `X-Primitives` header value.  Errors are `.schema`, with
    /// the input `X-Primitives` and the byte offset of the fault; a header
    /// over ``maxHeaderBytes`` is `.limit`.
    public init(parsing header: String) throws {
        self.entries = []
        self.index = [:]
        let bytes = Array(header.utf8)
        func fail(_ at: Int, _ what: String) -> SDUIError {
            SDUIError(.schema, what, input: "X-Primitives", offset: at)
        }
        guard bytes.count <= Self.maxHeaderBytes else {
            throw SDUIError(.limit, "header of \(bytes.count) bytes is over \(Self.maxHeaderBytes)",
                            input: "X-Primitives")
        }
        var i = 0
        func skipSpace() { while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 } }
        skipSpace()
        guard i < bytes.count else { throw fail(i, "empty header: expected Name@version") }
        while true {
            let start = i
            guard i < bytes.count, Self.isAlpha(bytes[i]) else {
                throw fail(i, "expected a primitive name starting with a letter")
            }
            while i < bytes.count, Self.isNameByte(bytes[i]) { i += 1 }
            let name = String(decoding: bytes[start..<i], as: UTF8.self)
            guard i - start <= 64 else { throw fail(start, "primitive name longer than 64 bytes") }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "@") else {
                throw fail(i, "expected '@' after \"\(name)\"")
            }
            i += 1
            let vstart = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            let digits = bytes[vstart..<i]
            guard !digits.isEmpty else { throw fail(vstart, "expected a version number for \(name)") }
            guard digits.first != 0x30 else { throw fail(vstart, "version of \(name) must be 1 or more, without leading zeros") }
            guard digits.count <= 9 else { throw fail(vstart, "version of \(name) is too large") }
            let version = Int(String(decoding: digits, as: UTF8.self))!
            guard index[name] == nil else { throw fail(start, "\(name) is listed twice") }
            guard entries.count < Self.maxItems else { throw fail(start, "more than \(Self.maxItems) primitives") }
            index[name] = entries.count
            entries.append((name, version))
            skipSpace()
            if i == bytes.count { break }
            guard bytes[i] == UInt8(ascii: ",") else { throw fail(i, "expected ',' between primitives") }
            i += 1
            skipSpace()
            guard i < bytes.count else { throw fail(i, "trailing ','") }
        }
    }

    private mutating func add(_ name: String, _ version: Int) throws {
        let b = Array(name.utf8)
        guard let first = b.first, Self.isAlpha(first), b.count <= 64, b.allSatisfy(Self.isNameByte) else {
            throw SDUIError(.argument, "\"\(name)\" is not a primitive name (a letter, then letters, digits or _)")
        }
        guard (1...999_999_999).contains(version) else {
            throw SDUIError(.argument, "version \(version) of \(name) must be 1 or more")
        }
        guard index[name] == nil else { throw SDUIError(.argument, "\(name) is listed twice") }
        index[name] = entries.count
        entries.append((name, version))
    }

    /// The highest version of `primitive` this client renders, or nil.
    public func version(of primitive: String) -> Int? { index[primitive].map { entries[$0].version } }

    /// Whether a node needing `primitive@version` can be rendered.
    public func supports(_ primitive: String, version: Int) -> Bool {
        (self.version(of: primitive) ?? 0) >= version
    }

    /// The prop rules of `primitive` (empty when it has none).
    public func propRules(of primitive: String) -> [String: PropRule] {
        Dictionary(uniqueKeysWithValues: orderedPropRules(of: primitive))
    }

    /// The prop rules of `primitive` sorted by prop name.
    func orderedPropRules(of primitive: String) -> [(name: String, rule: PropRule)] { rules[primitive] ?? [] }

    static func sorted(_ rules: [String: PropRule]) -> [(name: String, rule: PropRule)] {
        rules.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// A copy with `primitive` at `version` added or replaced (an app's own
    /// primitive), with the rules its props must follow.  Passing nil keeps
    /// the rules a replaced primitive had.
    public func adding(_ primitive: String, version: Int,
                       props: [String: PropRule]? = nil) throws -> PrimitiveMap {
        var copy = try adding(primitive, version: version)
        if let props { copy.rules[primitive] = Self.sorted(props) }
        return copy
    }

    /// A copy with `primitive` at `version` added or replaced.
    public func adding(_ primitive: String, version: Int) throws -> PrimitiveMap {
        var copy = self
        if let i = copy.index[primitive] {
            guard (1...999_999_999).contains(version) else {
                throw SDUIError(.argument, "version \(version) of \(primitive) must be 1 or more")
            }
            copy.entries[i].version = version
        } else {
            try copy.add(primitive, version)
        }
        return copy
    }

    /// A copy with each primitive of `other` added, or its version replaced
    /// (a client's `X-Primitives` over the built-ins); prop rules are kept.
    public func merging(_ other: PrimitiveMap) throws -> PrimitiveMap {
        var map = self
        for (name, version) in other.entries { map = try map.adding(name, version: version) }
        return map
    }

    /// The header value, in entry order: `Column@3,Text@4`.
    public var headerValue: String { entries.map { "\($0.name)@\($0.version)" }.joined(separator: ",") }
    /// The header value (``headerValue``).
    public var description: String { headerValue }

    /// Maps are equal when they list the same primitives at the same versions in
    /// the same order, with the same prop rules.
    public static func == (a: PrimitiveMap, b: PrimitiveMap) -> Bool {
        a.entries.count == b.entries.count && zip(a.entries, b.entries).allSatisfy { $0 == $1 }
            && a.rules.count == b.rules.count
            && a.rules.allSatisfy { p, mine in b.rules[p].map { mine.elementsEqual($0) { $0 == $1 } } ?? false }
    }

    // MARK: compatibility

    /// A node the client cannot render.
    public struct Unsupported: Sendable, Equatable, CustomStringConvertible {
        /// Where in the token: `root`, `props.children[1]`, …
        public var path: String
        /// The primitive the node names.
        public var primitive: String
        /// The version the node needs: its `primitiveVersion`, 1 when a child leaves it out.
        public var requiredVersion: Int
        /// What the client has (nil: it does not know the primitive).
        public var clientVersion: Int?

        /// A failing node from its parts.
        public init(path: String, primitive: String, requiredVersion: Int, clientVersion: Int?) {
            self.path = path
            self.primitive = primitive
            self.requiredVersion = requiredVersion
            self.clientVersion = clientVersion
        }

        /// `path: Primitive@required (client has Primitive@n)`, or `none` when
        /// the client lacks the primitive.
        public var description: String {
            "\(path): \(primitive)@\(requiredVersion) (client has \(clientVersion.map { "\(primitive)@\($0)" } ?? "none"))"
        }
    }

    /// Every node of `token` the client cannot render; empty when compatible.
    public func unsupportedNodes(in token: DesignToken) -> [Unsupported] {
        var out: [Unsupported] = []
        check("root", token.primitive, token.primitiveVersion, &out)
        walk(token.props, path: "props", &out)
        return out
    }

    /// The highest version of each primitive anywhere in `token`'s tree: a
    /// client supporting all of these draws every node.  (Every node is
    /// unsupported by an empty map, so the same walk lists them.)
    public static func requirements(of token: DesignToken) -> [String: Int] {
        var needs: [String: Int] = [:]
        for node in none.unsupportedNodes(in: token) {
            needs[node.primitive] = max(needs[node.primitive] ?? 0, node.requiredVersion)
        }
        return needs
    }

    private static let none = try! PrimitiveMap([])

    /// Whether every node of `token` can be rendered.
    public func isCompatible(_ token: DesignToken) -> Bool { unsupportedNodes(in: token).isEmpty }

    private func check(_ path: String, _ primitive: String, _ version: Int, _ out: inout [Unsupported]) {
        if !supports(primitive, version: version) {
            out.append(Unsupported(path: path, primitive: primitive, requiredVersion: version,
                                   clientVersion: self.version(of: primitive)))
        }
    }

    /// Children live in `props.children` at every depth (see token.h).
    private func walk(_ props: JSONValue, path: String, _ out: inout [Unsupported]) {
        guard let children = props["children"]?.arrayValue else { return }
        for (i, child) in children.enumerated() {
            let p = "\(path).children[\(i)]"
            guard let name = child["primitive"]?.stringValue else { continue }
            let v = child["primitiveVersion"]?.intValue.map(Int.init) ?? 1
            check(p, name, v, &out)
            if let sub = child["props"] { walk(sub, path: p + ".props", &out) }
        }
    }

    private static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    private static func isNameByte(_ b: UInt8) -> Bool {
        isAlpha(b) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "_")
    }
}

