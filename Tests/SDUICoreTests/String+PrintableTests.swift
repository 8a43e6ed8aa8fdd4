// String+PrintableTests.swift - the one display rule for text from outside.
import SDUICore
import Testing

@Suite struct StringPrintableTests {
    /// Terminal and log controls become visible escapes; the result is one line.
    @Test func controlsAreWrittenAsEscapes() {
        #expect("a\u{1B}[31mred\u{1B}[0m".escapedForDisplay == "a\\u{1B}[31mred\\u{1B}[0m")
        #expect("line\nforged: ok\r\tx".escapedForDisplay == "line\\nforged: ok\\r\\tx")
        #expect("\u{0}\u{7F}\u{9B}".escapedForDisplay == "\\u{00}\\u{7F}\\u{9B}")
        #expect("abc\u{202E}fdp.exe".escapedForDisplay == "abc\\u{202E}fdp.exe")
        #expect("a\u{2028}b\u{2029}c\u{2066}d".escapedForDisplay == "a\\u{2028}b\\u{2029}c\\u{2066}d")
        for c in (0..<0x20).map({ Unicode.Scalar($0)! }) + [Unicode.Scalar(0x7F)!, Unicode.Scalar(0x85)!] {
            let shown = String(Character(c)).escapedForDisplay
            #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }

    /// Printable text, non-ASCII included, and backslashes pass unchanged.
    @Test func printableTextIsKept() {
        for s in ["", "plain", "päth/ünïcode/日本語 🎉", "C:\\dir\\n.json", "tab-free: a b"] {
            #expect(s.escapedForDisplay == s)
        }
    }
}
