// Base64URL.swift - strict base64url without padding (RFC 7515 §2).
//
// Token JSON arrives signed and the client verifies it before
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
        var bytes = [UInt8](data.base64EncodedData())
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        for k in bytes.indices {
            if bytes[k] == UInt8(ascii: "+") { bytes[k] = UInt8(ascii: "-") }
            else if bytes[k] == UInt8(ascii: "/") { bytes[k] = UInt8(ascii: "_") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Bytes that `length` characters of unpadded base64url decode to.
    static func decodedLength(_ length: Int) -> Int {
        length / 4 * 3 + max(0, length % 4 - 1)
    }

    /// The 6-bit value of a base64url character, or nil.
    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }

    /// Decodes `text`; errors are `signature` errors naming `part`.
    ///
    /// Strict: only the base64url alphabet, no padding, no length that no
    /// encoding has, and canonical (the unused low bits of the last
    /// character are zero), so one byte string has exactly one text.
    public static func decode(_ text: Substring, part: String) throws -> Data {
        var standard = [UInt8]()
        standard.reserveCapacity(text.utf8.count + 3)
        var last: UInt8 = 0
        for (offset, c) in text.utf8.enumerated() {
            guard let v = value(c) else {
                if c == UInt8(ascii: "=") {
                    throw SDUIError(.signature, "\(part) has base64 padding \"=\" at offset \(offset); "
                                    + "base64url without padding is required")
                }
                let shown = c >= 0x21 && c < 0x7f ? "\"\(Character(Unicode.Scalar(c)))\"" : "byte 0x"
                    + String(c, radix: 16)
                throw SDUIError(.signature, "\(part) has \(shown) at offset \(offset), "
                                + "which is not a base64url character")
            }
            last = v
            standard.append(c == UInt8(ascii: "-") ? UInt8(ascii: "+") : c == UInt8(ascii: "_") ? UInt8(ascii: "/") : c)
        }
        guard standard.count % 4 != 1 else {
            throw SDUIError(.signature, "\(part) has \(standard.count) base64url characters, "
                            + "a length no encoding has")
        }
        // Canonical: 2 trailing characters carry 8 bits of 12, 3 carry 16 of 18.
        let unused: UInt8 = standard.count % 4 == 2 ? 0x0F : standard.count % 4 == 3 ? 0x03 : 0
        guard last & unused == 0 else {
            throw SDUIError(.signature, "\(part) is not canonical base64url (its unused trailing bits are not zero)")
        }
        standard.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - standard.count % 4) % 4))
        guard let data = Data(base64Encoded: Data(standard)) else {
            throw SDUIError(.signature, "\(part) is not base64url")
        }
        return data
    }
}
