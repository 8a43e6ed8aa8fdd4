import Foundation
import SDUI
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

    /// A damaged journal (its header's first bytes gone) is moved aside,
    /// and ``FlowJournal/recovery`` says where; a fresh one works.
    @Test func aDamagedJournalIsMovedAsideAndSaysWhere() throws {
        let dir = Fixtures.temporaryDirectory()
        let path = dir.appendingPathComponent("flows.sqlite")
        do {
            let j = try FlowJournal(path: path.path)
            try j.commit(states: [("k", Data("old".utf8))])
            #expect(j.recovery == nil)
        }
        let handle = try FileHandle(forWritingTo: path)
        try handle.write(contentsOf: Data(repeating: 0, count: 16))
        try handle.close()
        let j = try FlowJournal(path: path.path)
        #expect(j.recovered)
        let note = try #require(j.recovery)
        #expect(note.contains(path.path) && note.contains("was damaged") && note.contains("moved aside to"), "\(note)")
        let moved = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("flows.sqlite.corrupt-") }
        #expect(moved.contains { note.contains($0) }, "\(moved)")
        #expect(try j.state("k") == nil)
        try j.commit(states: [("k", Data("v".utf8))])
        #expect(try j.state("k") == Data("v".utf8))
    }

    /// A file that is not a journal (a document, garbage, a SQLite database
    /// of another kind) is refused, named, and keeps every byte.
    @Test func aFileThatIsNotAJournalIsLeftAlone() throws {
        let dir = Fixtures.temporaryDirectory()
        let cache = dir.appendingPathComponent("cache.sqlite")
        _ = try DiskCache(path: cache.path)            // a healthy SQLite file of another schema
        let files: [(URL, Data?)] = [
            (dir.appendingPathComponent("notes.txt"), Data("my notes\n".utf8)),
            (dir.appendingPathComponent("garbage.bin"), Data(repeating: 0x5A, count: 8192)),
            (cache, nil),
        ]
        for (url, bytes) in files {
            if let bytes { try bytes.write(to: url) }
            let before = try Data(contentsOf: url)
            do {
                _ = try FlowJournal(path: url.path)
                Issue.record("\(url.lastPathComponent) was taken")
            } catch let e as SDUIError {
                #expect(e.category == .sqlite)
                #expect(e.message.contains(url.path) && e.message.contains("left untouched"), "\(e)")
            }
            #expect(try Data(contentsOf: url) == before, "\(url.lastPathComponent) changed")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains(".corrupt-") })
        _ = try DiskCache(path: cache.path)            // still its owner's
    }

    @Test func aDirectoryIsNoJournal() {
        #expect(throws: SDUIError.self) { _ = try FlowJournal(path: Fixtures.temporaryDirectory().path) }
    }
}
