// PropRuleTests.swift - what each prop kind accepts, and the rules primitives carry.
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct PropRuleTests {
    @Test(arguments: [
        (PropRule.Kind.string, JSONValue.string("x"), true), (.string, 1, false),
        (.number, 1.5, true), (.number, "1", false),
        (.bool, true, true), (.bool, 0, false),
        (.color, "#0A0B0C", true), (.color, "#abc", true), (.color, "#0A0B0C80", true),
        (.color, "red", false), (.color, "#12345", false), (.color, "#GGGGGG", false),
        (.length, 0, true), (.length, 12.5, true), (.length, -1, false), (.length, "16", false),
        (.length, .object(["top": 8, "bottom": 4]), true), (.length, .object(["top": "@spacing.md"]), false),
        (.typography, .object(["size": 16]), true), (.typography, "body", false),
        (.action, .object(["type": "next"]), true), (.action, .object(["screen": "x"]), false),
        (.array, .array([]), true), (.object, .array([]), false), (.any, .null, true),
    ])
    func kinds(kind: PropRule.Kind, value: JSONValue, ok: Bool) {
        #expect(PropRule(kind).accepts(value) == ok, "\(kind) \(value)")
    }

    @Test func builtInsCarryRulesAndAppsAddTheirs() throws {
        #expect(PrimitiveMap.builtIn.propRules(of: "Text")["text"] == .required(.string))
        #expect(PrimitiveMap.builtIn.propRules(of: "Nope").isEmpty)
        let map = try PrimitiveMap.builtIn.adding("Map", version: 2, props: ["lat": .required(.number), "lng": .required(.number)])
        #expect(map.version(of: "Map") == 2)
        #expect(map.propRules(of: "Map").count == 2)
        #expect(map != PrimitiveMap.builtIn)
        // Bumping a version without rules keeps the ones it had.
        let bumped = try map.adding("Map", version: 3)
        #expect(bumped.propRules(of: "Map") == map.propRules(of: "Map"))
        #expect(bumped.headerValue.hasSuffix("Map@3"))
    }
}
