import Foundation
import SDUICore
import SDUIFlow
import Testing

/// `sequence` and `if`: actions that hold actions, read within a budget,
/// run in order or by a condition, and checked by the validator as a
/// button's own actions are.
extension FlowActionsTests {
    static func parseFailure(_ json: JSONValue) -> String? {
        if case .failure(let why) = FlowAction.parse(json) { return why.message }
        return nil
    }

    @Test func compositesAreReadWithinTheirBounds() throws {
        #expect(try FlowAction.parse(["type": "sequence", "actions": ["next", ["type": "set", "key": "a", "value": 1]]]).get()
                == .sequence([.next, .set(key: "a", .value(1))]))
        #expect(try FlowAction.parse(["type": "if", "when": "answers.x == 1", "then": "next", "else": "back"]).get()
                == .condition(when: "answers.x == 1", then: .next, otherwise: .back))
        #expect(Self.parseFailure(["type": "sequence", "actions": []]) == "sequence needs \"actions\", an array of 1 to 16 actions")
        #expect(Self.parseFailure(["type": "sequence", "actions": "next"]) == "sequence needs \"actions\", an array of 1 to 16 actions")
        #expect(Self.parseFailure(["type": "sequence", "actions": .array(Array(repeating: "next", count: 17))])
                == "sequence: 17 actions; at most 16")
        #expect(Self.parseFailure(["type": "sequence", "actions": ["next", "teleport"]])?
                .hasPrefix("sequence: actions[1]: unknown action \"teleport\"") == true)
        #expect(Self.parseFailure(["type": "if", "when": "1 +", "then": "next"])?.hasPrefix("if: \"when\" does not parse") == true)
        #expect(Self.parseFailure(["type": "if", "when": "true"]) == "if needs \"then\", an action")
        #expect(Self.parseFailure(["type": "if", "then": "next"]) == "if needs \"when\", a condition")
        #expect(Self.parseFailure(["type": "if", "when": "true", "then": "next", "else": "nowhere"])?
                .hasPrefix("if: else: unknown action \"nowhere\"") == true)

        // Four levels are fine, a fifth is refused, however it is reached.
        func nested(_ levels: Int) -> JSONValue {
            var a: JSONValue = "next"
            for _ in 0..<levels { a = ["type": "sequence", "actions": [a]] }
            return a
        }
        #expect((try? FlowAction.parse(nested(4)).get()) != nil)
        #expect(Self.parseFailure(nested(5))?.hasSuffix("sequence and if nest more than 4 deep") == true)
        // 32 actions in all are fine, 33 are refused: 2 sequences of 15 + the outer = 33.
        let fifteen = JSONValue.array(Array(repeating: "next", count: 15))
        let inner: JSONValue = ["type": "sequence", "actions": fifteen]
        #expect((try? FlowAction.parse(["type": "sequence", "actions": [inner, ["type": "sequence", "actions": .array(Array(repeating: "next", count: 14))]]]).get()) != nil)
        #expect(Self.parseFailure(["type": "sequence", "actions": [inner, inner]])?.hasSuffix("more than 32 actions in one action") == true)
        // A deep nest of JSON costs no more than the bound: refused at the fifth level.
        #expect(Self.parseFailure(nested(10_000))?.hasSuffix("sequence and if nest more than 4 deep") == true)
    }

    static let three = """
    {"id": "three", "version": 1, "start": "a",
     "screens": [{"id": "a", "blocks": [{"type": "header", "title": "Hi"}], "next": [{"to": "b"}]},
                 {"id": "b", "blocks": [], "next": [{"to": "c"}]},
                 {"id": "c", "blocks": []}]}
    """

    @Test func aSequenceRunsInOrderAndStopsWhereItCannotGoOn() async throws {
        let j = try FlowFixtures.journal()
        let s = try FlowSession(definition: try FlowFixtures.flow(Self.three), journal: j, configuration: .init(userID: "u"))
        try s.start()
        // Writes, then moves: later actions see earlier writes.
        #expect(try await s.perform(json: ["type": "sequence", "actions": [
            ["type": "set", "key": "cart.n", "value": 2], ["type": "set", "key": "cart.m", "expr": "cart.n * 10"], "next"]])
            == .screen("b"))
        #expect(s.store.get("cart.m") == .integer(20))
        // Back to a, then a back that cannot apply: the sequence stops there.
        #expect(try await s.perform(json: ["type": "sequence", "actions": ["back", "back", ["type": "set", "key": "after", "value": true]]])
                == .stayed("there is no previous screen"))
        #expect(s.store.get("after") == nil)
        // A refusal refuses the sequence, naming the action; the write before it stays.
        let step = try await s.perform(json: ["type": "sequence", "actions": [
            ["type": "set", "key": "kept", "value": 1], ["type": "open_url", "url": "http://example.com/"]]])
        guard case .stayed(let why) = step else { Issue.record("\(step)"); return }
        #expect(why.hasPrefix("sequence: actions[1]: open_url: link refused"), "\(why)")
        #expect(s.store.get("kept") == .integer(1))
        // It ends with the flow.
        #expect(try await s.perform(json: ["type": "sequence", "actions": ["next", "next", "next", "next"]]) == .completed)
        let names = try FlowFixtures.queued(j).map(\.name)
        #expect(names == ["flow_start", "screen_view", "screen_view", "screen_view", "render_error", "screen_view", "screen_view",
                          "flow_complete"], "\(names)")
    }

    @Test func anIfRunsOneBranchByItsCondition() async throws {
        let j = try FlowFixtures.journal()
        let s = try FlowSession(definition: try FlowFixtures.flow(Self.three), journal: j, configuration: .init(userID: "u"))
        try s.start()
        let choose: JSONValue = ["type": "if", "when": "cart.n > 1",
                                 "then": ["type": "set", "key": "branch", "value": "then"],
                                 "else": ["type": "set", "key": "branch", "value": "else"]]
        try await s.perform(json: ["type": "set", "key": "cart.n", "value": 0])
        #expect(try await s.perform(json: choose) == .screen("a"))
        #expect(s.store.get("branch") == .string("else"))
        try await s.perform(json: ["type": "set", "key": "cart.n", "value": 5])
        #expect(try await s.perform(json: choose) == .screen("a"))
        #expect(s.store.get("branch") == .string("then"))
        // Without else, a false condition stays.
        #expect(try await s.perform(json: ["type": "if", "when": "cart.n > 9", "then": "next"]) == .screen("a"))
        #expect(try await s.perform(.condition(when: "cart.n > 1", then: .next, otherwise: nil)) == .screen("b"))
        // A condition that is not a boolean is refused; the screen stays.
        let step = try await s.perform(json: ["type": "if", "when": "cart.n", "then": "next"])
        guard case .stayed(let why) = step else { Issue.record("\(step)"); return }
        #expect(why.hasPrefix("if: condition cart.n:") && why.contains("not a boolean"), "\(why)")
        await #expect(throws: SDUIError.self) { try await s.perform(.condition(when: "cart.n", then: .next, otherwise: nil)) }
        #expect(s.currentScreen?.id == "b")
    }

    /// The validator looks inside: a refused URL by its path, a write in a
    /// branch for the key check, and an if's condition as a transition's.
    @Test func theValidatorChecksWhatCompositesHold() throws {
        func issues(_ action: String, _ next: String = #"[{"to":"b"}]"#) throws -> [FlowIssue] {
            let json = """
            {"id":"f","version":1,"start":"a","screens":[
              {"id":"a","blocks":[{"type":"cta","primary":{"label":"x","action":\(action)}}],"next":\(next)},
              {"id":"b","blocks":[]}]}
            """
            return FlowValidator().validate(try FlowDefinition(json: Data(json.utf8)))
        }
        let link = try issues(#"{"type":"sequence","actions":["next",{"type":"if","when":"true","then":{"type":"open_url","url":"http://x.example/"}}]}"#)
        #expect(link.map(\.path) == ["$.screens[0].blocks[0].primary.action.actions[1].then.url"], "\(link)")
        #expect(link.first?.kind == .badURL)
        // A set of answers.k inside an if counts as writing k.
        let reads = #"[{"when":"answers.k == 1","to":"b"},{"to":"b"}]"#
        #expect(try issues(#"{"type":"if","when":"true","then":{"type":"set","key":"answers.k","value":1}}"#, reads).isEmpty)
        #expect(try issues(#""next""#, reads).contains { $0.kind == .keyReadBeforeWritten })
        // An if that reads an answer no screen writes is found at its condition.
        let unread = try issues(#"{"type":"if","when":"answers.never == 1","then":"next"}"#)
        #expect(unread.map(\.path) == ["$.screens[0].blocks[0].primary.action.when"], "\(unread)")
        #expect(unread.first?.kind == .keyReadBeforeWritten)
        let bad = try issues(#"{"type":"sequence","actions":[{"type":"if","when":"1 +","then":"next"}]}"#)
        #expect(bad.first?.kind == .badAction && bad.first?.message.contains("actions[0]: if: \"when\" does not parse") == true, "\(bad)")
    }
}
