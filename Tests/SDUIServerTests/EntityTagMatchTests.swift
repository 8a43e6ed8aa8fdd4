// EntityTagMatchTests.swift - If-None-Match compared as RFC 9110 §13.1.2 says.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct EntityTagMatchTests {
    @Test func entityTagMatching() {
        let e = "\"abc\""
        #expect(EntityTagMatch.matches("\"abc\"", current: e))
        #expect(EntityTagMatch.matches("W/\"abc\"", current: e))
        #expect(EntityTagMatch.matches("\"x\", W/\"abc\"", current: e))
        #expect(EntityTagMatch.matches(" * ", current: e))
        #expect(!EntityTagMatch.matches("\"abcd\"", current: e))
        #expect(!EntityTagMatch.matches("abc", current: e))
        #expect(!EntityTagMatch.matches("\"abc", current: e))
        #expect(!EntityTagMatch.matches("", current: e))
    }
}
#endif
