// DesignToken.swift - one design token, backed by the C core's token.
import Foundation
internal import CSDUI
import SDUICore

/// A design token (schemas/design-token.json): id, version, root primitive
/// and its version, and a props tree.
///
/// Immutable.  The props tree stays in the C core until ``props`` is asked
/// for, so looking tokens up costs no Swift copies.
///
/// `@unchecked Sendable`: the C token is immutable after parsing and its
/// reference count is atomic, so every accessor is safe from any thread.
/// What Swift derives from it (converted props, the resolution plan) is
/// attached to the C token once, by compare-and-swap, and never changes.
public final class DesignToken: @unchecked Sendable {
    let handle: OpaquePointer

    /// The token's id, as in its JSON; unique within a pack.
    public let id: String
    /// The token's own version, an integer of at least 1.
    public let version: Int
    /// The name of the root node's primitive (`"Column"`, `"Text"`, ...).
    public let primitive: String
    /// The version of the root primitive the token needs, at least 1.
    public let primitiveVersion: Int

    /// Takes ownership of one reference to a C token.
    init(adopting handle: OpaquePointer) {
        self.handle = handle
        var len = 0
        id = String(cBytes: sdui_token_id(handle, &len), count: len)
        primitive = String(cBytes: sdui_token_primitive(handle, &len), count: len)
        version = Int(sdui_token_version(handle))
        primitiveVersion = Int(sdui_token_primitive_version(handle))
    }

    /// Parses and schema-checks one token from its JSON.  `source` names the
    /// input in errors (a path or URL).  JSON over `limits.maxTokenBytes` is
    /// refused before it is parsed.
    public convenience init(json: Data, source: String? = nil, limits: PackLimits = .default) throws {
        var err = sdui_error()
        var out: OpaquePointer?
        var cl = limits.c
        let status = json.withUnsafeBytes { raw in
            sdui_token_parse(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count,
                             &cl, &out, &err)
        }
        try SDUIError.check(status, err, input: source)
        self.init(adopting: out!)
    }

    /// Parses a token from a JSON string.
    public convenience init(json: String, source: String? = nil, limits: PackLimits = .default) throws {
        try self.init(json: Data(json.utf8), source: source, limits: limits)
    }

    deinit { sdui_token_release(handle) }

    /// The token's exact JSON text.
    public var json: Data {
        var len = 0
        let p = sdui_token_json(handle, &len)!
        return Data(bytes: p, count: len)
    }

    /// Calls `body` with the token's exact JSON text where the C core holds
    /// it (no copy); the bytes are valid during the call only.
    public func withJSONBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var len = 0
        let p = sdui_token_json(handle, &len)
        return try withExtendedLifetime(self) { try body(UnsafeRawBufferPointer(start: p, count: len)) }
    }

    /// Size of the token's JSON text in bytes.
    public var byteCount: Int {
        var len = 0
        _ = sdui_token_json(handle, &len)
        return len
    }

    /// What Swift derives from a token, kept with the C token so every
    /// handle to it (a cache hands out a new one per lookup) shares it: the
    /// props as Swift values, and memos other layers attach (a render plan,
    /// say) without this layer knowing what they are.
    private final class Derived: Sendable {
        let props: JSONValue
        let memos = Locked<[ObjectIdentifier: any Sendable]>([:])
        init(props: JSONValue) { self.props = props }
    }

    /// The derived values, built by the first caller and attached to the C token.
    private var derived: Derived {
        if let p = sdui_token_attached(handle) {
            return Unmanaged<Derived>.fromOpaque(p).takeUnretainedValue()
        }
        let made = Derived(props: JSONValue(sdui_token_props(handle)))
        let mine = Unmanaged.passRetained(made).toOpaque()
        let won = sdui_token_attach(handle, mine) { Unmanaged<AnyObject>.fromOpaque($0!).release() }!
        if won != mine {
            Unmanaged<Derived>.fromOpaque(mine).release()
            return Unmanaged<Derived>.fromOpaque(won).takeUnretainedValue()
        }
        return made
    }

    /// The props object as Swift values, converted once per token.
    public var props: JSONValue { derived.props }

    /// A value derived from this token, computed once per token (by the
    /// first caller; a racing second result is dropped) and shared by every
    /// handle to it.  `T` names the memo: one value per type.
    package func memo<T: Sendable>(_ type: T.Type, _ make: (DesignToken) -> T) -> T {
        let d = derived
        let key = ObjectIdentifier(type)
        if let hit = d.memos.withLock({ $0[key] }) as? T { return hit }
        let made = make(self)
        return d.memos.withLock { memos in
            if let first = memos[key] as? T { return first }
            memos[key] = made
            return made
        }
    }

    /// One member of props, converting only that subtree.
    public func prop(_ key: String) -> JSONValue? {
        guard let v = sdui_value_get(sdui_token_props(handle), key) else { return nil }
        return JSONValue(v)
    }

    /// The whole token object as Swift values.
    public var root: JSONValue { JSONValue(sdui_token_root(handle)) }
}

extension DesignToken: Equatable, Hashable {
    /// Tokens are equal when their JSON texts are byte for byte the same.
    public static func == (a: DesignToken, b: DesignToken) -> Bool {
        a.handle == b.handle || (a.id == b.id && a.json == b.json)
    }

    /// Hashes the id and version, which tokens equal by `==` always share.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(version)
    }
}

extension DesignToken: CustomStringConvertible {
    /// `id@version (Primitive@primitiveVersion)`, for logs and messages.
    public var description: String { "\(id)@\(version) (\(primitive)@\(primitiveVersion))" }
}
