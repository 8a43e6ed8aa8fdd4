// StoreCommandTests.swift - `sdui store inspect|set` on real files, the file
// scope under 500 SIGKILLs, and `sdui render --store`.
#if Server
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SDUIStore
import SDUITestSupport
import Testing

@Suite struct StoreCommandTests {
    @Test func setThenInspectPrintsEveryLeaf() async throws {
        let file = Fixtures.temporaryDirectory().appendingPathComponent("scenario.json").path
        let w = try await sdui(["store", "set", file, "cart.total=12.5", #"cart.items=[{"title":"Tea"}]"#,
                                "user['first name']=\"Ada\"", "flags={}"])
        #expect(w.status == 0 && w.out.isEmpty, "\(w)")
        let r = try await sdui(["store", "inspect", file])
        #expect(r.status == 0, "\(r)")
        #expect(r.out == """
            cart.items[0].title = "Tea"
            cart.total = 12.5
            flags = {}
            user['first name'] = "Ada"

            """, "\(r.out)")
        let j = try await sdui(["store", "inspect", file, "--json"])
        let report = try JSONValue(json: Data(j.out.utf8))
        #expect(report["recovered"] == false)
        #expect(report["values"]?["cart"]?["total"] == .double(12.5))
        // The app's own store reads what the command wrote.
        let s = DefaultStore(appID: "t").store(.file(url: URL(fileURLWithPath: file)))
        #expect(s.get("user['first name']") == "Ada")
    }

    @Test func aDamagedFileIsReadFromItsPrevAndSaysSo() async throws {
        let file = Fixtures.temporaryDirectory().appendingPathComponent("s.json").path
        #expect(try await sdui(["store", "set", file, "n=1"]).status == 0)
        #expect(try await sdui(["store", "set", file, "n=2"]).status == 0)   // n=1 is now s.json.prev
        let h = try #require(FileHandle(forUpdatingAtPath: file))
        try h.truncate(atOffset: 20)                                          // torn
        try h.close()
        let r = try await sdui(["store", "inspect", file])
        #expect(r.status == 0 && r.out == "n = 1\n", "\(r)")
        #expect(r.err.contains("recovered the last good state from \(file).prev"), "\(r.err)")
        // Both damaged: nothing can be read, exit 1 naming the file.
        try Data("{".utf8).write(to: URL(fileURLWithPath: file + ".prev"))
        let bad = try await sdui(["store", "inspect", file])
        #expect(bad.status == 1 && bad.err.contains(file), "\(bad)")
        // Writing starts afresh and keeps both unreadable files aside.
        let fresh = try await sdui(["store", "set", file, "n=3"])
        #expect(fresh.status == 0 && fresh.err.contains("keeps the unreadable files aside"), "\(fresh)")
        let names = try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: file).deletingLastPathComponent().path)
        #expect(names.filter { $0.hasPrefix("s.json.unreadable-") }.count == 1, "\(names)")
        #expect(names.filter { $0.hasPrefix("s.json.prev.unreadable-") }.count == 1, "\(names)")
        #expect(try await sdui(["store", "inspect", file]).out == "n = 3\n")
        let missing = try await sdui(["store", "inspect", file + ".none"])
        #expect(missing.status == 1 && missing.err.contains("no such file"), "\(missing)")
        let arrays = try await sdui(["store", "set", file, "list[0]=1"])
        #expect(arrays.status == 1 && arrays.err.contains("list does not exist"), "\(arrays)")
        let usage = try await sdui(["store", "set", file, "no-equals-sign"])
        #expect(usage.status == 1 && usage.err.contains("expected key.path=value"), "\(usage)")
    }

    /// 500 writers killed at random moments: the file always opens (from
    /// FILE or, for a write caught mid-way, FILE.prev), holds every round
    /// the writer acknowledged, and both keys of a round agree (a
    /// transaction is saved whole).
    @Test func theFileScopeSurvives500SIGKILLs() async throws {
        let dir = Fixtures.temporaryDirectory()
        let file = dir.appendingPathComponent("kill.json")
        var acknowledged = 0
        var rng = SystemRandomNumberGenerator()
        var recoveries = 0
        for attempt in 0..<500 {
            let p = Process()
            p.executableURL = sduiExecutable()
            p.arguments = ["store", "set", file.path, "round={n}", "note=round {n}", "--repeat", "10000000"]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            try await Task.sleep(for: .microseconds(Int.random(in: 0...30_000, using: &rng)))
            _ = kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // Only whole lines are acknowledgements.
            let rounds = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { Int($0) }
            let last = rounds.last ?? 0
            let s = DefaultStore(appID: "kill").store(.file(url: file))
            if let e = s.lastPersistenceError {
                #expect(e.message.hasPrefix("recovered the last good state"), "kill \(attempt): \(e)")
                recoveries += 1
            }
            guard case .integer(let saved)? = s.get("round") else {
                #expect(acknowledged == 0 && last == 0, "kill \(attempt): no round after \(acknowledged) acknowledged")
                continue
            }
            // A new writer starts at round 1 again: what matters is this run's acknowledged rounds.
            #expect(last == 0 || saved >= last, "kill \(attempt): round \(saved) saved, \(last) acknowledged")
            #expect(s.get("note") == .string("round \(saved)"), "kill \(attempt): a transaction was split")
            acknowledged += rounds.count
        }
        #expect(acknowledged > 0, "some rounds were acknowledged")
        // Temporary files of killed writers are swept by the next write: at
        // most the last writer's and, if it was killed before its first
        // write swept, the one before it remain.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(left.count <= 2, "\(left)")
        _ = recoveries
    }

    @Test func renderReadsScenarioDataFromAStoreFile() async throws {
        let dir = Fixtures.temporaryDirectory()
        let screen = dir.appendingPathComponent("screen.json")
        try Data("""
        {"id":"cart","blocks":[
          {"type":"header","title":"Total {{cart.total}}","subtitle":"@{fixed(cart.total * 1.0, 2)}"}]}
        """.utf8).write(to: screen)
        let data = dir.appendingPathComponent("data.json")
        try Data(#"{"cart":{"total":42}}"#.utf8).write(to: data)
        let r = try await sdui(["render", screen.path, "--store", data.path])
        #expect(r.status == 0, "\(r)")
        let tree = try JSONValue(json: Data(r.out.utf8))
        let texts = Self.texts(tree["root"]!)
        #expect(texts.contains("Total 42") && texts.contains("42.00"), "\(texts)")
        // --bind wins over the store.
        let b = try await sdui(["render", screen.path, "--store", data.path, "--bind", "cart.total=7"])
        #expect(Self.texts(try JSONValue(json: Data(b.out.utf8))["root"]!).contains("Total 7"), "\(b)")
        try Data("[1]".utf8).write(to: data)
        let bad = try await sdui(["render", screen.path, "--store", data.path])
        #expect(bad.status == 1 && bad.err.contains("the store file must hold a JSON object"), "\(bad)")
    }

    /// Every `text` prop in a tree, depth first.
    static func texts(_ node: JSONValue) -> [String] {
        var out: [String] = []
        if let t = node["props"]?["text"]?.stringValue { out.append(t) }
        for c in node["children"]?.arrayValue ?? [] { out += texts(c) }
        return out
    }
}
#endif
