// CorePack.swift - the Core-Token Pack an app ships: open once, look up by id.
import Foundation
internal import CSDUI
import SDUICore

/// A gzipped pack of design tokens, opened from a file or from bytes baked
/// into the app.
///
/// Opening inflates the pack once within ``PackLimits``, validates the whole
/// JSON document and indexes every token id; a token is parsed and checked
/// only when first asked for.  See `include/sdui/pack.h` for every rule.
///
/// `@unchecked Sendable`: the C pack is immutable after open; its lazily
/// parsed tokens are published with an atomic compare-and-swap, so lookups
/// from many threads need no lock.
public final class CorePack: @unchecked Sendable {
    let handle: OpaquePointer
    /// The name of the input used in errors: a path, or the name given for bytes.
    public let source: String

    /// Sizes and counts of an open pack.
    public struct Info: Sendable, Equatable, Codable {
        /// Number of tokens in the pack.
        public var tokens: Int
        /// Size of the gzip input, in bytes.
        public var compressedBytes: Int
        /// Size of the inflated JSON document, in bytes.
        public var rawBytes: Int
        /// Number of gzip members the input held (usually 1).
        public var members: Int
        /// Whether the pack is seekable: members inflated on first use.
        public var seekable: Bool = false
        /// Members inflated so far (all of them for a plain pack).
        public var membersInflated: Int = 0
    }

    /// Opens the pack file at `url`.
    public init(contentsOf url: URL, limits: PackLimits = .default) throws {
        let path = url.path
        var err = sdui_error()
        var out: OpaquePointer?
        var cl = limits.c
        let status = sdui_pack_open_file(path, &cl, &out, &err)
        try SDUIError.check(status, err, input: path)
        handle = out!
        source = path
    }

    /// Opens a pack from gzip bytes (for instance an asset compiled into the
    /// app).  The bytes are not kept after the call.
    public init(data: Data, name: String = "<memory>", limits: PackLimits = .default) throws {
        var err = sdui_error()
        var out: OpaquePointer?
        var cl = limits.c
        let status = data.withUnsafeBytes { raw in
            sdui_pack_open_memory(raw.baseAddress, raw.count, &cl, &out, &err)
        }
        try SDUIError.check(status, err, input: name)
        handle = out!
        source = name
    }

    deinit { sdui_pack_free(handle) }

    /// The raw JSON bytes of a top-level member of the pack other than its
    /// tokens (a Fallback Pack's `"screens"`), found when the pack was
    /// opened; nil when the pack has no such member.  Decodes no token.
    func member(_ name: String) throws -> Data? {
        var p: UnsafePointer<CChar>?
        var len = 0
        var err = sdui_error()
        let status = sdui_pack_member(handle, name, &p, &len, &err)
        if status == SDUI_NOT_FOUND { return nil }
        try SDUIError.check(status, err, input: source)
        return p.map { Data(bytes: $0, count: len) } ?? Data()
    }

    /// Number of tokens.
    public var count: Int { sdui_pack_count(handle) }

    /// Sizes and counts of the pack, read from the C core (no token is parsed).
    public var info: Info {
        var i = sdui_pack_info()
        sdui_pack_get_info(handle, &i)
        return Info(tokens: i.tokens, compressedBytes: i.compressed_bytes,
                    rawBytes: i.raw_bytes, members: Int(i.members),
                    seekable: i.seekable != 0, membersInflated: Int(i.members_inflated))
    }

    /// Every token id, in pack order.
    public var ids: [String] {
        (0..<count).map { i in
            var len = 0
            let p = sdui_pack_id_at(handle, i, &len)
            return String(cBytes: p, count: len)
        }
    }

    /// Whether the pack holds `id` (does not parse the token).
    public func contains(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { sdui_pack_contains(handle, $0.baseAddress, $0.count) != 0 }
    }

    /// The token `id`, parsed on first use; nil when the pack has no such id.
    /// Throws when the token is in the pack but is not a valid design token.
    public func token(_ id: String) throws -> DesignToken? {
        var id = id
        var err = sdui_error()
        var out: OpaquePointer?
        let status = id.withUTF8 { sdui_pack_get(handle, $0.baseAddress, $0.count, &out, &err) }
        if status == SDUI_NOT_FOUND { return nil }
        try SDUIError.check(status, err, input: source)
        return DesignToken(adopting: out!)
    }

    /// The pack's whole inflated JSON document.
    public var json: Data {
        var len = 0
        let p = sdui_pack_json(handle, &len)!
        return Data(bytes: p, count: len)
    }
}

extension CorePack {
    /// The pack's string catalogs (its `strings` member, a bundle
    /// `{"default": tag, "catalogs": {tag: {…}}}` written by `sdui pack
    /// build --locales`), or nil when it carries none.
    ///
    /// - Throws: ``SDUIError`` naming the pack, the catalog and the JSON path
    ///   of the first fault.
    public func strings() throws -> StringCatalog? {
        guard let bytes = try member("strings") else { return nil }
        return try StringCatalog(bundle: bytes, source: "\(source): strings")
    }
}
