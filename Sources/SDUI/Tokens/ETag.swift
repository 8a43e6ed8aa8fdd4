// ETag.swift - entity tags of tokens and of token batches, as schemas/openapi.json defines them.
import Foundation
internal import Crypto
import SDUICore

/// ETags as the registry computes them, so the client can compute them too.
///
/// - A token's ETag is the quoted lowercase hex SHA-256 of its JSON text.
/// - A batch's ETag is the quoted lowercase hex SHA-256 of its members'
///   ETags joined by `,`, in the order of the ids asked for.  A client that
///   holds every member can revalidate the whole batch with one
///   `If-None-Match`.
public enum ETag {
    /// The ETag of one token's JSON text.
    public static func of(json: Data) -> String {
        "\"" + hex(SHA256.hash(data: json)) + "\""
    }

    /// The ETag of a token's JSON text, hashed where the C core holds it.
    public static func of(token: DesignToken) -> String {
        "\"" + hex(token.withJSONBytes { SHA256.hash(data: $0) }) + "\""
    }

    /// The ETag of a batch, from its members' ETags in request order.
    public static func batch(_ memberETags: [String]) -> String {
        "\"" + hex(SHA256.hash(data: Data(memberETags.joined(separator: ",").utf8))) + "\""
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in digest {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
