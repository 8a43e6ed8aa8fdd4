import Foundation
import NIOConcurrencyHelpers
import SDUI
import SDUICore
import SDUIFlow
import SDUITestSupport
import Testing

@Suite struct FlowSessionTests {
    func session(_ flow: FlowDefinition, _ journal: FlowJournal, user: String = "u1",
                 attributes: [String: JSONValue] = [:], opened: NIOLockedValueBox<[URL]>? = nil) throws -> FlowSession {
        try FlowSession(definition: flow, journal: journal, configuration: .init(
            userID: user, attributes: attributes, openURL: { url in opened?.withLockedValue { $0.append(url) } }))
    }

    @Test func walksABranchToCompletion() throws {
        let j = try FlowFixtures.journal()
        let s = try session(try FlowFixtures.flow(), j)
        #expect(try s.start() == .screen("welcome"))
        #expect(try s.next() == .screen("goal"))
        // Required: next stays and says why, and commits nothing.
        let before = try j.stats().events
        #expect(try s.next() == .stayed("an answer to \"goal\" is required"))
        #expect(s.lastRefusal == "an answer to \"goal\" is required")
        #expect(try j.stats().events == before)
        try s.answer("goal", "strength")
        #expect(s.store.get("answers.goal") == .string("strength"))
        #expect(try s.next() == .screen("strength"))
        #expect(s.lastRefusal == nil)
        try s.answer("days", 3)
        #expect(try s.next() == .screen("name"))
        #expect(try s.back() == .screen("strength"))
        #expect(try s.next() == .screen("name"))
        try s.answer("name", "  ")
        #expect(try s.next() == .stayed("an answer to \"name\" is required"))
        try s.answer("name", "Ada")
        #expect(try s.next() == .screen("done"))
        #expect(try s.next() == .completed)
        #expect(s.progress?.status == .completed)
        #expect(s.currentScreen == nil)
        #expect(throws: SDUIError.self) { try s.next() }
        let events = try FlowFixtures.queued(j)
        #expect(events.map(\.name) == ["flow_start", "screen_view", "screen_view", "answer", "screen_view", "answer",
                                       "screen_view", "screen_view", "screen_view", "answer", "answer", "screen_view",
                                       "flow_complete"])
        #expect(events.map(\.seq) == Array(1...events.count))
        #expect(Set(events.map(\.id)).count == events.count)
        #expect(events.allSatisfy { $0.flowId == "onboarding" && $0.flowVersion == "1" && $0.userId == "u1" })
        #expect(events[3].properties == ["key": "goal", "value": "strength"])
        #expect(events.map(\.screen) == ["welcome", "welcome", "goal", "goal", "strength", "strength", "name", "strength",
                                         "name", "name", "name", "done", "done"])
        #expect(s.emittedEvents == events.map(\.name))
    }

    @Test func conditionsReadHostAttributes() throws {
        for (country, expected) in [("DE", "muscles_de"), ("FR", "name")] {
            let s = try session(try FlowFixtures.flow(), try FlowFixtures.journal(), attributes: ["country": .string(country)])
            try s.start()
            try s.next()
            try s.answer("goal", "muscles")
            #expect(try s.next() == .screen(expected))
        }
    }

    @Test func answerOnlyKeysOfTheScreen() throws {
        let s = try session(try FlowFixtures.flow(), try FlowFixtures.journal())
        try s.start()
        #expect(throws: SDUIError.self) { try s.answer("goal", "strength") }   // not on welcome
    }

    @Test func exitEndsTheFlow() throws {
        let j = try FlowFixtures.journal()
        let s = try session(try FlowFixtures.flow(), j)
        try s.start()
        #expect(try s.exit() == .exited)
        #expect(try FlowFixtures.queued(j).last?.name == "flow_exit")
        #expect(try FlowFixtures.queued(j).last?.screen == "welcome")
        #expect(throws: SDUIError.self) { try s.back() }
    }

    @Test func backWithoutHistoryStays() throws {
        let s = try session(try FlowFixtures.flow(), try FlowFixtures.journal())
        try s.start()
        #expect(try s.back() == .stayed("there is no previous screen"))
    }

    @Test func actionsAreExecuted() async throws {
        let j = try FlowFixtures.journal()
        let opened = NIOLockedValueBox<[URL]>([])
        let s = try session(try FlowFixtures.flow(), j, opened: opened)
        try s.start()
        #expect(try await s.perform(json: ["type": "set", "key": "cart.total", "value": 12]) == .screen("welcome"))
        #expect(s.store.get("cart.total") == .integer(12))
        #expect(try await s.perform(json: ["type": "set", "key": "cart.double", "expr": "cart.total * 2"]) == .screen("welcome"))
        #expect(s.store.get("cart.double") == .integer(24))
        #expect(try await s.perform(json: ["type": "track", "event": "promo_tap", "properties": ["slot": 2]]) == .screen("welcome"))
        #expect(try await s.perform(json: ["type": "open_url", "url": "https://example.com/terms"]) == .screen("welcome"))
        #expect(opened.withLockedValue { $0 } == [URL(string: "https://example.com/terms")!])
        // Refused by the link policy: a render_error, and the screen stays.
        #expect(try await s.perform(json: ["type": "open_url", "url": "http://example.com/"])
                == .stayed(#"open_url: link refused: scheme "http" is not allowed (allowed: https:)"#))
        await #expect(throws: SDUIError.self) { try await s.perform(.openURL("http://example.com/")) }
        #expect(opened.withLockedValue { $0.count } == 1)
        // Unknown: a render_error, no crash, the screen stays.
        if case .stayed(let why) = try await s.perform(json: "teleport") { #expect(why.contains("teleport")) } else {
            Issue.record("unknown action moved")
        }
        #expect(try await s.perform(json: "next") == .screen("goal"))
        await #expect(throws: SDUIError.self) { try await s.perform(.submit(endpoint: nil)) }   // no endpoint
        let names = try FlowFixtures.queued(j).map(\.name)
        #expect(names == ["flow_start", "screen_view", "promo_tap", "render_error", "render_error", "screen_view"])
        let track = try FlowFixtures.queued(j)[2]
        #expect(track.properties == ["slot": 2])
        // `set` data survive a restart.
        let again = try session(try FlowFixtures.flow(), j)
        try again.start()
        #expect(again.store.get("cart.total") == .integer(12))
    }

    @Test func submitPostsTheAnswers() async throws {
        let server = LoopbackEvents()
        try await server.start()
        defer { Task { await server.stop() } }
        let s = try FlowSession(definition: try FlowFixtures.flow(), journal: try FlowFixtures.journal(),
                                configuration: .init(userID: "u7", submitEndpoint: server.submitURL,
                                                     httpClient: patientClient))
        try s.start()
        try s.next()
        try s.answer("goal", "strength")
        #expect(try await s.perform(json: "submit") == .screen("goal"))
        let body = try #require(server.state.withLockedValue { $0.submitted.first })
        #expect(body == ["flowId": "onboarding", "flowVersion": "1", "userId": "u7", "answers": ["goal": "strength"]])
        server.state.withLockedValue { $0.submitStatus = 500 }
        do {
            try await s.perform(.submit(endpoint: nil))
            Issue.record("a 500 was taken for success")
        } catch let e as SDUIError {
            #expect(e.category == .http && e.message.contains("500"))
        }
    }

    @Test func resumesWhereItStopped() throws {
        let dir = Fixtures.temporaryDirectory()
        do {
            let s = try session(try FlowFixtures.flow(), try FlowFixtures.journal(in: dir))
            try s.start()
            try s.next()
            try s.answer("goal", "strength")
            try s.next()
        }
        let j = try FlowFixtures.journal(in: dir)
        let s = try session(try FlowFixtures.flow(), j)
        #expect(try s.start() == .screen("strength"))
        #expect(s.progress?.backStack == ["welcome", "goal"])
        #expect(s.store.get("answers.goal") == .string("strength"))
        #expect(try FlowFixtures.queued(j).last?.name == "screen_view")
        #expect(try FlowFixtures.queued(j).last?.properties["resumed"] == true)
        #expect(try s.back() == .screen("goal"))
        // Another user starts afresh.
        let other = try session(try FlowFixtures.flow(), j, user: "u2")
        #expect(try other.start() == .screen("welcome"))
    }

    /// The definition changed between runs: the screen is kept when it
    /// still exists, else the nearest back-stack screen, else the start;
    /// each time a flow_resume_mismatch says so.
    @Test(arguments: [
        ("text", "kept", "strength", ["welcome", "goal"]),
        ("strength", "back_stack", "goal", ["welcome"]),
        ("all", "start", "intro", []),
    ])
    func resumeAfterTheDefinitionChanged(edit: String, policy: String, expected: String, stack: [String]) throws {
        let dir = Fixtures.temporaryDirectory()
        let original = try FlowFixtures.flow()
        do {
            let s = try session(original, try FlowFixtures.journal(in: dir))
            try s.start(); try s.next(); try s.answer("goal", "strength"); try s.next()   // at strength
        }
        let edited: String
        switch edit {
        case "text":       // the same screens, another title
            edited = FlowFixtures.onboarding.replacingOccurrences(of: "\"title\": \"Hi\"", with: "\"title\": \"Hello\"")
        case "strength":   // the screen shown is gone, its predecessor stays
            edited = try Self.without(["strength"], FlowFixtures.onboarding)
        default:           // every screen of the saved path is gone
            edited = #"{"id": "onboarding", "version": 3, "start": "intro", "screens": [{"id": "intro", "blocks": [], "next": [{"to": "name"}]}, {"id": "name", "blocks": []}]}"#
        }
        let changed = try FlowFixtures.flow(edited)
        #expect(changed.contentHash != original.contentHash)
        if edit != "text" { #expect(changed.screen("strength") == nil) }
        let j = try FlowFixtures.journal(in: dir)
        let s = try session(changed, j)
        #expect(try s.start() == .screen(expected))
        #expect(s.progress?.backStack == stack)
        let events = try FlowFixtures.queued(j)
        let mismatch = try #require(events.first { $0.name == "flow_resume_mismatch" })
        #expect(mismatch.properties["policy"] == .string(policy))
        #expect(mismatch.properties["savedScreen"] == "strength")
        #expect(mismatch.properties["savedHash"] == .string(original.contentHash))
        #expect(mismatch.properties["hash"] == .string(changed.contentHash))
        #expect(events.last?.name == "screen_view")
        #expect(events.last?.screen == expected)
        // Resuming again with the same definition is no mismatch.
        let again = try session(changed, j)
        try again.start()
        #expect(try FlowFixtures.queued(j).filter { $0.name == "flow_resume_mismatch" }.count == 1)
    }

    @Test func aDefinitionWithErrorsIsRefused() throws {
        let bad = try FlowFixtures.flow(#"{"id":"f","version":1,"start":"a","screens":[{"id":"a","blocks":[],"next":[{"to":"zz"}]}]}"#)
        #expect(throws: SDUIError.self) { _ = try session(bad, try FlowFixtures.journal()) }
    }

    @Test func rendersWithTheFlowThemeTheStoreAndTheRefusal() throws {
        var context = RenderContext()
        context.themes = ThemeCatalog([try Theme(contentsOf: Self.examples.appendingPathComponent("themes/theme_mint_dark.json"))])
        let resolver = ScreenResolver(context)
        let flow = try FlowFixtures.flow(#"""
            {"id":"f","version":1,"themeId":"theme_mint_dark","start":"a","screens":[
              {"id":"a","blocks":[{"type":"text_input","key":"n","required":true},{"type":"header","title":"Hi {{answers.n}}"},
                                  {"type":"carousel"}],
               "next":[{"to":"b"}]},{"id":"b","blocks":[]}]}
            """#)
        let j = try FlowFixtures.journal()
        let s = try session(flow, j)
        try s.start()
        _ = try s.next()
        try s.answer("n", "Ada")
        let tree = try s.render(with: resolver)
        #expect(tree.theme == "theme_mint_dark")
        #expect(tree.root.allNodes.contains { $0.props["text"] == "Hi Ada" })
        #expect(tree.root.allNodes.contains { ($0.props["text"]?.stringValue ?? "").contains("required") })
        #expect(tree.events.contains { $0.name == "render_error" })
        _ = try s.render(with: resolver)   // the same view: reported once
        try s.answer("n", "Bob")
        _ = try s.render(with: resolver)   // still the same view
        #expect(try FlowFixtures.queued(j).filter { $0.name == "render_error" }.count == 1)
    }

    /// `json`'s flow without the screens `ids` and the transitions to them.
    static func without(_ ids: Set<String>, _ json: String) throws -> String {
        var root = try JSONValue(json: Data(json.utf8)).objectValue!
        root["screens"] = .array(root["screens"]!.arrayValue!.compactMap { screen in
            guard var o = screen.objectValue, let id = o["id"]?.stringValue, !ids.contains(id) else { return nil }
            if let next = o["next"]?.arrayValue {
                o["next"] = .array(next.filter { !ids.contains($0["to"]?.stringValue ?? "") })
            }
            return .object(o)
        })
        return String(decoding: try JSONEncoder().encode(JSONValue.object(root)), as: UTF8.self)
    }

    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples")
}

/// Saved progress is input: a journal written with hostile progress rows
/// (a real SQLite file) never crashes a session, whatever path the
/// progress takes into it.
@Suite struct FlowSessionSavedProgressTests {
    static let key = "flow/onboarding/u1"

    /// A journal in a fresh folder whose progress row for u1 is `row`.
    func journal(with row: String) throws -> FlowJournal {
        let j = try FlowFixtures.journal()
        try j.commit(states: [(Self.key, Data(row.utf8))])
        return j
    }

    /// A progress row of the onboarding flow, with `fields` replacing its members.
    func row(_ fields: [String: String] = [:]) throws -> String {
        let hash = try FlowFixtures.flow().contentHash
        var members = ["flowId": #""onboarding""#, "flowVersion": #""1""#, "contentHash": "\"\(hash)\"",
                       "screen": #""goal""#, "backStack": #"["welcome"]"#, "data": "{}",
                       "status": #""in_progress""#, "eventSeq": "2", "updatedAt": "0"]
        for (k, v) in fields { members[k] = v }
        return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
    }

    func session(_ j: FlowJournal) throws -> FlowSession {
        try FlowSession(definition: try FlowFixtures.flow(), journal: j, configuration: .init(userID: "u1"))
    }

    /// A screen (or back-stack screens) the definition does not have, with
    /// the definition's own hash (the file was edited on disk): the resume
    /// policy applies, a flow_resume_mismatch says why, and every step
    /// works afterwards.
    @Test(arguments: [
        (#""ghost""#, #"["welcome", "phantom", "goal"]"#, "back_stack", "goal", ["welcome"],
         "the saved screen is not in the definition"),
        (#""ghost""#, #"["phantom"]"#, "start", "welcome", [], "the saved screen is not in the definition"),
        (#""name""#, #"["welcome", "phantom", "goal"]"#, "kept", "name", ["welcome", "goal"],
         "screens of the back stack are not in the definition"),
        ("null", #"["welcome", "goal"]"#, "back_stack", "goal", ["welcome"], "the saved progress has no screen"),
    ])
    func screensNotInTheDefinition(screen: String, stack: String, policy: String, resumed: String,
                                   kept: [String], reason: String) async throws {
        let j = try journal(with: try row(["screen": screen, "backStack": stack]))
        let s = try session(j)
        #expect(try s.start() == .screen(resumed))
        #expect(s.progress?.backStack == kept)
        let mismatch = try #require(try FlowFixtures.queued(j).first { $0.name == "flow_resume_mismatch" })
        #expect(mismatch.properties["policy"] == .string(policy))
        #expect(mismatch.properties["reason"] == .string(reason))
        #expect(mismatch.properties["resumedScreen"] == .string(resumed))
        #expect(mismatch.seq == 3)
        #expect(s.notices.count == 1 && s.notices[0].contains(reason), "\(s.notices)")
        // Every path the progress takes from here works.
        if resumed == "goal" { try s.answer("goal", "strength") }
        _ = try s.next()
        _ = try s.back()
        _ = try await s.perform(json: ["type": "track", "event": "tap"])
        _ = try s.render(with: ScreenResolver(RenderContext()))
        // Resumed again: the repaired progress matches, no second mismatch.
        let again = try session(j)
        _ = try again.start()
        #expect(again.notices.isEmpty)
        #expect(try FlowFixtures.queued(j).filter { $0.name == "flow_resume_mismatch" }.count == 1)
    }

    /// An event counter no run can reach is a corrupt error naming the
    /// journal and the field; the row is left as it is.
    @Test(arguments: ["9223372036854775807", "-1", "-9223372036854775808", "9007199254740992"])
    func impossibleCountersAreCorrupt(_ seq: String) throws {
        let text = try row(["eventSeq": seq])
        let j = try journal(with: text)
        let s = try session(j)
        do {
            _ = try s.start()
            Issue.record("eventSeq \(seq) was taken")
        } catch let e as SDUIError {
            #expect(e.category == .corrupt)
            #expect(e.input == j.path)
            #expect(e.message.contains("eventSeq \(seq)") && e.message.contains(Self.key), "\(e)")
        }
        #expect(try j.state(Self.key) == Data(text.utf8))
        #expect(throws: SDUIError.self) { try s.next() }   // not started: an error, not a crash
    }

    /// A counter at the very top: the step that would pass it fails with
    /// a corrupt error instead of overflowing, and nothing is written.
    @Test func aCounterAtTheTopCannotOverflow() throws {
        let j = try journal(with: try row(["eventSeq": "\(FlowProgress.maxEventSeq)"]))
        let s = try session(j)
        #expect(throws: SDUIError.self) { try s.start() }
        #expect(try j.stats().events == 0)
        let below = try journal(with: try row(["eventSeq": "\(FlowProgress.maxEventSeq - 1)"]))
        let t = try session(below)
        #expect(try t.start() == .screen("goal"))   // one event fits
        do {
            try t.answer("goal", "muscles")
            Issue.record("the counter passed its top")
        } catch let e as SDUIError {
            #expect(e.category == .corrupt && e.message.contains("eventSeq"), "\(e)")
        }
        #expect(t.progress?.eventSeq == FlowProgress.maxEventSeq)
    }

    /// Progress that does not decode is moved aside to a key of its own,
    /// said in the notices and a flow_resume_mismatch, and the flow starts
    /// afresh; the next run resumes normally.
    @Test(arguments: [
        #"{"eventSeq": 1e400}"#, #"{"eventSeq": 99999999999999999999999}"#,
        "EVENTSEQ", "STATUS", "SCREEN", "not json at all", "", #"{"flowId": "onboarding"}"#,
        String(repeating: "[", count: 100_000),
        #"{"data": {"deep": "# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}}",
    ])
    func undecodableProgressIsMovedAside(_ variant: String) throws {
        let text: String
        switch variant {
        case "EVENTSEQ": text = try row(["eventSeq": "12345678901234567890"])
        case "STATUS": text = try row(["status": #""paused""#])
        case "SCREEN": text = try row(["screen": "42", "backStack": #"[1, 2]"#])
        default: text = variant
        }
        let j = try journal(with: text)
        let s = try session(j)
        #expect(try s.start() == .screen("welcome"))
        let events = try FlowFixtures.queued(j)
        #expect(events.map(\.name) == ["flow_resume_mismatch", "flow_start", "screen_view"])
        #expect(events.map(\.seq) == [1, 2, 3])
        let movedTo = try #require(events[0].properties["movedTo"]?.stringValue)
        #expect(movedTo.hasPrefix(Self.key + "#undecodable-"))
        #expect(try j.state(movedTo) == Data(text.utf8))
        #expect(s.notices.count == 1)
        #expect(s.notices[0].contains(movedTo) && s.notices[0].contains(j.path) && s.notices[0].contains("does not decode"))
        try s.next()
        // The next run resumes what this one saved.
        let again = try session(j)
        #expect(try again.start() == .screen("goal"))
        #expect(again.notices.isEmpty)
    }

    /// Saved data keeps its numbers as written: `3.0` resumes a decimal,
    /// `3` an integer (JSONDecoder made both the integer 3).
    @Test func aDecimalInSavedDataStaysADecimal() throws {
        let j = try journal(with: try row(["data": #"{"answers": {"goal": "strength"}, "w": 3.0, "n": 3}"#]))
        let s = try session(j)
        #expect(try s.start() == .screen("goal"))
        #expect(s.notices.isEmpty)
        #expect(s.progress?.data["w"] == .double(3.0))
        #expect(s.progress?.data["n"] == .int(3))
    }

    /// An integer past 2^63 in saved data is refused by the core's parser
    /// (JSONDecoder took it as a double and resumed): the progress is moved
    /// aside and the notice gives the parser's account, naming the journal
    /// and the place.
    @Test func anIntegerPast2To63InSavedDataIsMovedAside() throws {
        let text = try row(["data": #"{"big": 12345678901234567890}"#])
        let j = try journal(with: text)
        let s = try session(j)
        #expect(try s.start() == .screen("welcome"))
        #expect(try FlowFixtures.queued(j).first?.name == "flow_resume_mismatch")
        #expect(s.notices.count == 1)
        let offset = try #require(text.range(of: "12345678901234567890")).upperBound.utf16Offset(in: text)
        #expect(s.notices.first?.contains("json: \(j.path): line 1, column \(offset + 1) (byte \(offset)): ") == true,
                "\(s.notices)")
        #expect(s.notices.first?.contains("integer") == true, "\(s.notices)")
    }

    /// Another flow's progress under this key, with an impossible counter:
    /// corrupt, not a crash.
    @Test func anotherFlowsCounterIsCheckedToo() throws {
        let j = try journal(with: try row(["flowId": #""other""#, "eventSeq": "-3"]))
        #expect(throws: SDUIError.self) { try session(j).start() }
    }
}

/// Actions refused at run time are render_errors; the flow goes on.
@Suite struct FlowSessionRefusedActionTests {
    @Test func refusedActionsAreRenderErrors() async throws {
        let j = try FlowFixtures.journal()
        let s = try FlowSession(definition: try FlowFixtures.flow(), journal: j, configuration: .init(
            userID: "u", submitEndpoint: nil, linkPolicy: try LinkPolicy(allowedSchemes: ["https", "myapp"])))
        try s.start()
        let refused: [(JSONValue, String)] = [
            (["type": "open_url", "url": "javascript:alert(1)"], #"open_url: link refused: scheme "javascript" is never allowed"#),
            (["type": "open_url", "url": "file:///etc/passwd"], #"open_url: link refused: scheme "file" is never allowed"#),
            (["type": "set", "key": "x", "expr": "1 / 0"], "set: "),
            (["type": "set", "key": "x", "expr": "answers.none.deeper + 1"], "set: "),
            (["type": "submit"], "submit: no endpoint"),
            (["type": "submit", "endpoint": "javascript:alert(1)"], "submit: endpoint refused"),
            (["type": "submit", "endpoint": "http://127.0.0.1:1/closed"], "submit: "),
        ]
        for (action, why) in refused {
            let step = try await s.perform(json: action)
            guard case .stayed(let text) = step, text.hasPrefix(why) else {
                Issue.record("\(action): \(step)")
                continue
            }
        }
        #expect(try await s.perform(json: ["type": "open_url", "url": "myapp://home"]) == .screen("welcome"))
        #expect(try s.next() == .screen("goal"))
        let events = try FlowFixtures.queued(j)
        #expect(events.filter { $0.name == "render_error" }.count == refused.count)
        #expect(events.filter { $0.name == "render_error" }.allSatisfy { $0.screen == "welcome" && $0.properties["detail"] != nil })
        #expect(!events.contains { ($0.properties["detail"]?.stringValue ?? "").contains("image") })
        #expect(events.last?.name == "screen_view")
    }
}

@Suite struct FlowSessionConcurrencyTests {
    /// Steps from many tasks at once apply one at a time: every committed
    /// step's event is in the journal once, numbered without a gap, and the
    /// saved progress is the last one.
    @Test func stepsFromManyTasksAreSerialized() async throws {
        let j = try FlowFixtures.journal()
        let s = try FlowSession(definition: try FlowFixtures.flow(), journal: j, configuration: .init(userID: "u"))
        try s.start()
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<50 {
                        _ = try? (t + i).isMultiple(of: 2) ? s.next() : s.back()
                        _ = s.currentScreen
                    }
                }
            }
        }
        let events = try FlowFixtures.queued(j)
        let p = try #require(s.progress)
        #expect(events.map(\.seq) == Array(1...p.eventSeq))
        #expect(events.last?.screen == p.screen)
        let saved = try JSONDecoder().decode(FlowProgress.self, from: try #require(try j.state(s.progressKey)))
        #expect(saved == p)
    }
}
