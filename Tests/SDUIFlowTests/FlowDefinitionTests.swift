import Foundation
import SDUICore
import SDUIFlow
import Testing

@Suite struct FlowDefinitionTests {
    @Test func decodesScreensTransitionsAndInputs() throws {
        let flow = try FlowFixtures.flow()
        #expect(flow.id == "onboarding")
        #expect(flow.version == "1")
        #expect(flow.themeId == "theme_mint_dark")
        #expect(flow.screens.map(\.id) == ["welcome", "goal", "strength", "muscles_de", "name", "done"])
        let goal = try #require(flow.screen("goal"))
        #expect(goal.next.map(\.to) == ["strength", "muscles_de", "name"])
        #expect(goal.next[0].when == "answers.goal == 'strength'")
        #expect(goal.next[2].when == nil)
        #expect(goal.inputs == [FlowInput(key: "goal", block: 1, type: "choice", required: true)])
        #expect(goal.jsonPath == "$.screens[1]")
        #expect(flow.screen("done")?.completes == true)
    }

    @Test func versionMayBeAString() throws {
        let flow = try FlowDefinition(json: Data(#"{"id":"f","version":"2.1","start":"a","screens":[{"id":"a","blocks":[]}]}"#.utf8))
        #expect(flow.version == "2.1")
    }

    @Test func contentHashIgnoresKeyOrderAndSeesContent() throws {
        let a = try FlowDefinition(json: Data(#"{"id":"f","version":1,"start":"a","screens":[{"id":"a","blocks":[]}]}"#.utf8))
        let b = try FlowDefinition(json: Data(#"{"start":"a","screens":[{"blocks":[],"id":"a"}],"version":1,"id":"f"}"#.utf8))
        let c = try FlowDefinition(json: Data(#"{"id":"f","version":1,"start":"a","screens":[{"id":"a","blocks":[{"type":"spacer"}]}]}"#.utf8))
        #expect(a.contentHash == b.contentHash)
        #expect(a.contentHash != c.contentHash)
        #expect(a.contentHash.count == 64)
    }

    /// Each shape error names the input and the JSON path of the bad value.
    @Test(arguments: [
        (#"{"version":1,"start":"a","screens":[]}"#, "$: needs \"id\""),
        (#"{"id":"f","version":1.5,"start":"a","screens":[{"id":"a","blocks":[]}]}"#, "$.version: must be an integer"),
        (#"{"id":"f","version":1,"start":"a","screens":[]}"#, "\"screens\" must not be empty"),
        (#"{"id":"f","version":1,"start":"a","screens":[{"id":"a"}]}"#, "$.screens[0]: needs \"blocks\""),
        (#"{"id":"f","version":1,"start":"a","screens":[{"id":"a","blocks":[{"title":"x"}]}]}"#, "$.screens[0].blocks[0]: needs \"type\""),
        (#"{"id":"f","version":1,"start":"a","screens":[{"id":"a","blocks":[],"next":[{"when":true,"to":"a"}]}]}"#,
         "$.screens[0].next[0].when: must be a string"),
        (#"{"id":"f","version":1,"start":"a","screens":[{"id":"a","blocks":[],"next":[{}]}]}"#, "$.screens[0].next[0]: needs \"to\""),
        (#"{"id":"f","version":1,"start":"a","screens":[{"id":"","blocks":[]}]}"#, "$.screens[0].id: must not be empty"),
        (#"[1]"#, "$: must be an object"),
    ])
    func shapeErrorsNameThePath(json: String, fragment: String) {
        do {
            _ = try FlowDefinition(json: Data(json.utf8), source: "bad.json")
            Issue.record("decoded \(json)")
        } catch let e as SDUIError {
            #expect(e.category == .schema)
            #expect(e.input == "bad.json")
            #expect(e.message.contains(fragment), "\(e.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func textThatIsNotJSONIsAJSONErrorWithItsPlace() {
        do {
            _ = try FlowDefinition(json: Data("{\"id\": ".utf8), source: "cut.json")
            Issue.record("decoded")
        } catch let e as SDUIError {
            #expect(e.category == .json)
            #expect(e.input == "cut.json")
            #expect(e.offset != nil)
        } catch {
            Issue.record("\(error)")
        }
    }
}
