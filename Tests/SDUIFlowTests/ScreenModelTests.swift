import Foundation
import SDUI
import SDUICore
import SDUIFlow
import Testing

@Suite struct ScreenModelTests {
    static let payload = """
    {"screenName": "home",
     "templates": [
       {"id": "t2", "type": "row", "order": 2, "componentsId": [{"id": "c3", "order": 2}, {"id": "c2", "order": 1}]},
       {"id": "t1", "type": "column", "order": 1, "componentsId": [{"id": "c1", "order": 1}]},
       {"id": "t3", "type": "list", "order": 3, "componentsId": [{"id": "c4", "order": 1}, {"id": "c1", "order": 2}]}
     ],
     "components": [
       {"id": "c1", "type": "header", "bodyId": "b1"},
       {"id": "c2", "type": "footer", "bodyId": "b2"},
       {"id": "c3", "type": "footer", "bodyId": "b3"},
       {"id": "c4", "type": "carousel", "bodyId": "b2"}
     ],
     "body": [
       {"id": "b1", "body": {"title": "Hello", "subtitle": "there"}},
       {"id": "b2", "body": {"text": "left"}},
       {"id": "b3", "body": {"text": "right"}}
     ]}
    """

    @Test func decodesJoinsAndSortsByOrder() throws {
        let m = try ScreenModel(json: Data(Self.payload.utf8), source: "home.json")
        #expect(m.screenName == "home")
        #expect(m.templates.map(\.id) == ["t1", "t2", "t3"])
        #expect(m.templates.map(\.type) == [.column, .row, .list])
        #expect(m.templates[1].components.map(\.id) == ["c2", "c3"])
        #expect(m.templates[0].components[0] == ComponentModel(id: "c1", type: ComponentType(rawValue: "header"), order: 1,
                                                               body: BodyModel(id: "b1", data: ["title": "Hello", "subtitle": "there"])))
        #expect(m.templates[2].components.map(\.body.id) == ["b2", "b1"])
    }

    @Test func rendersTemplatesAsLayoutsAndUnknownTypesAsPlaceholders() throws {
        let m = try ScreenModel(json: Data(Self.payload.utf8))
        let tree = ScreenResolver().resolve(m)
        #expect(tree.screen == "home")
        let kids = tree.root.children
        #expect(kids.map(\.primitive) == ["Column", "Row", "Column"])
        #expect(kids[0].children.count == 1)
        #expect(kids[0].children[0].allNodes.contains { $0.props["text"] == "Hello" })
        #expect(kids[1].children.count == 2)
        #expect(kids[1].children[0].allNodes.contains { $0.props["text"] == "left" })
        #expect(kids[1].children[1].allNodes.contains { $0.props["text"] == "right" })
        #expect(kids[2].children[0].kind == .placeholder)
        #expect(kids[2].children[1].kind == .primitive)
        let errors = tree.events.filter { $0.name == "render_error" }
        #expect(errors.count == 1)
        #expect(errors[0].token == "block[2].blocks[0]")
        #expect(errors[0].detail.contains("carousel"))
    }

    /// One benefits_list body of 200 items (601 nodes), listed by 2,000
    /// templates: 1.2 million nodes asked for by a 70 KB payload.
    static func hostile(templates: Int = 2_000, items: Int = 200) -> String {
        let list = (0..<items).map { "\"item \($0)\"" }.joined(separator: ",")
        let ts = (0..<templates).map { #"{"id":"t\#($0)","type":"list","order":\#($0),"componentsId":[{"id":"c","order":1}]}"# }
        return #"{"screenName":"deep","templates":[\#(ts.joined(separator: ","))],"#
            + #""components":[{"id":"c","type":"benefits_list","bodyId":"b"}],"body":[{"id":"b","body":{"items":[\#(list)]}}]}"#
    }

    /// Reuse draws up to the render bound, then one placeholder whose issue
    /// names the screen, the template and the component; nothing after it.
    @Test func reuseStopsAtTheRenderBound() throws {
        let m = try ScreenModel(json: Data(Self.hostile().utf8), source: "deep.json")
        #expect(m.templates.count == 2_000)
        let tree = ScreenResolver().resolve(m)
        let nodes = tree.root.allNodes.count - 1
        #expect(nodes <= RenderContext().renderLimits.maxNodes + 1)
        #expect(nodes == 33 * 602 + 2)   // 33 templates of a column and its 601-node list, then the 34th's column
        #expect(tree.root.children.count == 34)
        #expect(tree.root.children.last?.children.map(\.reason) == ["limit"])
        #expect(tree.issues.count == 1)
        let issue = try #require(tree.issues.first)
        #expect(issue.kind == .limit)
        #expect(issue.token == "block[33].blocks[0]")
        #expect(issue.message.contains(#"screen "deep""#), "\(issue.message)")
        #expect(issue.message.contains(#"(in block "t33" › "c")"#), "\(issue.message)")
        #expect(tree.events.isEmpty)
    }

    /// A component's block is its body's fields with its type and id, made
    /// once: every use of the component carries the same block.
    @Test func aComponentsBlockCarriesItsTypeAndID() throws {
        let m = try ScreenModel(json: Data(Self.payload.utf8))
        let c1 = m.templates[0].components[0]
        #expect(c1.block == ["type": "header", "id": "c1", "title": "Hello", "subtitle": "there"])
        #expect(m.templates[2].components[1].block == c1.block)
        var changed = c1
        changed.type = ComponentType(rawValue: "footer")
        #expect(changed.block["type"] == "footer")
        #expect(changed.block["id"] == "c1")
    }

    @Test func anUnknownTemplateTypeIsAPlaceholder() throws {
        let json = #"{"screenName":"s","templates":[{"id":"t","type":"grid","order":1,"componentsId":[]}],"components":[],"body":[]}"#
        let tree = ScreenResolver().resolve(try ScreenModel(json: Data(json.utf8)))
        #expect(tree.root.children.first?.kind == .placeholder)
        #expect(tree.events.map(\.name) == ["render_error"])
    }

    @Test(arguments: [
        (#"{"templates":[],"components":[],"body":[]}"#, "$: needs \"screenName\""),
        (#"{"screenName":"s","templates":[{"id":"t","type":"row","order":1,"componentsId":[{"id":"zz","order":1}]}],"components":[],"body":[]}"#,
         "$.templates[0].componentsId[0].id: no component with id \"zz\""),
        (#"{"screenName":"s","templates":[],"components":[{"id":"c","type":"header","bodyId":"nope"}],"body":[]}"#,
         "$.components[0].bodyId: no body with id \"nope\""),
        (#"{"screenName":"s","templates":[],"components":[],"body":[{"id":"b","body":{}},{"id":"b","body":{}}]}"#,
         "$.body[1]: duplicate body id \"b\" (first at $.body[0])"),
        (#"{"screenName":"s","templates":[],"components":[{"id":"c","type":"h","bodyId":"b"},{"id":"c","type":"h","bodyId":"b"}],"body":[{"id":"b","body":{}}]}"#,
         "$.components[1]: duplicate component id \"c\""),
        (#"{"screenName":"s","templates":[{"id":"t","type":"row","order":1,"componentsId":[]},{"id":"t","type":"row","order":2,"componentsId":[]}],"components":[],"body":[]}"#,
         "$.templates[1]: duplicate template id \"t\""),
        (#"{"screenName":"s","templates":[{"id":"t","type":"row","componentsId":[]}],"components":[],"body":[]}"#,
         "$.templates[0]: needs \"order\""),
        (#"{"screenName":"s","templates":[{"id":"t","type":"row","order":1,"componentsId":[{"id":"c"}]}],"components":[{"id":"c","type":"h","bodyId":"b"}],"body":[{"id":"b","body":{}}]}"#,
         "$.templates[0].componentsId[0]: needs \"order\""),
        (#"{"screenName":"s","templates":[],"components":[],"body":[{"id":"b","body":[1]}]}"#, "$.body[0].body: must be an object"),
        (#"{"screenName":"s","templates":[],"components":[],"body":[{"id":"b"}]}"#, "$.body[0]: needs \"body\""),
    ])
    func faultsNameTheirPath(json: String, fragment: String) {
        do {
            _ = try ScreenModel(json: Data(json.utf8), source: "p.json")
            Issue.record("decoded")
        } catch let e as SDUIError {
            #expect(e.category == .schema)
            #expect(e.input == "p.json")
            #expect(e.message.contains(fragment), "\(e.message)")
        } catch {
            Issue.record("\(error)")
        }
    }
}
