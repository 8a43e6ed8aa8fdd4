// CorePackBuilder.swift - writes a Core-Token Pack from token JSON documents.
import Foundation
internal import CSDUI
import SDUI
import SDUICore

/// Assembles validated tokens into a pack: `{"formatVersion":1,"tokens":[…]}`,
/// each token minified, the whole gzipped.  The builder of a later issue adds
/// ranking and size budgets on top.
public struct CorePackBuilder: Sendable {
    /// The limits each added token is checked against (size, depth) and the
    /// built pack is opened with.
    public let limits: PackLimits
    private var entries: [(id: String, source: String, version: Int, json: Data)] = []
    /// Position of each id in `entries`, for the duplicate check.
    private var index: [String: Int] = [:]

    /// An empty builder checking tokens against `limits`.
    public init(limits: PackLimits = .default) { self.limits = limits }

    /// Ids added so far, in order.
    public var ids: [String] { entries.map(\.id) }

    /// The tokens added so far, in order, each as its minified JSON (the
    /// bytes the pack holds).
    public var tokens: [(id: String, version: Int, json: Data)] { entries.map { ($0.id, $0.version, $0.json) } }

    /// Validates one token's JSON and adds it.  `source` names the input in
    /// errors.  A second token with an id already added is refused, naming both.
    ///
    /// Returns the token as parsed.
    ///
    /// - Throws: `SDUIError`: the token's own error when it does not parse
    ///   or breaks `limits`; `.schema` for a duplicate id.
    @discardableResult
    public mutating func add(json: Data, source: String) throws -> DesignToken {
        let token = try DesignToken(json: json, source: source, limits: limits)
        if let first = index[token.id] {
            throw SDUIError(.schema, "duplicate token id \"\(token.id)\" (also in \(entries[first].source))",
                            input: source)
        }
        let minified = try Self.minify(json, source: source, limits: limits)
        index[token.id] = entries.count
        entries.append((token.id, source, token.version, minified))
        return token
    }

    /// Adds every `*.json` file of a folder, in file-name order.
    public mutating func addDirectory(_ url: URL) throws {
        let fm = FileManager.default
        let names: [String]
        do {
            names = try fm.contentsOfDirectory(atPath: url.path)
        } catch {
            throw SDUIError(.io, "cannot list folder: \(error.localizedDescription)", input: url.path)
        }
        for name in names.sorted() where name.hasSuffix(".json") {
            let file = url.appendingPathComponent(name)
            try add(json: try FileInput.read(file.path, limit: limits.maxTokenBytes), source: file.path)
        }
    }

    /// Root members written before the tokens, each followed by a comma
    /// (`"strings":{…},`): JSON the caller checked, which the C core's scan
    /// keeps as a member (``CorePack`` reads it), never as tokens.
    public var members = Data()

    /// The pack's JSON document (not compressed): one minified token per
    /// line, which lets large packs be scanned on two threads at open.
    /// With `prefix`, only the first that many tokens (a budget search).
    public func document(prefix: Int? = nil) -> Data {
        var out = Data("{".utf8) + members + Data(#""formatVersion":1,"tokens":["#.utf8)
        for (i, e) in entries.prefix(prefix ?? entries.count).enumerated() {
            out.append(contentsOf: i > 0 ? Array(",\n".utf8) : [UInt8(ascii: "\n")])
            out.append(e.json)
        }
        out.append(contentsOf: Array("\n]}".utf8))
        return out
    }

    /// The gzipped pack.  `level` is 0 (store) to 12 (smallest; slowest to
    /// write).  The pack is opened and read back before it is returned.
    ///
    /// - Throws: `SDUIError` when compressing fails or the pack written
    ///   does not open and read back (see ``verify(_:tokens:limits:source:)``).
    public func build(level: Int = 12) throws -> Data {
        let pack = try Self.gzip(document(), level: level)
        try Self.verify(pack, tokens: entries.count, limits: limits, source: "the built pack")
        return pack
    }

    /// Opens `pack` as an app would and parses every token in it, so a
    /// builder never reports success for a pack its readers refuse (depth,
    /// sizes, duplicate ids: whatever the reader checks).  `tokens` is the
    /// count the builder put in.
    public static func verify(_ pack: Data, tokens: Int, limits: PackLimits = .default, source: String) throws {
        let opened: CorePack
        do {
            opened = try CorePack(data: pack, name: source, limits: limits)
            for id in opened.ids { _ = try opened.token(id) }
        } catch let e as SDUIError {
            throw SDUIError(e.category, "the pack written does not open: \(e.message)", input: e.input ?? source,
                            offset: e.offset, line: e.line, column: e.column)
        }
        guard opened.count == tokens else {
            throw SDUIError(.schema, "the pack written holds \(opened.count) tokens, not \(tokens)", input: source)
        }
    }

    /// `data` gzipped as a plain pack is written: one gzip member up to
    /// `memberBytes` of input (0: 2 MiB), else several growing members
    /// whose first header gives the total size, so an open scans one
    /// member's JSON while the next inflates (`sdui_gzip_encode_members`).
    /// Still one standard gzip file; `Int.max` forces one member.
    public static func gzip(_ data: Data, level: Int = 12, memberBytes: Int = 0) throws -> Data {
        var err = sdui_error()
        var out: UnsafeMutablePointer<UInt8>?
        var len = 0
        let status = data.withUnsafeBytes { raw in
            sdui_gzip_encode_members(raw.baseAddress, raw.count, Int32(level), max(0, memberBytes), &out, &len, &err)
        }
        try SDUIError.check(status, err, input: nil)
        defer { sdui_free(out) }
        return Data(bytes: out!, count: len)
    }

    /// `json` without insignificant white space.
    static func minify(_ json: Data, source: String, limits: PackLimits) throws -> Data {
        var err = sdui_error()
        var out = Data(count: json.count)
        var n = 0
        let status = json.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                sdui_json_minify(src.baseAddress?.assumingMemoryBound(to: CChar.self), src.count,
                                 UInt32(clamping: limits.maxDepth),
                                 dst.baseAddress?.assumingMemoryBound(to: CChar.self), &n, &err)
            }
        }
        try SDUIError.check(status, err, input: source)
        return out.prefix(n)
    }
}
