import Foundation
import SDUICore
import SDUIFlow
import SDUITestSupport
import Testing

@Suite struct FlowValidatorTests {
    func issues(_ json: String) throws -> [FlowIssue] {
        FlowValidator().validate(try FlowDefinition(json: Data(json.utf8)))
    }

    func screens(_ s: String, start: String = "a") -> String {
        #"{"id":"f","version":1,"start":"\#(start)","screens":[\#(s)]}"#
    }

    @Test func theExampleFlowIsSound() throws {
        #expect(try FlowValidator().validate(FlowFixtures.flow()).isEmpty)
    }

    @Test func unknownStartAndTarget() throws {
        let i = try issues(screens(#"{"id":"a","blocks":[],"next":[{"to":"zz"}]}"#, start: "nope"))
        #expect(i.contains { $0.kind == .unknownTarget && $0.path == "$.screens[0].next[0].to" && $0.screen == "a" })
        #expect(i.contains { $0.kind == .unknownStart && $0.path == "$.start" && $0.message.contains("nope") })
    }

    @Test func unreachableAndNeverCompleting() throws {
        let i = try issues(screens("""
            {"id":"a","blocks":[],"next":[{"to":"b"}]},
            {"id":"b","blocks":[],"next":[{"when":"answers.x == 1","to":"c"},{"to":"loop"}]},
            {"id":"loop","blocks":[{"type":"choice","key":"x","options":[{"label":"1","value":1}]}],"next":[{"to":"loop"}]},
            {"id":"c","blocks":[]},
            {"id":"island","blocks":[]}
            """))
        #expect(i.contains { $0.kind == .unreachable && $0.screen == "island" && $0.path == "$.screens[4]" })
        #expect(i.contains { $0.kind == .noCompletion && $0.screen == "loop" })
        #expect(!i.contains { $0.kind == .noCompletion && $0.screen == "b" })
        // x is written only on "loop", which cannot come before "b".
        #expect(i.contains { $0.kind == .keyReadBeforeWritten && $0.screen == "b" && $0.message.contains("answers.x") })
    }

    @Test func conditionsThatDoNotParseGiveTheirOffset() throws {
        let i = try issues(screens(#"{"id":"a","blocks":[],"next":[{"when":"answers.x ==","to":"b"},{"to":"b"}]},{"id":"b","blocks":[]}"#))
        let bad = try #require(i.first { $0.kind == .badCondition })
        #expect(bad.path == "$.screens[0].next[0].when")
        #expect(bad.message.contains("at byte"))
    }

    @Test func keysWrittenEarlierOrOnTheSameScreenAreFine() throws {
        let i = try issues(screens("""
            {"id":"a","blocks":[{"type":"text_input","key":"n"}],"next":[{"to":"b"}]},
            {"id":"b","blocks":[{"type":"cta","primary":{"label":"x","action":{"type":"set","key":"answers.m","value":1}}}],
             "next":[{"when":"answers.n == 'x' || answers.m == 1 || attributes.vip","to":"c"},{"to":"c"}]},
            {"id":"c","blocks":[]}
            """))
        #expect(i.isEmpty, "\(i)")
    }

    @Test func duplicateScreensAndKeys() throws {
        let i = try issues(screens("""
            {"id":"a","blocks":[{"type":"text_input","key":"k"}],"next":[{"to":"b"}]},
            {"id":"b","blocks":[{"type":"slider","key":"k","min":0,"max":1}]},
            {"id":"a","blocks":[]}
            """))
        #expect(i.contains { $0.kind == .duplicateScreen && $0.path == "$.screens[2].id" })
        #expect(i.contains { $0.kind == .duplicateKey && $0.path == "$.screens[1].blocks[0].key" && $0.message.contains("$.screens[0].blocks[0].key") })
    }

    @Test func unknownBlocksAndBadActions() throws {
        let i = try issues(screens("""
            {"id":"a","blocks":[{"type":"carousel"},
              {"type":"cta","primary":{"label":"x","action":"teleport"},"secondary":{"label":"y","action":{"type":"set"}}},
              {"type":"cta","primary":{"label":"x","action":{"type":"set","key":"a","expr":"1 +"}}}]}
            """))
        #expect(i.contains { $0.kind == .unknownBlock && $0.path == "$.screens[0].blocks[0].type" && $0.message.contains("carousel") })
        #expect(i.contains { $0.kind == .badAction && $0.path == "$.screens[0].blocks[1].primary.action" && $0.message.contains("teleport") })
        #expect(i.contains { $0.kind == .badAction && $0.path == "$.screens[0].blocks[1].secondary.action" })
        #expect(i.contains { $0.kind == .badAction && $0.path == "$.screens[0].blocks[2].primary.action" && $0.message.contains("does not parse") })
    }

    @Test func onlyConditionalTransitionsIsAWarning() throws {
        let i = try issues(screens(#"{"id":"a","blocks":[{"type":"text_input","key":"n"}],"next":[{"when":"answers.n == 'x'","to":"b"}]},{"id":"b","blocks":[]}"#))
        #expect(i.count == 1)
        #expect(i[0].severity == .warning && i[0].kind == .noDefaultTransition)
        #expect(FlowValidator().errors(try FlowDefinition(json: Data(screens(#"{"id":"a","blocks":[{"type":"text_input","key":"n"}],"next":[{"when":"answers.n == 'x'","to":"b"}]},{"id":"b","blocks":[]}"#).utf8))).isEmpty)
    }

    @Test func errorsComeBeforeWarnings() throws {
        let i = try issues(screens(#"{"id":"a","blocks":[{"type":"text_input","key":"n"}],"next":[{"when":"answers.n == 'x'","to":"zz"}]}"#))
        #expect(i.first?.severity == .error)
        #expect(i.last?.severity == .warning)
    }

    /// Every kind of issue has its row in docs/flows.md's table.
    @Test func everyKindIsDocumented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/flows.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for kind in FlowIssue.Kind.allCases {
            #expect(text.contains("| `\(kind.rawValue)` |"), "\(kind.rawValue) is not in docs/flows.md")
        }
    }

    /// `open_url` links are checked with the link policy (not the image
    /// policy), `submit` endpoints as absolute http(s) URLs.
    @Test func urlsOfActionsAreCheckedWithTheLinkPolicy() throws {
        func cta(_ action: String) -> String {
            #"{"type":"cta","primary":{"label":"x","action":\#(action)}}"#
        }
        let i = try issues(screens("""
            {"id":"a","blocks":[\(cta(#"{"type":"open_url","url":"javascript:alert(1)"}"#)),
                                \(cta(#"{"type":"open_url","url":"file:///etc/passwd"}"#)),
                                \(cta(#"{"type":"open_url","url":"intent://x#Intent;end"}"#)),
                                \(cta(#"{"type":"open_url","url":"data:text/html,hi"}"#)),
                                \(cta(#"{"type":"open_url","url":"https://example.com/terms"}"#)),
                                \(cta(#"{"type":"submit","endpoint":"ftp://example.com/x"}"#)),
                                \(cta(#"{"type":"submit","endpoint":"https://example.com/answers"}"#))]}
            """))
        let bad = i.filter { $0.kind == .badURL }
        #expect(bad.map(\.path) == (0..<4).map { "$.screens[0].blocks[\($0)].primary.action.url" }
                + ["$.screens[0].blocks[5].primary.action.endpoint"], "\(i)")
        #expect(bad.allSatisfy { $0.severity == .error })
        #expect(bad[0].message == #"open_url: link refused: scheme "javascript" is never allowed (javascript:, file:, intent:, data: and their kin run code or reach local data)"#)
        #expect(!bad.contains { $0.message.contains("image") })
        // A host that allows its own scheme.
        let app = try FlowValidator(links: LinkPolicy(allowedSchemes: ["https", "myapp"]))
            .validate(try FlowDefinition(json: Data(screens(#"{"id":"a","blocks":[\#(cta(#"{"type":"open_url","url":"myapp://home"}"#))]}"#).utf8)))
        #expect(app.isEmpty, "\(app)")
    }

    @Test func setOnAttributesIsABadAction() throws {
        let i = try issues(screens(#"{"id":"a","blocks":[{"type":"cta","primary":{"label":"x","action":{"type":"set","key":"attributes.vip","value":true}}}]}"#))
        #expect(i.contains { $0.kind == .badAction && $0.message.contains("attributes") })
    }

    /// A track event the registry would refuse (over the name bound) or
    /// count as the SDK's own (a built-in kind's name) is a bad action at
    /// validation, with its place; a name at the bound is fine.
    @Test func trackEventsNeedANameOfTheirOwnWithinTheBound() throws {
        func track(_ event: String) -> String {
            #"{"type":"cta","primary":{"label":"x","action":{"type":"track","event":"\#(event)"}}}"#
        }
        let atBound = String(repeating: "é", count: EventKind.maxNameLength)
        let over = String(repeating: "e", count: EventKind.maxNameLength + 1)
        let i = try issues(screens(#"{"id":"a","blocks":[\#(track(atBound)),\#(track(over)),\#(track("screen_view")),\#(track("answer"))]}"#))
        let bad = i.filter { $0.kind == .badAction }
        #expect(bad.map(\.path) == ["$.screens[0].blocks[1].primary.action", "$.screens[0].blocks[2].primary.action",
                                    "$.screens[0].blocks[3].primary.action"], "\(bad)")
        #expect(bad.first?.message.contains("is 129 characters; an event name has at most 128") == true, "\(bad)")
        #expect(bad.dropFirst().allSatisfy { $0.message.contains("is an event the SDK emits") }, "\(bad)")
        #expect(EventKind.allCases.allSatisfy { EventKind.refusal(ofTrackName: $0.name) != nil })
        #expect(EventKind.refusal(ofTrackName: "") != nil && EventKind.refusal(ofTrackName: "skip_tapped") == nil)
    }

    /// Decoding refuses a flow over its limits, naming the bound, the value
    /// and the place; the validator does too for a flow built in code.
    @Test func limitsAreClearErrors() throws {
        let limits = FlowLimits(maxScreens: 3, maxTransitions: 4, maxBlocks: 5, maxAnswerKeys: 2, maxConditionBytes: 20)
        func decode(_ json: String) -> SDUIError? {
            do { _ = try FlowDefinition(json: Data(json.utf8), source: "big.json", limits: limits); return nil } catch {
                return error as? SDUIError
            }
        }
        let four = screens((0..<4).map { #"{"id":"s\#($0)","blocks":[]}"# }.joined(separator: ","), start: "s0")
        let e = try #require(decode(four))
        #expect(e.category == .limit && e.input == "big.json")
        #expect(e.message == "$.screens: 4 screens, over the limit of 3 (FlowLimits.maxScreens)")
        let edges = screens(#"{"id":"a","blocks":[],"next":[{"to":"a"},{"to":"a"},{"to":"a"}]},{"id":"b","blocks":[],"next":[{"to":"a"},{"to":"a"}]}"#)
        #expect(decode(edges)?.message == "$.screens[1].next: 5 transitions in all so far, over the limit of 4 (FlowLimits.maxTransitions)")
        let blocks = screens(#"{"id":"a","blocks":[{"type":"spacer"},{"type":"spacer"},{"type":"spacer"}]},{"id":"b","blocks":[{"type":"spacer"},{"type":"spacer"},{"type":"spacer"}]}"#)
        #expect(decode(blocks)?.message == "$.screens[1].blocks: 6 blocks in all so far, over the limit of 5 (FlowLimits.maxBlocks)")
        let long = screens(#"{"id":"a","blocks":[],"next":[{"when":"answers.x == 'aaaaaaaaaaaa'","to":"a"}]}"#)
        #expect(decode(long)?.message == "$.screens[0].next[0].when: 27 bytes, over the limit of 20 (FlowLimits.maxConditionBytes)")
        // Built in code, past the decoder: the validator says so and stops there.
        var flow = try FlowDefinition(json: Data(screens(#"{"id":"a","blocks":[]}"#).utf8))
        flow.screens = (0..<4).map { FlowScreen(id: "s\($0)", blocks: []) }
        let i = FlowValidator(limits: limits).validate(flow)
        #expect(i.map(\.kind) == [.tooLarge] && i[0].message.contains("FlowLimits.maxScreens"), "\(i)")
        let keys = try FlowDefinition(json: Data(screens(#"{"id":"a","blocks":[{"type":"text_input","key":"k1"},{"type":"text_input","key":"k2"},{"type":"text_input","key":"k3"}]}"#).utf8))
        #expect(FlowValidator(limits: limits).validate(keys).contains { $0.kind == .tooLarge && $0.message.contains("maxAnswerKeys") })
    }

    /// The forward bit-set walk finds exactly what a walk backward from
    /// each reading screen finds (the check as it was first written), on
    /// random graphs with cycles, unreachable screens and keys written
    /// in many places.
    @Test func theKeyCheckAgreesWithTheWalkPerScreen() throws {
        var rng = SeededGenerator(state: 23)
        for round in 0..<300 {
            let n = Int.random(in: 1...14, using: &rng)
            let keyCount = Int.random(in: 1...70, using: &rng)   // more than one 64-key word at times
            var screensJSON: [String] = []
            var edges = [[Int]](repeating: [], count: n)
            var writes = [Set<Int>](repeating: [], count: n)
            var reads: [(Int, [Int])] = []
            for i in 0..<n {
                var blocks: [String] = []
                for k in 0..<keyCount where Int.random(in: 0..<100, using: &rng) < 4 {
                    writes[i].insert(k)
                    blocks.append(#"{"type":"cta","primary":{"label":"x","action":{"type":"set","key":"answers.k\#(k)","value":1}}}"#)
                }
                var next: [String] = []
                for _ in 0..<Int.random(in: 0...3, using: &rng) {
                    let j = Int.random(in: 0..<n, using: &rng)
                    edges[i].append(j)
                    let read = (0..<Int.random(in: 0...3, using: &rng)).map { _ in Int.random(in: 0..<keyCount, using: &rng) }
                    reads.append((i, read))
                    let when = read.isEmpty ? "true" : read.map { "answers.k\($0) == 1" }.joined(separator: " || ")
                    next.append(#"{"when":"\#(when)","to":"s\#(j)"}"#)
                }
                screensJSON.append(#"{"id":"s\#(i)","blocks":[\#(blocks.joined(separator: ","))],"next":[\#(next.joined(separator: ","))]}"#)
            }
            let flow = try FlowDefinition(json: Data(screens(screensJSON.joined(separator: ","), start: "s0").utf8))
            let found = Set(FlowValidator().validate(flow).filter { $0.kind == .keyReadBeforeWritten }
                .map { "\($0.screen ?? "")/\($0.message)" })
            // The reference: for each read, walk backward from its screen.
            var reverse = [[Int]](repeating: [], count: n)
            for (i, e) in edges.enumerated() { for j in e { reverse[j].append(i) } }
            func reach(_ from: Int, _ g: [[Int]]) -> Set<Int> {
                var seen: Set<Int> = [from], todo = [from]
                while let v = todo.popLast() { for w in g[v] where seen.insert(w).inserted { todo.append(w) } }
                return seen
            }
            let reachable = reach(0, edges)
            var expected = Set<String>()
            for (s, keys) in reads {
                let before = reach(s, reverse).intersection(reachable).union([s])
                for k in Set(keys) where !before.contains(where: { writes[$0].contains(k) }) {
                    expected.insert("s\(s)/reads answers.k\(k), which no screen before it (or this one) writes")
                }
            }
            #expect(found == expected, "round \(round)")
        }
    }

    /// A chain of screens whose conditions read what the one before wrote:
    /// every key is written before it is read, and the check of thousands
    /// of screens (each its own key) finds nothing.
    @Test func aLongChainValidates() throws {
        let n = 3000
        let list = (0..<n).map { i -> String in
            let next = i + 1 < n ? #","next":[{"when":"answers.k\#(max(0, i - 1)) == 'a'","to":"s\#(i + 1)"},{"to":"s\#(i + 1)"}]"# : ""
            return #"{"id":"s\#(i)","blocks":[{"type":"text_input","key":"k\#(i)"}]\#(next)}"#
        }
        let flow = try FlowDefinition(json: Data(screens(list.joined(separator: ","), start: "s0").utf8))
        #expect(FlowValidator().validate(flow).isEmpty)
    }
}
