import Foundation
import SDUICore
import SDUIFlow
import SDUITestSupport
import Testing

@Suite struct FlowJournalTests {
    @Test func commitsStatesAndEventsTogether() throws {
        let dir = Fixtures.temporaryDirectory()
        do {
            let j = try FlowFixtures.journal(in: dir)
            let first = try j.commit(states: [("k", Data("v1".utf8))], events: [Data("{\"a\":1}".utf8), Data("{\"a\":2}".utf8)])
            try j.commit(states: [("k", Data("v2".utf8)), ("gone", Data())], events: [])
            try j.commit(states: [("gone", nil)])
            let q = try j.peek(maxEvents: 10, maxBytes: 1 << 20)
            #expect(q.map(\.seq) == [first, first + 1])
            try j.acknowledge([first])
        }
        let j = try FlowFixtures.journal(in: dir)
        #expect(try j.state("k") == Data("v2".utf8))
        #expect(try j.state("gone") == nil)
        #expect(try j.peek(maxEvents: 10, maxBytes: 1 << 20).map(\.json) == [Data("{\"a\":2}".utf8)])
        #expect(!j.recovered)
    }

    @Test func anOversizedEventWritesNothing() throws {
        let j = try FlowFixtures.journal(limits: .init(maxEventBytes: 100))
        #expect(throws: SDUIError.self) {
            try j.commit(states: [("k", Data("v".utf8))], events: [Data(repeating: 0x61, count: 101)])
        }
        #expect(try j.state("k") == nil)
        #expect(try j.stats().events == 0)
    }

    @Test func aDamagedFileIsMovedAside() throws {
        let dir = Fixtures.temporaryDirectory()
        let path = dir.appendingPathComponent("flows.sqlite")
        try Data(repeating: 0x5A, count: 8192).write(to: path)
        let j = try FlowJournal(path: path.path)
        #expect(j.recovered)
        try j.commit(states: [("k", Data("v".utf8))])
        #expect(try j.state("k") == Data("v".utf8))
    }

    @Test func aDirectoryIsNoJournal() {
        #expect(throws: SDUIError.self) { _ = try FlowJournal(path: Fixtures.temporaryDirectory().path) }
    }
}
