// TokenPolicyTests.swift - the admission checks, in their order.
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct TokenPolicyTests {
    let images = try! ImageURLPolicy(allowedHosts: ["cdn.example.com"])

    func token(_ url: String) -> Data {
        Data(#"{"id":"img","version":1,"primitive":"AsyncImage","primitiveVersion":1,"props":{"url":"\#(url)"}}"#.utf8)
    }

    @Test func aGoodTokenIsAdmitted() throws {
        let t = try TokenPolicy(imagePolicy: images).admit(token("https://cdn.example.com/a.png"), source: "s").get()
        #expect(t.id == "img")
    }

    /// Size first (before any parse), then schema, then image URLs.
    @Test func theFirstBrokenRuleIsReported() {
        let small = TokenPolicy(limits: PackLimits(maxTokenBytes: 40), imagePolicy: images)
        let size = #expect(throws: TokenPolicy.Refusal.self) { _ = try small.admit(Data("{not json at all, but long enough}!!!!!!!".utf8), source: "s").get() }
        #expect(size?.rule == .size && size?.error.category == .limit)
        let schema = #expect(throws: TokenPolicy.Refusal.self) {
            _ = try TokenPolicy(imagePolicy: images).admit(Data(#"{"id":"x"}"#.utf8), source: "s").get()
        }
        #expect(schema?.rule == .schema && schema?.error.category == .schema)
        let image = #expect(throws: TokenPolicy.Refusal.self) {
            _ = try TokenPolicy(imagePolicy: images).admit(token("http://evil.example/a.png"), source: "s").get()
        }
        #expect(image?.rule == .imageURL && image?.violations.count == 1)
        #expect(image?.error.message.contains("image URL") == true)
        // Without an image policy, URLs are not checked.
        #expect(throws: Never.self) { _ = try TokenPolicy().admit(token("http://evil.example/a.png"), source: "s").get() }
    }
}
