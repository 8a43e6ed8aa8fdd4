// BindingLimitsTests.swift - the size of bound values, measured within a budget.
import Foundation
@testable import SDUI
import Testing

@Suite struct BindingLimitsTests {
    /// Measuring a huge value stops at the budget.
    @Test func sizeOfAValueIsBounded() {
        let big = JSONValue.array(Array(repeating: .string(String(repeating: "y", count: 100)), count: 10_000))
        #expect(BindingLimits.size(of: big, within: 1000) == nil)
        #expect(BindingLimits.size(of: .array(["ab", 1, true, .null]), within: 1000) == 2 + 4 + 1 + 8 + 1 + 5 + 1 + 4 + 1)
        #expect(BindingLimits.size(of: .object(["k": "v"]), within: 1000) == 2 + 1 + 4 + 3)
    }
}
