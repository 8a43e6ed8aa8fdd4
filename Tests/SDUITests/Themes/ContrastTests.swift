// ContrastTests.swift - colour parsing and WCAG contrast against known values.
import Foundation
import SDUI
import Testing

@Suite struct ContrastTests {
    func ratio(_ a: String, _ b: String) throws -> Double {
        Contrast.ratio(try RGBColor(hex: a), try RGBColor(hex: b))
    }

    @Test func knownWCAGValues() throws {
        // Black on white is the maximum, 21:1; a colour on itself is 1:1.
        #expect(abs(try ratio("#000000", "#FFFFFF") - 21) < 1e-9)
        #expect(abs(try ratio("#FFFFFF", "#FFFFFF") - 1) < 1e-9)
        #expect(abs(try ratio("#FFFFFF", "#000") - 21) < 1e-9)          // order does not matter
        // Widely published figures (two decimals).
        #expect((try ratio("#777777", "#FFFFFF") * 100).rounded() / 100 == 4.48)  // just fails AA body
        #expect((try ratio("#767676", "#FFFFFF") * 100).rounded() / 100 == 4.54)  // just passes
        #expect((try ratio("#FF0000", "#FFFFFF") * 100).rounded() / 100 == 4.0)
        #expect((try ratio("#0000FF", "#FFFFFF") * 100).rounded() / 100 == 8.59)
        // The example banner colour: 6.87, computed independently from the WCAG formula.
        #expect((try ratio("#3F51B5", "#FFFFFF") * 100).rounded() / 100 == 6.87)
        #expect(abs(try RGBColor(hex: "#FFFFFF").relativeLuminance - 1) < 1e-12)
        #expect(try RGBColor(hex: "#000000").relativeLuminance == 0)
    }

    @Test func aaThresholds() throws {
        #expect(!Contrast.passesAA(try ratio("#777777", "#FFFFFF"), largeText: false))
        #expect(Contrast.passesAA(try ratio("#777777", "#FFFFFF"), largeText: true))
        #expect(Contrast.passesAA(4.5, largeText: false) && !Contrast.passesAA(4.49, largeText: false))
        #expect(Contrast.passesAA(3.0, largeText: true) && !Contrast.passesAA(2.99, largeText: true))
    }

    @Test func parsingAndTranslucency() throws {
        #expect(try RGBColor(hex: "#abc") == RGBColor(red: 0xAA, green: 0xBB, blue: 0xCC))
        #expect(try RGBColor(hex: "#3F51B580").alpha == 0x80)
        #expect(try RGBColor(hex: "#3f51b5").description == "#3F51B5")
        for bad in ["", "#", "3F51B5", "#3F51B", "#GGGGGG", "#12345", "#+1234567", "#1234567890"] {
            #expect(throws: SDUIError.self, "\(bad)") { _ = try RGBColor(hex: bad) }
        }
        // 50 % black over white is mid grey; its contrast lies between the extremes.
        let half = try RGBColor(hex: "#00000080")
        #expect(half.over(try RGBColor(hex: "#FFFFFF")) == RGBColor(red: 127, green: 127, blue: 127))
        let r = Contrast.ratio(half, try RGBColor(hex: "#FFFFFF"))
        #expect(r > 3.9 && r < 4.1)
    }
}
