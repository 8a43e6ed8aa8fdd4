// Base64URL.swift - strict base64url without padding (RFC 7515 §2).
//
// Seed 000 §10: token JSON arrives signed and the client verifies it before
// anything is cached.  Only the compact serialization is accepted, with a
// fixed allow-list of two algorithms: HS256 (RFC 7518 §3.2) and EdDSA over
// Ed25519 (RFC 8037).  The cryptography is swift-crypto's; this file only
// checks the envelope and picks the key.
import Foundation
import SDUICore

/// base64url without padding (RFC 7515 §2), strict: only the URL-safe
/// alphabet, no `=`, and only the canonical encoding of each byte string.
/// Foundation does the actual decoding.
public enum Base64URL {
    /// Encodes `data` in base64url without padding.
    public static func encode(_ data: Data) -> String {
        var s = data.base64EncodedString()
        while s.hasSuffix("=") { s.removeLast() }
        return String(s.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// Bytes that `length` characters of unpadded base64url decode to.
    static func decodedLength(_ length: Int) -> Int {
        length / 4 * 3 + max(0, length % 4 - 1)
    }

    /// Decodes `text`; errors are `signature` errors naming `part`.
    public static func decode(_ text: Substring, part: String) throws -> Data {
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for (offset, c) in text.utf8.enumerated() {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.unicodeScalars.append(Unicode.Scalar(c))
            case UInt8(ascii: "-"): standard += "+"
            case UInt8(ascii: "_"): standard += "/"
            case UInt8(ascii: "="):
                throw SDUIError(.signature, "\(part) has base64 padding \"=\" at offset \(offset); "
                                + "base64url without padding is required")
            default:
                let shown = c >= 0x21 && c < 0x7f ? "\"\(Character(Unicode.Scalar(c)))\"" : "byte 0x"
                    + String(c, radix: 16)
                throw SDUIError(.signature, "\(part) has \(shown) at offset \(offset), "
                                + "which is not a base64url character")
            }
        }
        guard standard.utf8.count % 4 != 1 else {
            throw SDUIError(.signature, "\(part) has \(standard.utf8.count) base64url characters, "
                            + "a length no encoding has")
        }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard), encode(data) == text else {
            throw SDUIError(.signature, "\(part) is not canonical base64url (its unused trailing bits are not zero)")
        }
        return data
    }
}
