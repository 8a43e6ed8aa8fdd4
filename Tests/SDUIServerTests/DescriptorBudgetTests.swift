// DescriptorBudgetTests.swift - what the descriptor limit leaves for connections.
#if Server
import SDUIServer
import Testing

@Suite struct DescriptorBudgetTests {
    @Test func theReserveIsATenthAndAtLeast32() {
        #expect(DescriptorBudget(limit: nil, open: nil).reserve == 32)
        #expect(DescriptorBudget(limit: 100, open: 0).reserve == 32)
        #expect(DescriptorBudget(limit: 1024, open: 0).reserve == 102)
        #expect(DescriptorBudget(limit: 65_536, open: 0).reserve == 6553)
    }

    @Test func theDefaultCapIsWhatTheLimitLeaves() {
        #expect(DescriptorBudget(limit: 1024, open: 20).defaultMaxConnections == 1024 - 20 - 102)
        #expect(DescriptorBudget(limit: 1024, open: nil).defaultMaxConnections == 1024 - 102)
        #expect(DescriptorBudget(limit: 40, open: 30).defaultMaxConnections == 1)   // never below one
        #expect(DescriptorBudget(limit: nil, open: 20).defaultMaxConnections == nil)
    }

    @Test func aCapFitsWhenItLeavesTheReserve() {
        let budget = DescriptorBudget(limit: 1024, open: 20)
        #expect(budget.fits(902) && !budget.fits(903))
        #expect(DescriptorBudget(limit: nil, open: 20).fits(1_000_000))
    }

    /// This process has a limit and at least standard input, output and error open.
    @Test func theCurrentProcessIsMeasured() throws {
        let current = DescriptorBudget.current()
        let open = try #require(current.open)
        #expect(open >= 3)
        if let limit = current.limit { #expect(limit >= open) }
    }
}
#endif
