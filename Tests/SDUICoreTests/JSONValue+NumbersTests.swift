// JSONValue+NumbersTests.swift - the one rule for numbers as text and as JSON.
import SDUICore
import Testing

@Suite struct JSONValueNumbersTests {
    @Test func wholeNumbersArePlainDigits() {
        #expect(JSONValue.text(16) == "16")
        #expect(JSONValue.text(-3) == "-3")
        #expect(JSONValue.text(0) == "0")
        #expect(JSONValue.text(999_999_999_999_999) == "999999999999999")
        #expect(JSONValue.text(1e15) == "1000000000000000")
        #expect(JSONValue.text(9_007_199_254_740_991) == "9007199254740991")
        // Past 2^53 a whole double is not an exact integer: the core's rule.
        #expect(JSONValue.text(1e16) == "10000000000000000.0")
        #expect(JSONValue.text(1e21) == "1e21")
    }

    @Test func otherNumbersAreShortestRoundTrip() {
        #expect(JSONValue.text(0.1) == "0.1")
        #expect(JSONValue.text(2.5) == "2.5")
        #expect(JSONValue.text(1.0 / 3) == "0.3333333333333333")
        #expect(Double(JSONValue.text(1.0 / 3)) == 1.0 / 3)
        #expect(JSONValue.text(2.5e-7) == "2.5e-7")
        #expect(JSONValue.text(0.000001) == "0.000001")
        #expect(JSONValue.text(.infinity) == "inf")
        #expect(JSONValue.text(-.infinity) == "-inf")
        #expect(JSONValue.text(.nan) == "nan")
    }

    /// Swift's text of a decimal is the expression language's `string()`
    /// of it: one rule, written once, in the core.
    @Test func decimalsReadAsTheExpressionLanguageWritesThem() throws {
        var rng = SystemRandomNumberGenerator()
        var values: [Double] = [0.1, 2.5, 1.5e-7, 1e21, 1e-300, 123456.789, 0.1 + 0.2, 5e-324, 1.7976931348623157e308]
        for _ in 0..<2_000 {
            let d = Double(bitPattern: rng.next())
            if d.isFinite { values.append(d) }
        }
        let expr = try CompiledExpression("string(x)")
        for d in values where !(d.rounded() == d && abs(d) < 9_007_199_254_740_992) {
            let got = try expr.evaluate(try JSONDocument(["x": .double(d)]))
            #expect(got == .string(JSONValue.text(d)), "\(d)")
        }
    }

    @Test func scalarsAsText() {
        #expect(JSONValue.int(7).scalarText == "7")
        #expect(JSONValue.double(7).scalarText == "7")
        #expect(JSONValue.bool(true).scalarText == "true")
        #expect(JSONValue.string("x").scalarText == "x")
        #expect(JSONValue.null.scalarText == nil)
        #expect(JSONValue.array([]).scalarText == nil)
    }

    @Test func computedNumbersAsJSON() {
        #expect(JSONValue.number(16) == .int(16))
        #expect(JSONValue.number(16.5) == .double(16.5))
        #expect(JSONValue.number(1e300) == .double(1e300))
    }
}
