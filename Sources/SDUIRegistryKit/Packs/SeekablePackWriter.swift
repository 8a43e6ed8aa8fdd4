// SeekablePackWriter.swift - writes a pack's JSON as a seekable pack (several gzip members with an id table).
import Foundation
internal import CSDUI
import SDUI
import SDUICore

/// Writes a pack document as a seekable pack: several gzip members cut
/// between tokens, each header carrying the member's compressed size and
/// the ids it holds (the first also the total size and the member count),
/// so a reader finds a token's member by hopping from header to header and
/// inflates only the members it needs.  It stays one standard gzip file:
/// `gzip -dc` prints the document given, byte for byte.  See
/// `include/sdui/pack.h` (`sdui_pack_write_seekable`).
///
/// Tokens should be in the order the first screens need them (the
/// planner's usage rank), so the first screens share the first members.
public struct SeekablePackWriter: Sendable {
    /// The JSON bytes the first member aims at; a member ends at the first
    /// token end past its aim.  0 takes the core's default (32 KiB).
    public var memberBytes: Int
    /// Each member aims at four times the one before, up to this many bytes of
    /// JSON, so the first screens' members stay small and cold tokens
    /// compress in long members.  0 takes the core's default (4 MiB).
    public var maxMemberBytes: Int
    /// libdeflate level, 1 to 12 (smallest); 0 takes the core's default (12).
    public var level: Int
    /// The limits the document is validated against, as a reader would open it.
    public var limits: PackLimits

    /// A writer with the core's defaults (a first member of 32 KiB of JSON,
    /// each next four times larger up to 4 MiB; level 12) and the default limits.
    public init(memberBytes: Int = 0, maxMemberBytes: Int = 0, level: Int = 0, limits: PackLimits = .default) {
        self.memberBytes = memberBytes
        self.maxMemberBytes = maxMemberBytes
        self.level = level
        self.limits = limits
    }

    /// The seekable pack of `json` (a whole pack document, as
    /// ``CorePackBuilder/document(prefix:)`` makes).  `source` names the
    /// input in errors.
    ///
    /// - Throws: `SDUIError` from the core: `.json` / `.schema` when the
    ///   document is not a pack, `.limit` when it breaks `limits` or a token
    ///   is too large for a member's table, `.argument` for an option out of
    ///   range, `.oom`.
    public func write(_ json: Data, source: String = "the pack document") throws -> Data {
        guard memberBytes >= 0, maxMemberBytes >= 0 else {
            throw SDUIError(.argument, "member sizes must be 0 or more; got \(memberBytes) and \(maxMemberBytes)")
        }
        guard (0...12).contains(level) else { throw SDUIError(.argument, "level must be between 0 and 12; got \(level)") }
        var options = sdui_seekable_options()
        options.member_bytes = memberBytes
        options.max_member_bytes = maxMemberBytes
        options.level = Int32(level)
        var cLimits = limits.c
        var err = sdui_error()
        var out: UnsafeMutablePointer<UInt8>?
        var len = 0
        let status = json.withUnsafeBytes { raw in
            sdui_pack_write_seekable(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count,
                                     &options, &cLimits, &out, &len, &err)
        }
        try SDUIError.check(status, err, input: source)
        defer { sdui_free(out) }
        return Data(bytes: out!, count: len)
    }
}
