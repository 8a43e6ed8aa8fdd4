// EchoedInputTests.swift - request input echoed in errors and logs: quoted, escaped, cut.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct EchoedInputTests {
    @Test func echoedInputIsQuotedEscapedAndCut() {
        #expect(EchoedInput.quoted("plain") == #""plain""#)
        #expect(EchoedInput.quoted("a\u{0}b\u{1B}\u{7F}\u{85}\u{202E}\u{2028}\"\\\n") == #""a\u0000b\u001b\u007f\u0085\u202e\u2028\"\\\n""#)
        #expect(EchoedInput.quoted(String(repeating: "z", count: 500)) == "\"" + String(repeating: "z", count: 200) + "…\"")
        #expect(EchoedInput.quoted(String(repeating: "\u{1}", count: 100)).utf8.count <= 200 + 5)
        #expect(EchoedInput.clipped("short") == "short")
        #expect(EchoedInput.clipped(String(repeating: "é", count: 150)) == String(repeating: "é", count: 100) + "…")
        #expect(EchoedInput.visible("ok\u{9B}") == #"ok\u009b"#)
    }
}
#endif
