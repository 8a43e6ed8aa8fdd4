import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUIStore
import SDUITestSupport
import Testing

/// The flow's data lives once: steps are patches committed to the journal
/// and published to the store; the host's writes to the store go the same way.
@Suite struct FlowDataPatchTests {
    func session(_ journal: FlowJournal, attributes: [String: JSONValue] = ["country": "DE"]) throws -> FlowSession {
        try FlowSession(definition: try FlowFixtures.flow(), journal: journal,
                        configuration: .init(userID: "u1", attributes: attributes))
    }

    /// A value the host writes into the session's store is still there after
    /// the next step, is journaled by it, and a session reopened from the
    /// journal shows exactly the data the first one showed.
    @Test func hostWritesToTheStoreSurviveStepsAndAReopen() throws {
        let dir = Fixtures.temporaryDirectory()
        let shown: [String: StoreValue]
        let committed: FlowProgress?
        do {
            let s = try session(try FlowFixtures.journal(in: dir))
            try s.start()
            #expect(s.store.set("profile.nickname", "ada") == .ok)
            #expect(s.store.set("attributes.seen", true) == .ok)
            #expect(try s.next() == .screen("goal"))
            try s.answer("goal", "muscles")
            #expect(s.store.get("profile.nickname") == .string("ada"))
            #expect(s.store.get("attributes.seen") == .bool(true))
            // The host answers through the store: the step reads it.
            #expect(s.store.set("answers.goal", "strength") == .ok)
            #expect(try s.next() == .screen("strength"))
            try s.answer("days", 3)
            #expect(s.store.get("profile.nickname") == .string("ada"))
            #expect(s.store.get("answers.goal") == .string("strength"))
            // The host's attributes are its own: kept in the store, never journaled.
            #expect(s.store.get("attributes.seen") == .bool(true))
            #expect(s.store.get("attributes.country") == .string("DE"))
            #expect(s.progress?.data["attributes"] == nil)
            #expect(s.progress?.data["profile"] == ["nickname": "ada"])
            #expect(s.progress?.answers == ["goal": "strength", "days": 3])
            shown = s.store.snapshot()
            committed = s.progress
        }
        let j = try FlowFixtures.journal(in: dir)
        let saved = try JSONDecoder().decode(FlowProgress.self, from: try #require(try j.state("flow/onboarding/u1")))
        #expect(saved.data == committed?.data)
        let again = try session(j)
        #expect(try again.start() == .screen("strength"))
        #expect(again.progress?.data == committed?.data)
        var expected = shown
        expected["attributes"] = ["country": "DE"]
        #expect(again.store.snapshot() == expected)
    }

    /// Answering `answers.goal` reaches the observers of `answers.goal` and
    /// not those of another answer: the step is published as patches, not
    /// as a replacement of the whole data.
    @Test func anAnswerReachesOnlyTheObserversOfItsPath() async throws {
        let s = try session(try FlowFixtures.journal())
        try s.start()
        #expect(try s.next() == .screen("goal"))
        let goal = s.store.changes(for: "answers.goal")
        let other = s.store.changes(for: "answers.other")
        try s.answer("goal", "strength")
        // A later write the other observer does see: the first change it gets must be this one.
        #expect(s.store.set("answers.other", 1) == .ok)
        var g = goal.makeAsyncIterator()
        var o = other.makeAsyncIterator()
        let first = try #require(await g.next())
        #expect(first.patches.map(\.keyPath) == ["answers.goal"])
        #expect(first.patches.first?.newValue == .string("strength"))
        let firstOther = try #require(await o.next())
        #expect(firstOther.patches.map(\.keyPath) == ["answers.other"])
    }

    /// A step that changes no data publishes nothing: an observer of the
    /// answers sees no change from `next` and `back`.
    @Test func aStepWithoutDataChangesPublishesNothing() async throws {
        let s = try session(try FlowFixtures.journal())
        try s.start()
        #expect(try s.next() == .screen("goal"))
        try s.answer("goal", "strength")
        let answers = s.store.changes(for: "answers")
        #expect(try s.next() == .screen("strength"))
        #expect(try s.back() == .screen("goal"))
        #expect(s.store.set("answers.marker", true) == .ok)
        var a = answers.makeAsyncIterator()
        let first = try #require(await a.next())
        #expect(first.patches.map(\.keyPath) == ["answers.marker"])
    }

    /// `reset` removes the flow's data from the store, host writes included,
    /// and keeps the host's attributes.
    @Test func resetRemovesTheDataAndKeepsTheAttributes() throws {
        let s = try session(try FlowFixtures.journal())
        try s.start()
        #expect(s.store.set("profile.nickname", "ada") == .ok)
        try s.next()
        try s.reset()
        #expect(s.store.get("profile") == nil)
        #expect(s.store.snapshot() == ["attributes": ["country": "DE"]])
        #expect(try s.start() == .screen("welcome"))
        #expect(s.progress?.data == [:])
    }
}

/// Saved data that no key path can name still reaches the store and the journal.
@Suite struct FlowDataPatchSavedDataTests {
    /// A top-level key past KeyPath's text bound (a journal edited on disk)
    /// is loaded into the store and kept by the next steps, as are members
    /// nested deeper than a key path reaches.
    @Test func dataNoKeyPathCanNameIsKept() throws {
        let long = String(repeating: "k", count: KeyPath.maxTextBytes + 10)
        var deep: JSONValue = "bottom"
        for _ in 0..<(KeyPath.maxComponents + 6) { deep = ["d": deep] }
        let data: JSONValue = [long: 1, "deep": deep, "answers": ["goal": "strength"]]
        let hash = try FlowFixtures.flow().contentHash
        let text = String(decoding: try JSONEncoder().encode(data), as: UTF8.self)
        let row = #"{"flowId": "onboarding", "flowVersion": "1", "contentHash": "\#(hash)", "screen": "goal", "#
            + #""backStack": ["welcome"], "data": \#(text), "status": "in_progress", "eventSeq": 2, "updatedAt": 0}"#
        let j = try FlowFixtures.journal()
        try j.commit(states: [("flow/onboarding/u1", Data(row.utf8))])
        let s = try FlowSession(definition: try FlowFixtures.flow(), journal: j, configuration: .init(userID: "u1"))
        #expect(try s.start() == .screen("goal"))
        #expect(s.store.snapshot()[long] == 1)
        #expect(s.store.snapshot()["deep"]?.jsonValue == deep)
        try s.answer("goal", "muscles")
        #expect(try s.next() == .screen("name"))
        #expect(s.progress?.data[long] == 1)
        #expect(s.progress?.data["deep"] == deep)
        #expect(s.progress?.answers == ["goal": "muscles"])
        let saved = try JSONDecoder().decode(FlowProgress.self, from: try #require(try j.state("flow/onboarding/u1")))
        #expect(saved.data == s.progress?.data)
    }

    /// A store whose validation refuses a committed value still ends up
    /// holding what was committed, so the next step keeps it in the journal.
    @Test func aValueTheStoreRefusesIsStillKept() throws {
        let j = try FlowFixtures.journal()
        let s = try FlowSession(definition: try FlowFixtures.flow(), journal: j, configuration: .init(userID: "u1"))
        try s.start()
        s.store.configureValidation(.init(mode: .strict, schema: ["answers.goal": Rule(kind: .integer)]))
        #expect(try s.next() == .screen("goal"))
        try s.answer("goal", "strength")
        #expect(s.store.get("answers.goal") == .string("strength"))
        #expect(try s.next() == .screen("strength"))
        #expect(s.progress?.answers["goal"] == .string("strength"))
    }
}
