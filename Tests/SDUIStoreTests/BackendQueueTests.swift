// BackendQueueTests.swift - the backend scope's offline queue in the C
// core's durable queue (PATH.queue): a commit appends, the state file is
// not rewritten, pushes survive a reopen and are sent once, a queue file
// of the old form (the queue inside PATH) loads and is moved over, and an
// item that cannot be read is an error naming the file and the record.
import Foundation
import Logging
import SDUICore
@testable import SDUIStore
import SDUITestSupport
import Testing

@Suite struct BackendQueueTests {
    /// The state file and its queue for namespace `n` in `dir`.
    static func files(_ dir: URL) -> (state: URL, queue: String) {
        let state = dir.appendingPathComponent("backend-n.json")
        return (state, state.path + ".queue")
    }

    /// An adapter whose server is not there (connections refused).
    static func offlineAdapter() async throws -> HTTPBackendAdapter {
        let server = LoopbackStoreBackend()
        try await server.start()
        let url = server.baseURL
        await server.stop()
        return HTTPBackendAdapter(baseURL: url, client: patientClient)
    }

    /// A store given up while its server cannot be reached goes away: its
    /// flusher holds it only while it pushes, not while it waits to retry.
    /// Before, the waiting flusher kept it alive for ever, and once the
    /// server came back it pushed the same patches as the store opened next
    /// on the file (each patch sent twice).
    @Test func aStoreGivenUpWhileOfflineStopsItsFlusher() async throws {
        let dir = Fixtures.temporaryDirectory()
        weak var gone: BackendSync?
        do {
            let sync = BackendSync(namespace: "n", scenarioID: nil, adapter: try await Self.offlineAdapter(),
                                   queue: Self.files(dir).state, version: nil, logger: Logger(label: "test"))
            gone = sync
            let s = ScenarioStore(scope: .backend(namespace: "n"), persistence: sync, logger: Logger(label: "test"))
            s.set("a", 1)
            #expect(s.queuedBackendPatches == 1)
        }
        #expect(try await eventually { gone == nil }, "the flusher keeps the backend sync alive")
    }

    @Test func aCommitAppendsToTheQueueAndDoesNotRewriteTheStateFile() async throws {
        let dir = Fixtures.temporaryDirectory()
        let (state, queue) = Self.files(dir)
        let s = DefaultStore(appID: "app", directory: dir, backend: try await Self.offlineAdapter())
            .store(.backend(namespace: "n"))
        s.set("a", 1)
        let bytes = try Data(contentsOf: state)
        let stamp = try #require(FileStamp(path: state.path))
        let before = try StoreJournal(path: queue).records()
        s.set("b", 2)
        #expect(s.lastPersistenceError == nil)
        #expect(try Data(contentsOf: state) == bytes, "the state file is not rewritten by a commit")
        #expect(FileStamp(path: state.path) == stamp, "the state file is the same file (inode, size, times)")
        let after = try StoreJournal(path: queue).records()
        let new = after.filter { r in !before.contains { $0.seq == r.seq } }
        // One commit: its journal record and its one patch.
        #expect(new.count == 2, "\(new.map { String(decoding: $0.bytes, as: UTF8.self) })")
        #expect(new.contains { String(decoding: $0.bytes, as: UTF8.self).contains("\"patch\"") })
        #expect(s.queuedBackendPatches == 2)
        // The values come back from the snapshot and the queue's records.
        #expect(DefaultStore(appID: "app", directory: dir).store(.backend(namespace: "n")).get("b") == 2)
    }

    @Test func pushesSurviveAReopenAndAreSentOnceWhenTheServerReturns() async throws {
        let server = LoopbackStoreBackend()
        try await server.start()
        let port = server.port
        await server.stop()
        let dir = Fixtures.temporaryDirectory()
        let adapter = HTTPBackendAdapter(baseURL: server.baseURL, client: patientClient)
        do {
            let s = DefaultStore(appID: "app", directory: dir, backend: adapter).store(.backend(namespace: "n"))
            for i in 0..<5 { s.set("k\(i)", .integer(i)) }
            #expect(s.queuedBackendPatches == 5)
        }
        let items = try StoreJournal(path: Self.files(dir).queue).records()
        #expect(items.filter { String(decoding: $0.bytes, as: UTF8.self).contains("\"patch\"") }.count == 5)
        let s = DefaultStore(appID: "app", directory: dir, backend: adapter).store(.backend(namespace: "n"))
        #expect(s.queuedBackendPatches == 5)
        try await server.start(port: port)
        defer { Task { await server.stop() } }
        #expect(try await eventually { s.queuedBackendPatches == 0 })
        // A store opened again finds nothing to push.
        let again = DefaultStore(appID: "app", directory: dir, backend: adapter).store(.backend(namespace: "n"))
        #expect(again.queuedBackendPatches == 0)
        #expect(again.get("k4") == 4)
        try await Task.sleep(for: .milliseconds(200))
        let received = server.state.withLockedValue { $0.received }
        #expect(received.count == 5, "each patch is sent once: \(received)")
        #expect(Set(received).count == 5)
        #expect(server.value(at: "k3") == 3)
    }

    @Test func aQueueFileOfTheOldFormLoadsAndItsPatchesAreMovedAndPushed() async throws {
        let dir = Fixtures.temporaryDirectory()
        let (state, queue) = Self.files(dir)
        let p1 = BackendPatch(op: .set, keyPath: "theme", value: "dark", timestamp: 1_000)
        let p2 = BackendPatch(op: .set, keyPath: "volume", value: 7, timestamp: 1_001)
        let patch = { (p: BackendPatch) -> String in
            "{\"id\":\"\(p.id.uuidString)\",\"op\":\"set\",\"keyPath\":\"\(p.keyPath)\",\"timestamp\":\(p.timestamp),"
                + "\"value\":\(p.value == "dark" ? "\"dark\"" : "7")}"
        }
        let old = "{\"values\":{\"theme\":\"dark\",\"volume\":7},\"namespace\":\"n\",\"queue\":[\(patch(p1)),\(patch(p2))]}"
        let doc = try JSONDocument(JSONValue(json: Data(old.utf8)))
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try SnapshotFile(url: state).write(doc.value)
        do {
            let s = DefaultStore(appID: "app", directory: dir).store(.backend(namespace: "n"))
            #expect(s.lastPersistenceError == nil)
            #expect(s.get("volume") == 7)
            #expect(s.queuedBackendPatches == 2)
        }
        // Moved: the patches are queue items, the state file holds no queue.
        let saved = try #require(try SnapshotFile(url: state).read().value)
        #expect(saved["queue"] == nil)
        #expect(try StoreJournal(path: queue).records().count == 2)
        // And pushed once the server is there.
        let server = LoopbackStoreBackend()
        try await server.start()
        defer { Task { await server.stop() } }
        let s = DefaultStore(appID: "app", directory: dir, backend: HTTPBackendAdapter(baseURL: server.baseURL, client: patientClient))
            .store(.backend(namespace: "n"))
        #expect(s.queuedBackendPatches == 2)
        #expect(try await eventually { s.queuedBackendPatches == 0 })
        #expect(server.state.withLockedValue { $0.root } == ["theme": "dark", "volume": 7])
        #expect(server.state.withLockedValue { $0.received } == [p1.id.uuidString, p2.id.uuidString])
    }

    @Test func aQueueItemThatCannotBeReadIsAnErrorNamingTheFileAndTheRecord() async throws {
        let dir = Fixtures.temporaryDirectory()
        let (_, queue) = Self.files(dir)
        DefaultStore(appID: "app", directory: dir).store(.backend(namespace: "n")).set("x", 1)
        let seq = try StoreJournal(path: queue).append(Array("{\"values\": [1,".utf8))
        let s = DefaultStore(appID: "app", directory: dir).store(.backend(namespace: "n"))
        let e = try #require(s.lastPersistenceError)
        #expect(e.input == queue, "\(e)")
        #expect(e.message.contains("record \(seq)"), "\(e)")
        // Nothing is saved over it: the bad record and the rest stay.
        s.set("y", 2)
        #expect(try StoreJournal(path: queue).records().contains { $0.seq == seq })
    }

    /// Past `compactRecords` the records are folded into the state file;
    /// the unpushed patches stay queued, and a reopen has both.
    @Test func foldingTheRecordsKeepsTheQueuedPatches() throws {
        let dir = Fixtures.temporaryDirectory()
        let (state, queue) = Self.files(dir)
        let n = BackendSync.compactRecords + 5
        do {
            let s = DefaultStore(appID: "app", directory: dir).store(.backend(namespace: "n"))
            for i in 0..<n { s.set("c", .integer(i)) }
            #expect(s.lastPersistenceError == nil)
        }
        let items = try StoreJournal(path: queue).records().map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(items.filter { $0.contains("\"patch\"") }.count == n)
        #expect(items.filter { !$0.contains("\"patch\"") }.count < BackendSync.compactRecords)
        let saved = try #require(try SnapshotFile(url: state).read().value)
        #expect(saved["values"]?["c"] != nil, "the state file was written by the fold")
        let s = DefaultStore(appID: "app", directory: dir).store(.backend(namespace: "n"))
        #expect(s.get("c") == .integer(n - 1))
        #expect(s.queuedBackendPatches == n)
    }
}
