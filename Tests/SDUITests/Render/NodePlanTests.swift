// NodePlanTests.swift - planning a node: literals set aside, templates parsed once, bound paths recorded.
import Foundation
@testable import SDUI
import SDUICore
import Testing

@Suite struct NodePlanTests {
    func plan(_ json: String) throws -> NodePlan {
        let token = try DesignToken(json: json)
        return NodePlan(primitive: token.primitive, version: token.primitiveVersion, props: token.props)
    }

    @Test func recordsEachBoundPathOncePerNode() throws {
        let p = try plan("""
            {"id":"t","version":1,"primitive":"Column","primitiveVersion":1,"props":{
              "padding":"{{layout.pad}}","background":"@color.surface",
              "accessibilityLabel":"{{cart.total}} for {{user.name}}, {{cart.total}} again",
              "style":{"inner":["x","{{items[*].price}}"]},
              "children":[{"primitive":"Text","props":{"text":"{{greeting}}"}}]}}
            """)
        #expect(p.bindings.map(\.description) == ["cart.total", "user.name", "layout.pad", "items[*].price"])
        // The child's path is the child's, not the parent's.
        #expect(p.children.count == 1)
        #expect(p.children[0].bindings.map(\.description) == ["greeting"])
        // Malformed placeholders and escapes bind nothing.
        let q = try plan(#"{"id":"u","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"\\{{x}} {{a b}} {{ok"}}"#)
        #expect(q.bindings.isEmpty)
    }

    @Test func aChangeTouchesTheNodesThatBindIt() throws {
        let p = try plan(#"{"id":"t","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"{{cart.total}} / {{items[*].price}}"}}"#)
        #expect(p.binds(try KeyPath("cart")))            // a parent changed
        #expect(p.binds(try KeyPath("cart.total")))
        #expect(p.binds(try KeyPath("items[2]")))        // one element under the wildcard
        #expect(p.binds(try KeyPath("items[2].price.cents")))
        #expect(!p.binds(try KeyPath("cart.items")))
        #expect(!p.binds(try KeyPath("user")))
    }

    @Test func templatesAreParsedWhenPlanned() throws {
        let p = try plan(#"{"id":"t","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"Hi {{ user.name }}!"}}"#)
        guard case .template(let t, _)? = p.props.dynamic.first(where: { $0.key == "text" })?.value else {
            Issue.record("text was not planned as a template")
            return
        }
        #expect(t.parts == [.text("Hi "), .path(try KeyPath("user.name"), written: "user.name"), .text("!")])
        #expect(!t.isWholeValue)
        #expect(BindingTemplate("{{n}}").isWholeValue)
        // Plain props are literals and bind nothing.
        #expect(p.props.literals.isEmpty)
    }

    @Test func aWildcardBindsAListAsAWholeValue() {
        let scope = BindingScope(item: ["items": .array([.object(["price": 3]), .object(["price": 4])])])
        var problems: [BindingProblem] = []
        #expect(BindingTemplate.fill("{{items[*].price}}", scope: scope, problems: &problems) == .array([3, 4]))
        #expect(problems.isEmpty)
    }
}
