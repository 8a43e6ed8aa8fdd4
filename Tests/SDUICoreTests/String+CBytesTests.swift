// String+CBytesTests.swift - strings from bytes the C core lends.
import SDUICore
import Testing

@Suite struct StringCBytesTests {
    @Test func countedBytesBecomeAString() {
        let bytes: [CChar] = Array("hello world".utf8CString)
        bytes.withUnsafeBufferPointer { p in
            #expect(String(cBytes: p.baseAddress, count: 5) == "hello")
            #expect(String(cBytes: p.baseAddress, count: 0) == "")
        }
        #expect(String(cBytes: nil, count: 3) == "")
    }

    @Test func illFormedUTF8BecomesReplacementCharacters() {
        let bytes: [UInt8] = [0x66, 0xFF, 0x6F, 0xC3]   // "f", a stray byte, "o", a cut-off sequence
        bytes.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { c in
                #expect(String(cBytes: c, count: p.count) == "f\u{FFFD}o\u{FFFD}")
            }
        }
    }
}
