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
        #expect(JSONValue.text(1e16) == "1e+16")
    }

    @Test func otherNumbersAreShortestRoundTrip() {
        #expect(JSONValue.text(0.1) == "0.1")
        #expect(JSONValue.text(2.5) == "2.5")
        #expect(JSONValue.text(1.0 / 3) == "0.3333333333333333")
        #expect(Double(JSONValue.text(1.0 / 3)) == 1.0 / 3)
        #expect(JSONValue.text(2.5e-7) == "2.5e-07")
        #expect(JSONValue.text(.infinity) == "inf")
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
