import Foundation
import SDUICore
import SDUIFlow
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
}
