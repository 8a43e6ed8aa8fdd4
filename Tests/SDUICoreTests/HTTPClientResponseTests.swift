// HTTPClientResponseTests.swift - header fields looked up by case-insensitive name.
import Foundation
@testable import SDUICore
import Testing

@Suite struct HTTPClientResponseTests {
    @Test func headersAreFoundWhateverTheCase() {
        let r = HTTPClientResponse(status: 200, headers: ["ETag": "\"a\"", "cache-control": "max-age=60"], body: Data())
        #expect(r.header("ETag") == "\"a\"")
        #expect(r.header("etag") == "\"a\"")
        #expect(r.header("Cache-Control") == "max-age=60")
        #expect(r.header("CACHE-CONTROL") == "max-age=60")
        #expect(r.header("Vary") == nil)
    }
}
