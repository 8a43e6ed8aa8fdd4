// ETagTests.swift - entity tags of tokens and batches, as the registry computes them.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct ETagTests {
    /// The quoted lowercase hex SHA-256 of the JSON text (FIPS 180-4 values).
    @Test func aTokensETagIsTheSHA256OfItsText() {
        #expect(ETag.of(json: Data()) == "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"")
        #expect(ETag.of(json: Data(#"{"id":"a"}"#.utf8))
                == "\"8489a5deb454a360345c7868bca8672de92b446caf3d3b014af6a56e3d549d30\"")
    }

    /// A batch hashes its members' ETags joined by commas, in request order.
    @Test func aBatchsETagHashesItsMembersInOrder() {
        #expect(ETag.batch(["\"x\"", "\"y\""]) == "\"7b761674fda0df60eeb73f8daa3e126f833099d91fdeb461b0307d4e2eb9e392\"")
        #expect(ETag.batch(["\"y\"", "\"x\""]) != ETag.batch(["\"x\"", "\"y\""]))
        #expect(ETag.batch([]) == ETag.of(json: Data()))
    }

    @Test func aParsedTokenHashesToTheSameETag() throws {
        let json = Data(Fixtures.token("t").utf8)
        let token = try DesignToken(json: json, source: "t")
        #expect(ETag.of(token: token) == ETag.of(json: json))
        #expect(ETag.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
    }
}
