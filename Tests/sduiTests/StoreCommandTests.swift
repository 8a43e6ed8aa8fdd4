// StoreCommandTests.swift - `sdui store inspect|set` on real files, the file
// scope under 500 SIGKILLs, two writers at once (and one of them SIGKILLed
// holding the lock), a file that cannot be read, a 1.5 GB file, and
// `sdui render --store`.
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

    /// Two `sdui store set --repeat` processes on one file at once: every
    /// round either printed is in the file (each round writes a key of its
    /// own, so a lost save shows as a missing key).
    @Test func twoWritersAtOnceKeepEveryPrintedRound() async throws {
        let file = Fixtures.temporaryDirectory().appendingPathComponent("both.json").path
        let rounds = 300
        async let one = sdui(["store", "set", file, "one.r{n}={n}", "--repeat", String(rounds)])
        async let two = sdui(["store", "set", file, "two.r{n}={n}", "--repeat", String(rounds)])
        let (a, b) = try await (one, two)
        #expect(a.status == 0 && b.status == 0, "\(a.err) \(b.err)")
        let s = DefaultStore(appID: "t").store(.file(url: URL(fileURLWithPath: file)))
        var lost: [String] = []
        for (name, run) in [("one", a), ("two", b)] {
            let printed = run.out.split(separator: "\n").compactMap { Int($0) }
            #expect(printed == Array(1...rounds), "\(name) printed \(printed.count) rounds")
            for n in printed where s.get("\(name).r\(n)") != .integer(n) { lost.append("\(name).r\(n)") }
        }
        #expect(lost.isEmpty, "\(lost.count) printed rounds lost: \(lost.prefix(20))")
    }

    /// A writer SIGKILLed at a random moment (mostly while it holds the
    /// lock: its saves are most of its time) does not hold up another: the
    /// system drops a dead process's lock.  The other finishes, and every
    /// round either printed is in the file.
    @Test func aWriterKilledHoldingTheLockDoesNotBlockTheOther() async throws {
        let file = Fixtures.temporaryDirectory().appendingPathComponent("killed.json").path
        var rng = SystemRandomNumberGenerator()
        for attempt in 0..<20 {
            let killed = Process()
            killed.executableURL = sduiExecutable()
            killed.arguments = ["store", "set", file, "k\(attempt).r{n}={n}", "--repeat", "10000000"]
            let killedOut = Pipe()
            killed.standardOutput = killedOut
            killed.standardError = FileHandle.nullDevice
            try killed.run()
            // Once it has saved a round it is in its loop of saves.  (Read on
            // a Dispatch thread: the wait would block a cooperative one.)
            let reader = killedOut.fileHandleForReading
            let firstChunk = await withCheckedContinuation { (c: CheckedContinuation<Data, Never>) in
                DispatchQueue.global().async { c.resume(returning: reader.availableData) }
            }
            let other = Task { try await sdui(["store", "set", file, "o\(attempt).r{n}={n}", "--repeat", "20"]) }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...20_000, using: &rng)))
            _ = kill(killed.processIdentifier, SIGKILL)
            killed.waitUntilExit()
            let printedKilled = String(decoding: firstChunk + reader.readDataToEndOfFile(), as: UTF8.self)
            // A bound far above the seconds it takes, so a lock never let go
            // fails the test instead of hanging it.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(120))
                for p in Self.running(named: file) { _ = kill(p, SIGKILL) }
            }
            let o = try await other.value
            watchdog.cancel()
            #expect(o.status == 0 && o.out.split(separator: "\n").count == 20, "attempt \(attempt): \(o)")
            let s = DefaultStore(appID: "t").store(.file(url: URL(fileURLWithPath: file)))
            for n in 1...20 {
                #expect(s.get("o\(attempt).r\(n)") == .integer(n), "attempt \(attempt): round \(n) of the other")
            }
            // Only whole lines are acknowledgements.
            for n in printedKilled.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap({ Int($0) }) {
                #expect(s.get("k\(attempt).r\(n)") == .integer(n), "attempt \(attempt): printed round \(n) lost")
            }
        }
    }

    /// The pids of `sdui` processes whose command line names `file`.
    static func running(named file: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { name -> pid_t? in
            guard let pid = pid_t(name),
                  let cmd = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { return nil }
            return String(decoding: cmd, as: UTF8.self).contains(file) ? pid : nil
        }
    }

    /// A file that exists but cannot be read (mode 000, read by a user who
    /// is not root: as root the command runs as "nobody" through
    /// setpriv(1), since root reads any mode) is an error: `set` exits 1
    /// naming it and writes nothing, `inspect` exits 1 and does not show the
    /// older FILE.prev as the state; both files keep their bytes and modes.
    @Test func aFileThatCannotBeReadIsAnErrorAndIsLeftAsItIs() async throws {
        let dir = Fixtures.temporaryDirectory()
        let file = dir.appendingPathComponent("locked.json").path
        #expect(chmod(dir.path, 0o777) == 0)
        #expect(try await Self.sduiUnprivileged(["store", "set", file, "a=1"]).status == 0)
        #expect(try await Self.sduiUnprivileged(["store", "set", file, "a=2"]).status == 0)
        #expect(chmod(file, 0) == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let prevBytes = try Data(contentsOf: URL(fileURLWithPath: file + ".prev"))
        let set = try await Self.sduiUnprivileged(["store", "set", file, "b=1"])
        #expect(set.status == 1, "\(set)")
        #expect(set.err.contains(file) && set.err.contains("cannot be read: Permission denied"), "\(set.err)")
        let again = try await Self.sduiUnprivileged(["store", "set", file, "c=1", "--repeat", "3"])
        #expect(again.status == 1 && again.out.isEmpty, "\(again)")
        let inspect = try await Self.sduiUnprivileged(["store", "inspect", file])
        #expect(inspect.status == 1 && inspect.out.isEmpty && inspect.err.contains("Permission denied"), "\(inspect)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file + ".prev")) == prevBytes)
        #expect(PersistenceMode.of(file) == 0 && PersistenceMode.of(file + ".prev") == 0o600)
        // Readable again: the next write goes into what it holds.
        #expect(chmod(file, 0o600) == 0)
        #expect(try await Self.sduiUnprivileged(["store", "set", file, "b=1"]).status == 0)
        #expect(try await Self.sduiUnprivileged(["store", "inspect", file]).out == "a = 2\nb = 1\n")
    }

    /// `sdui` as a user who is not root: itself when not root, else
    /// "nobody" through setpriv(1) (util-linux).
    static func sduiUnprivileged(_ args: [String]) async throws -> (status: Int32, out: String, err: String) {
        guard geteuid() == 0 else { return try await sdui(args) }
        // `store` runs in sdui-server, started here directly: setpriv execs
        // with root's capabilities still in force, so the build folder need
        // not be searchable by "nobody", but the front's own hand-off
        // (execv, no capabilities left) would need it to be.
        return try await program(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                 ["--reuid=65534", "--regid=65534", "--clear-groups", sduiServerExecutable().path] + args)
    }

    /// A 1.5 GB file (sparse) in the store's place is refused by its size
    /// at once, without being read: `inspect` exits 1 saying so.
    @Test func aHugeFileIsRefusedByItsSize() async throws {
        let file = Fixtures.temporaryDirectory().appendingPathComponent("huge.json").path
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        #expect(truncate(file, 1536 << 20) == 0)
        let r = try await sdui(["store", "inspect", file])
        #expect(r.status == 1 && r.err.contains("is 1610612736 bytes, more than the 67108864"), "\(r)")
        #expect(r.err.contains("none of it was read"), "\(r.err)")
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
/// File modes, for the tests above.
enum PersistenceMode {
    /// The mode bits of the file at `path`, or -1.
    static func of(_ path: String) -> Int {
        var sb = stat()
        return stat(path, &sb) == 0 ? Int(sb.st_mode & 0o7777) : -1
    }
}
#endif
