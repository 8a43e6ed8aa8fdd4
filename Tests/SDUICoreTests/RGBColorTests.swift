// RGBColorTests.swift - the one colour type: what it parses and refuses.
import SDUICore
import Testing

@Suite struct RGBColorTests {
    @Test func parsesThreeSixAndEightDigits() throws {
        #expect(try RGBColor(hex: "#abc") == RGBColor(red: 0xAA, green: 0xBB, blue: 0xCC))
        #expect(try RGBColor(hex: "#A0b1C2") == RGBColor(red: 0xA0, green: 0xB1, blue: 0xC2))
        #expect(try RGBColor(hex: "#01020304") == RGBColor(red: 1, green: 2, blue: 3, alpha: 4))
        #expect(try RGBColor(hex: "#3f51b5").description == "#3F51B5")
        #expect(try RGBColor(hex: "#3f51b580").description == "#3F51B580")
    }

    /// Only `#` and ASCII hex digits: no spaces, names, signs, other digit
    /// forms (fullwidth digits are hex digits to Character, not to colours).
    @Test func refusesEverythingElse() {
        for bad in ["", "#", "abc", "#ab", "#abcd", "#abcde", "#abcdefg", "#abcdef0", "# abc", "#abc ", "red",
                    "#ggg", "#-12", "#+12", "#１２３", "#12３456", "rgb(1,2,3)", "#0x1234"] {
            #expect(!RGBColor.isHex(bad), "\(bad)")
            let e = #expect(throws: SDUIError.self, "\(bad)") { _ = try RGBColor(hex: bad) }
            #expect(e?.category == .schema)
        }
    }
}
