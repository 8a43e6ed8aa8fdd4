// FilePersistenceTests.swift - the file scope's journal: a write appends one
// record instead of rewriting the snapshot, the records are replayed when
// another store opens the file, a record that cannot be read is an error
// naming the journal and the record (and nothing is written over it), a
// snapshot left by a version without the journal still loads, and writers
// killed with SIGKILL lose no acknowledged write.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SDUICore
@testable import SDUIStore
import SDUITestSupport
import Testing

@Suite struct FilePersistenceTests {
    /// 10,000 top-level keys, each `{"n": i, "t": "value i"}`.
    static func tenThousand() -> [String: StoreValue] {
        var root: [String: StoreValue] = [:]
        for i in 0..<10_000 { root["k\(i)"] = ["n": .integer(i), "t": .string("value \(i)")] }
        return root
    }

    /// What a path leads to: inode and bytes.
    static func identity(_ path: String) throws -> (UInt64, Data) {
        var sb = stat()
        guard stat(path, &sb) == 0 else { throw POSIXError(.ENOENT) }
        return (UInt64(sb.st_ino), try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func aSetAppendsOneRecordAndLeavesTheSnapshotAsItIs() throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("big.json")
        let s = DefaultStore(appID: "app").store(.file(url: url))
        s.replaceAll(with: Self.tenThousand())
        #expect(s.lastPersistenceError == nil)
        let (inode, bytes) = try Self.identity(url.path)
        for i in 0..<50 { s.set("k\(i * 7).n", .integer(-i)) }
        s.set("extra", .color("#FF8800"))
        s.set("ratio", .number(3.0))
        s.remove("k9999")
        #expect(s.lastPersistenceError == nil)
        let (inodeAfter, bytesAfter) = try Self.identity(url.path)
        #expect(inodeAfter == inode && bytesAfter == bytes, "the snapshot was rewritten")
        let journal = try StoreJournal(path: url.path + ".journal")
        #expect(try journal.stats().records == 53, "one record per write")

        // Another store of the file (this one still open: nothing folded)
        // replays the records over the snapshot.
        var expected = Self.tenThousand()
        for i in 0..<50 { expected["k\(i * 7)"] = ["n": .integer(-i), "t": .string("value \(i * 7)")] }
        expected["extra"] = .color("#FF8800")
        expected["ratio"] = .number(3.0)
        expected["k9999"] = nil
        let again = DefaultStore(appID: "app").store(.file(url: url))
        #expect(again.lastPersistenceError == nil)
        #expect(again.snapshot() == expected)
        #expect(again.get("ratio") == .number(3.0), "a decimal stays a decimal")
        #expect(again.get("extra") == .color("#FF8800"), "kinds come back")
    }

    /// When the last store of the file goes away the journal is folded into
    /// the snapshot: a store at rest is a snapshot file, as versions
    /// without the journal wrote and read it.
    @Test func closingFoldsTheJournalIntoTheSnapshot() throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("fold.json")
        do {
            let s = DefaultStore(appID: "app").store(.file(url: url))
            s.replaceAll(with: Self.tenThousand())
            s.set("k1.n", -1)
            s.set("added", "yes")
        }
        #expect(try StoreJournal(path: url.path + ".journal").stats().records == 0)
        let saved = try #require(try SnapshotFile(url: url).read().value)
        let state = try SavedState.decode(saved, version: nil).state
        #expect(state["added"] == "yes" && state["k1"]?.pathObject?["n"] == .integer(-1) && state.count == 10_001)
    }

    /// A store that only reads writes nothing when it goes away (`sdui
    /// store inspect` on a file whose writer was killed leaves it as it is).
    @Test func aStoreThatOnlyReadWritesNothing() throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("read.json")
        let writer = DefaultStore(appID: "app").store(.file(url: url))   // open: nothing folded
        writer.set("a", 1)
        writer.set("b", 2)
        let before = try Self.identity(url.path)
        do {
            let reader = DefaultStore(appID: "app").store(.file(url: url))
            #expect(reader.snapshot() == ["a": 1, "b": 2])
        }
        let after = try Self.identity(url.path)
        #expect(after.0 == before.0 && after.1 == before.1, "the reader rewrote the snapshot")
        #expect(try StoreJournal(path: url.path + ".journal").stats().records == 1)
    }

    /// The journal is folded into the snapshot when it passes its bound, so
    /// it never grows without end (and the queue's own bounds never drop a
    /// record).
    @Test func theJournalIsFoldedWhenItPassesItsBound() throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("many.json")
        let s = DefaultStore(appID: "app").store(.file(url: url))
        let writes = FilePersistence.compactRecords + 10
        for i in 1...writes { s.set("r\(i % 50)", .integer(i)) }
        #expect(s.lastPersistenceError == nil)
        #expect(try StoreJournal(path: url.path + ".journal").stats().records < FilePersistence.compactRecords)
        let again = DefaultStore(appID: "app").store(.file(url: url))
        for i in (writes - 49)...writes { #expect(again.get("r\(i % 50)") == .integer(i)) }
    }

    /// A snapshot with no journal beside it (what versions before the
    /// journal left) loads, and writes go on from it.
    @Test func aSnapshotWithoutAJournalStillLoads() throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("old.json")
        // The snapshot as the earlier versions wrote it: the same envelope,
        // through the same core writer, and no journal.
        try SnapshotFile(url: url).write(SavedState.encode(["a": 1, "brand": .color("#112233")], version: nil))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".journal"))
        let s = DefaultStore(appID: "app").store(.file(url: url))
        #expect(s.lastPersistenceError == nil)
        #expect(s.snapshot() == ["a": 1, "brand": .color("#112233")])
        s.set("b", 2)
        #expect(DefaultStore(appID: "app").store(.file(url: url)).snapshot() == ["a": 1, "b": 2, "brand": .color("#112233")])
    }

    /// A record that does not read (not JSON, or not a record) is an error
    /// naming the journal and the record; the store starts empty and writes
    /// nothing (the snapshot and the journal keep their bytes) until the
    /// journal is moved away.
    @Test(arguments: [("{\"values\":{\"a\":", SDUIError.Category.corrupt), ("[1,2]", .schema),
                      (#"{"values":{},"removed":[3]}"#, .schema)])
    func aRecordThatDoesNotReadIsAnErrorNamingTheJournalAndTheRecord(bad: String, category: SDUIError.Category) throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("bad.json")
        let journalPath = url.path + ".journal"
        let keep = DefaultStore(appID: "app").store(.file(url: url))   // open: nothing folded
        keep.set("a", 1)
        keep.set("b", 2)
        let seq = try StoreJournal(path: journalPath).append(Array(bad.utf8))
        let snapshotBytes = try Data(contentsOf: url)

        let s = DefaultStore(appID: "app").store(.file(url: url))
        let e = try #require(s.loadError)
        #expect(e.category == category, "\(e)")
        #expect(e.input == journalPath, "\(e)")
        #expect(e.message.contains("record \(seq) of the store's journal cannot be read"), "\(e)")
        #expect(e.message.contains("nothing is saved until the journal is fixed or moved away"), "\(e)")
        #expect(s.snapshot().isEmpty)
        s.set("c", 3)
        #expect(s.lastPersistenceError?.input == journalPath, "\(String(describing: s.lastPersistenceError))")
        #expect(try Data(contentsOf: url) == snapshotBytes)
        let records = try StoreJournal(path: journalPath).records()
        #expect(records.map(\.seq).last == seq && records.last?.bytes == Array(bad.utf8), "the bad record stays")
        #expect(records.count == 2, "b's record and the bad one: nothing was added")
    }

    /// When neither the snapshot nor its .prev reads, the next write keeps
    /// them aside and the journal's records with them, one record a line:
    /// starting afresh loses none, and no record of the old generation is
    /// replayed over the new state.
    @Test func anUnreadableSnapshotKeepsItsJournalRecordsAside() throws {
        let dir = Fixtures.temporaryDirectory()
        let url = dir.appendingPathComponent("gone.json")
        let keep = DefaultStore(appID: "app").store(.file(url: url))   // open: nothing folded
        keep.set("a", 1)
        keep.set("b", 2)
        keep.set("c", .url("https://example.com/c"))
        try Data("{".utf8).write(to: url)
        try Data("[".utf8).write(to: URL(fileURLWithPath: url.path + ".prev"))
        let s = DefaultStore(appID: "app").store(.file(url: url))
        #expect(s.loadError?.category == .corrupt, "\(String(describing: s.loadError))")
        s.set("n", 1)
        #expect(s.lastPersistenceError == nil, "\(String(describing: s.lastPersistenceError))")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        let aside = try #require(names.first { $0.hasPrefix("gone.json.journal.unreadable-") }, "\(names)")
        let lines = try String(contentsOf: dir.appendingPathComponent(aside), encoding: .utf8)
            .split(separator: "\n").map { try JournalRecord(bytes: Array($0.utf8), source: aside) }
        #expect(lines.map(\.set) == [["b": 2], ["c": .url("https://example.com/c")]], "b's and c's records")
        #expect(names.contains { $0.hasPrefix("gone.json.unreadable-") } && names.contains { $0.hasPrefix("gone.json.prev.unreadable-") })
        #expect(try StoreJournal(path: url.path + ".journal").stats().records == 0)
        #expect(DefaultStore(appID: "app").store(.file(url: url)).snapshot() == ["n": 1])
    }

    #if Server
    /// The built `sdui` (next to this test bundle).
    static func sduiExecutable() -> URL {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let exe = products.appendingPathComponent("sdui")
        if FileManager.default.fileExists(atPath: exe.path) { return exe }
        return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("sdui")
    }

    /// `sdui store set --repeat` on a store of 10,000 keys, SIGKILLed at
    /// random moments (while it reads the files, appends a record, or waits
    /// for the disk), 40 times: the file always opens, every round the
    /// writer printed (it prints a round once it is saved) is there, the two
    /// keys of a round agree, and the 10,000 keys are all there.
    @Test func writersKilledWithSIGKILLLoseNoAcknowledgedWrite() async throws {
        let dir = Fixtures.temporaryDirectory()
        let url = dir.appendingPathComponent("kill.json")
        DefaultStore(appID: "app").store(.file(url: url)).replaceAll(with: Self.tenThousand())
        var rng = SystemRandomNumberGenerator()
        var acknowledged = 0
        for attempt in 0..<40 {
            let p = Process()
            p.executableURL = Self.sduiExecutable()
            p.arguments = ["store", "set", url.path, "round={n}", "note=\"round {n}\"", "--repeat", "10000000"]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...600, using: &rng)))
            _ = kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let rounds = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { Int($0) }
            acknowledged += rounds.count
            let s = DefaultStore(appID: "app").store(.file(url: url))
            #expect(s.loadError == nil, "kill \(attempt): \(String(describing: s.loadError))")
            if let last = rounds.last {
                guard case .integer(let saved)? = s.get("round") else {
                    Issue.record("kill \(attempt): round \(last) acknowledged, none saved")
                    continue
                }
                #expect(saved >= last, "kill \(attempt): round \(saved) saved, \(last) acknowledged")
                #expect(s.get("note") == .string("round \(saved)"), "kill \(attempt): a transaction was split")
            }
            #expect(s.get("k9999.t") == "value 9999" && s.get("k0.n") == .integer(0), "kill \(attempt)")
        }
        #expect(acknowledged > 0, "some rounds were acknowledged")
    }
    #endif
}
