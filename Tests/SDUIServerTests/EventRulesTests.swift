// EventRulesTests.swift - the event rules alone: member types as schemas/events.json gives them, integers, lengths in characters.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct EventRulesTests {
    static let good: [String: JSONValue] = ["id": "e", "name": "n", "flowId": "f", "userId": "u", "timestamp": 1]

    /// Every member the registry reads has one row, and the rows say what
    /// schemas/events.json says: the same members, required ones the same.
    @Test func theMembersAreTheSchemasMembers() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("schemas/events.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let event = try #require((schema["$defs"] as? [String: Any])?["event"] as? [String: Any])
        let properties = try #require(event["properties"] as? [String: Any])
        #expect(Set(EventRules.members.map(\.name)) == Set(properties.keys))
        #expect(Set(EventRules.members.filter(\.required).map(\.name)) == Set(try #require(event["required"] as? [String])))
    }

    /// A required member missing or of another type, and an optional one
    /// of another type, is the first fault; left-out optional members and
    /// members the rules do not name are fine.
    @Test func typeFaultNamesTheMember() {
        #expect(EventRules.typeFault(in: Self.good) == nil)
        var extra = Self.good
        extra["anything"] = ["x": .array([1, .null])]
        extra["screen"] = .null
        extra["seq"] = .double(3)
        #expect(EventRules.typeFault(in: extra) == nil)
        let cases: [(String, JSONValue?, String)] = [
            ("id", nil, #""id" is missing; it must be a string of 1 to 128 characters"#),
            ("name", 5, #""name" must be a string of 1 to 128 characters"#),
            ("timestamp", .double(1.5), #""timestamp" must be a non-negative integer (ms since the epoch)"#),
            ("timestamp", -1, #""timestamp" must be a non-negative integer"#),
            ("flowVersion", 1, #""flowVersion" must be a string"#),
            ("flowVersion", .null, #""flowVersion" must be a string"#),
            ("screen", false, #""screen" must be a string or null"#),
            ("seq", "1", #""seq" must be a non-negative integer"#),
            ("seq", .double(-2), #""seq" must be a non-negative integer"#),
            ("properties", [1], #""properties" must be an object"#),
        ]
        for (member, value, reason) in cases {
            var event = Self.good
            event[member] = value
            let fault = EventRules.typeFault(in: event)
            #expect(fault?.field == member && fault?.reason.hasPrefix(reason) == true, "\(member): \(String(describing: fault))")
        }
    }

    /// JSON Schema's integer: any number without a fraction, within 64 bits.
    @Test func integersAreReadAsJSONSchemaReadsThem() {
        #expect(EventRules.integer(.int(.max)) == .max)
        #expect(EventRules.integer(.double(3)) == 3)
        #expect(EventRules.integer(.double(9.2e18)) == 9_200_000_000_000_000_000)
        #expect(EventRules.integer(.double(-9_223_372_036_854_775_808.0)) == .min)
        #expect(EventRules.integer(.double(9_223_372_036_854_775_808.0)) == nil)   // 2^63
        #expect(EventRules.integer(.double(1.5)) == nil)
        #expect(EventRules.integer(.double(.infinity)) == nil)
        #expect(EventRules.integer("1") == nil)
    }

    /// `id` and `name` are counted in Unicode scalars, the characters of
    /// JSON Schema's maxLength: 128 × "€" (384 bytes) is fine, 129 is not.
    @Test func lengthsAreCharactersNotBytes() {
        func event(id: String, name: String = "n") -> StoredEvent {
            StoredEvent(id: id, name: name, flowID: "f", userID: "u", timestamp: 1, json: Data("{}".utf8))
        }
        #expect(EventRules.fault(in: event(id: String(repeating: "€", count: 50))) == nil)
        #expect(EventRules.fault(in: event(id: String(repeating: "€", count: 128))) == nil)
        #expect(EventRules.fault(in: event(id: "e", name: String(repeating: "€", count: 128))) == nil)
        #expect(EventRules.fault(in: event(id: String(repeating: "€", count: 129)))?.field == "id")
        #expect(EventRules.fault(in: event(id: "e", name: String(repeating: "a", count: 129)))?.field == "name")
        #expect(EventRules.fault(in: event(id: ""))?.field == "id")
        // A flag is two scalars: 64 flags are 128 characters.
        #expect(EventRules.fault(in: event(id: String(repeating: "🇫🇷", count: 64))) == nil)
        #expect(EventRules.fault(in: event(id: String(repeating: "🇫🇷", count: 64) + "x"))?.field == "id")
    }
}
#endif
