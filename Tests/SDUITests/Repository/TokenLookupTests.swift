// TokenLookupTests.swift - the outcome of a lookup, and its token when found.
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct TokenLookupTests {
    @Test func onlyAFoundLookupHasAToken() throws {
        let token = try DesignToken(json: Data(Fixtures.token("t").utf8), source: "t")
        #expect(TokenLookup.found(token, .disk).token === token)
        #expect(TokenLookup.offline.token == nil)
        #expect(TokenLookup.unavailable(SDUIError(.notFound, "gone")).token == nil)
    }
}
