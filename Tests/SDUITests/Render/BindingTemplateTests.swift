// BindingTemplateTests.swift - `{{path}}` placeholders filled: types, missing values, escaping, limits.
import Foundation
@testable import SDUI
import Testing

@Suite struct BindingTemplateTests {
    let scope = BindingFixtures.scope

    func fill(_ s: String) -> (JSONValue?, [BindingProblem]) {
        var problems: [BindingProblem] = []
        let v = BindingTemplate.fill(s, scope: scope, problems: &problems)
        return (v, problems)
    }

    @Test func wholeValueKeepsItsType() {
        #expect(fill("{{count}}").0 == .int(3))
        #expect(fill("{{flag}}").0 == .bool(true))
        #expect(fill("{{ price }}").0 == .double(19.5))
        #expect(fill("{{none}}").0 == .null)
        #expect(fill("{{list}}").0 == .array(["a", "b"]))
        #expect(fill("{{team.players[0]}}").0 == .object(["id": "p7"]))
        #expect(fill("{{count}}").1.isEmpty)
    }

    @Test func interpolationFormatsScalars() {
        #expect(fill("Hi {{title}}, {{count}} items at {{price}}, flag {{flag}}, none '{{none}}'").0
                == "Hi Hello, 3 items at 19.5, flag true, none ''")
        #expect(fill("{{user.name}} in {{locale}}").0 == "Anna in de-CH")
        #expect(fill("https://cdn.sdui.example.com/teams/{{team.name}}/crest.png").0
                == "https://cdn.sdui.example.com/teams/Stags/crest.png")
        // Whole doubles print without a fraction.
        let s = BindingScope(item: ["d": .double(2.0)])
        var p: [BindingProblem] = []
        #expect(BindingTemplate.fill("x{{d}}", scope: s, problems: &p) == "x2")
    }

    @Test func missingBindingRule() {
        // Whole value: the prop is removed (nil).
        let (whole, p1) = fill("{{nope.deeper}}")
        #expect(whole == nil)
        #expect(p1 == [BindingProblem(kind: .missing, text: "nope.deeper")])
        // Inside text: nothing is inserted, the rest stays.
        let (text, p2) = fill("Hello {{nope}}!")
        #expect(text == "Hello !")
        #expect(p2 == [BindingProblem(kind: .missing, text: "nope")])
    }

    @Test func listsInsideTextAreReported() {
        let (v, p) = fill("Items: {{list}}")
        #expect(v == "Items: ")
        #expect(p == [BindingProblem(kind: .notText, text: "list")])
    }

    @Test func escapingAndMalformedPlaceholders() {
        #expect(fill(#"literal \{{title}} and {{title}}"#).0 == "literal {{title}} and Hello")
        #expect(fill(#"\{{"#).0 == "{{")
        let (open, p1) = fill("broken {{title")
        #expect(open == "broken {{title")
        #expect(p1.map(\.kind) == [.malformed])
        let (badPath, p2) = fill("{{a b}} and {{title}}")
        #expect(badPath == "{{a b}} and Hello")
        #expect(p2.map(\.kind) == [.malformed])
        let (wholeBad, p3) = fill("{{a..b}}")
        #expect(wholeBad == "{{a..b}}")
        #expect(p3.map(\.kind) == [.malformed])
        // A single brace and text without placeholders pass untouched.
        #expect(fill("{ not a placeholder }").0 == "{ not a placeholder }")
        #expect(fill("plain").1.isEmpty)
    }

    @Test func boundValuesAreNotResolvedAgain() {
        let s = BindingScope(item: ["evil": "{{secret}}", "ref": "@color.primary"], host: ["secret": "leaked"])
        var p: [BindingProblem] = []
        #expect(BindingTemplate.fill("{{evil}}", scope: s, problems: &p) == "{{secret}}")
        #expect(BindingTemplate.fill("x {{evil}}", scope: s, problems: &p) == "x {{secret}}")
        #expect(BindingTemplate.fill("{{ref}}", scope: s, problems: &p) == "@color.primary")
        #expect(p.isEmpty)
    }

    @Test func unicodeAroundPlaceholders() {
        let s = BindingScope(item: ["city": "Zürich", "emoji": "🏃‍♀️"])
        var p: [BindingProblem] = []
        #expect(BindingTemplate.fill("«{{city}}» {{emoji}}—ok", scope: s, problems: &p) == "«Zürich» 🏃‍♀️—ok")
        #expect(p.isEmpty)
    }

    /// A fill stops at its byte limit instead of building the whole text.
    @Test func fillsStopAtTheirLimit() {
        let s = BindingScope(item: ["a": .string(String(repeating: "x", count: 1000)), "n": 12345])
        let many = String(repeating: "{{a}}", count: 5000)
        var p: [BindingProblem] = []
        var produced = 0
        #expect(BindingTemplate.fill(many, scope: s, problems: &p, limit: 64 << 10, produced: &produced) == nil)
        #expect(p.map(\.kind) == [.limit])
        #expect(p.first?.text.contains("65536") == true)
        // Exactly at the limit is allowed; one byte more is not.
        p = []
        #expect(BindingTemplate.fill("{{a}}{{a}}", scope: s, problems: &p, limit: 2000, produced: &produced)
                == .string(String(repeating: "x", count: 2000)))
        #expect(p.isEmpty && produced == 2000)
        #expect(BindingTemplate.fill("{{a}}{{a}}!", scope: s, problems: &p, limit: 2000, produced: &produced) == nil)
        #expect(p.map(\.kind) == [.limit])
        // A whole value counts by its size, a list by its members.
        p = []
        #expect(BindingTemplate.fill("{{a}}", scope: s, problems: &p, limit: 1002, produced: &produced) == s.item["a"])
        #expect(produced == 1002)
        #expect(BindingTemplate.fill("{{a}}", scope: s, problems: &p, limit: 1001, produced: &produced) == nil)
        #expect(p.map(\.kind) == [.limit])
    }
}
