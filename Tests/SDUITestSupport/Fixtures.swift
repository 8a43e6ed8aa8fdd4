// Fixtures.swift - builders of tokens, packs and gzip files for the test suites.
import CSDUI
import Foundation
import SDUI
import SDUIRegistryKit

/// Builders for test inputs: token JSON, pack documents, gzip members with
/// chosen header fields, damaged files and gzip bombs.
public enum Fixtures {
    /// A valid token's JSON with the given id and primitive.
    public static func token(_ id: String, primitive: String = "Text", version: Int = 1,
                             primitiveVersion: Int = 1, props: String = #"{"text":"hi"}"#) -> String {
        #"{"id":\#(jsonString(id)),"version":\#(version),"primitive":"\#(primitive)","primitiveVersion":\#(primitiveVersion),"props":\#(props)}"#
    }

    /// A pack document holding `tokens` (raw JSON texts), plus extra members.
    public static func document(tokens: [String], formatVersion: String = "1",
                                extra: String? = nil) -> String {
        var s = #"{"formatVersion":\#(formatVersion),"#
        if let extra { s += extra + "," }
        s += #""tokens":[\#(tokens.joined(separator: ","))]}"#
        return s
    }

    /// The gzipped pack of `tokens`.
    public static func pack(tokens: [String], extra: String? = nil) -> Data {
        gzip(Data(document(tokens: tokens, extra: extra).utf8))
    }

    /// `n` tokens with ids `t0`, `t1`, ….
    public static func tokens(_ n: Int) -> [String] {
        (0..<n).map { token("t\($0)", props: #"{"text":"token number \#($0)"}"#) }
    }

    /// One gzip member of `data`, however large (the pack builder writes
    /// several past 2 MiB; see `CorePackBuilder.gzip`).
    public static func gzip(_ data: Data, level: Int32 = 6) -> Data {
        try! CorePackBuilder.gzip(data, level: Int(level), memberBytes: .max)
    }

    /// CRC-32 as gzip computes it.
    public static func crc32(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { sdui_crc32(0, $0.baseAddress, $0.count) }
    }

    /// A gzip member of `data` whose header carries the optional fields asked for.
    public static func gzip(_ data: Data, extra: [UInt8]? = nil, name: String? = nil,
                            comment: String? = nil, headerCRC: Bool = false,
                            corruptHeaderCRC: Bool = false) -> Data {
        let plain = [UInt8](gzip(data))
        var flags: UInt8 = 0
        var header: [UInt8] = Array(plain[0..<10])
        var fields: [UInt8] = []
        if let extra {
            flags |= 4
            fields += [UInt8(extra.count & 0xff), UInt8(extra.count >> 8)] + extra
        }
        if let name { flags |= 8; fields += Array(name.utf8) + [0] }
        if let comment { flags |= 16; fields += Array(comment.utf8) + [0] }
        if headerCRC { flags |= 2 }
        header[3] = flags
        var out = header + fields
        if headerCRC {
            var crc = UInt16(truncatingIfNeeded: crc32(Data(out)))
            if corruptHeaderCRC { crc ^= 1 }
            out += [UInt8(crc & 0xff), UInt8(crc >> 8)]
        }
        return Data(out + plain[10...])
    }

    /// A multi-member gzip bomb: `members` copies of a member that inflates
    /// to `memberBytes` zero bytes (16 MiB × 64 = 1 GiB by default, ~1 MB on disk).
    public static func bomb(memberBytes: Int = 16 << 20, members: Int = 64) -> Data {
        let one = gzip(Data(count: memberBytes), level: 9)
        var out = Data(capacity: one.count * members)
        for _ in 0..<members { out.append(one) }
        return out
    }

    /// A JSON string literal for `s`.
    public static func jsonString(_ s: String) -> String {
        let data = try! JSONEncoder().encode(s)
        return String(decoding: data, as: UTF8.self)
    }

    /// The repository root (found from this file's path).
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A fresh temporary folder.
    public static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("sdui-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
