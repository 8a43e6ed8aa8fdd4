// Base64URLTests.swift - strict base64url without padding: round trips and every refusal.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct Base64URLTests {
    @Test func everyLengthRoundTrips() throws {
        for n in 0..<70 {
            let data = Data((0..<n).map { UInt8((n * 31 + $0 * 17) & 0xff) })
            let text = Base64URL.encode(data)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"), "\(n)")
            #expect(text == B64URL.encode(data), "\(n)")   // the independent test helper agrees
            #expect(text.utf8.count == (n * 4 + 2) / 3, "\(n)")
            #expect(Base64URL.decodedLength(text.utf8.count) == n, "\(n)")
            #expect(try Base64URL.decode(Substring(text), part: "payload") == data, "\(n)")
        }
        #expect(Base64URL.encode(Data([0xfb, 0xff])) == "-_8")
        #expect(try Base64URL.decode("-_8", part: "signature") == Data([0xfb, 0xff]))
    }

    @Test func paddingOtherCharactersImpossibleLengthsAndLooseBitsAreRefused() {
        let cases: [(String, String)] = [
            ("QQ==", "payload has base64 padding \"=\" at offset 2; base64url without padding is required"),
            ("QQ+", "payload has \"+\" at offset 2, which is not a base64url character"),
            ("Q/Q", "payload has \"/\" at offset 1, which is not a base64url character"),
            ("QQ\n", "payload has byte 0xa at offset 2, which is not a base64url character"),
            ("QUJDR", "payload has 5 base64url characters, a length no encoding has"),
            ("QR", "payload is not canonical base64url (its unused trailing bits are not zero)"),
        ]
        for (text, message) in cases {
            let e = #expect(throws: SDUIError.self, "\(text)") { _ = try Base64URL.decode(Substring(text), part: "payload") }
            #expect(e?.category == .signature && e?.message == message, "\(text): \(e.map(String.init(describing:)) ?? "")")
        }
    }
}
