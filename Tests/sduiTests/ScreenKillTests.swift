// ScreenKillTests.swift - a screen run and a flow run against one registry,
// each killed with SIGKILL mid-sequence and run again on its state file:
// every event either committed reaches the registry exactly once.
#if Server
import Foundation
import SDUICore
import SDUIFlow
@testable import SDUIServer
import SDUITestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct ScreenKillTests {
    /// A child `sdui` whose stderr is read as it comes.
    final class Child: @unchecked Sendable {
        let process = Process()
        let err = Pipe()
        var seen = ""

        init(_ args: [String]) throws {
            process.executableURL = sduiExecutable()
            process.arguments = args
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
        }

        /// Reads stderr until `done` holds for what was read (or it ends).
        func read(until done: (String) -> Bool) {
            while !done(seen) {
                let chunk = err.fileHandleForReading.availableData
                if chunk.isEmpty { return }
                seen += String(decoding: chunk, as: UTF8.self)
            }
        }

        /// SIGKILL, and the exit.
        func kill() {
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// The `ack` lines read.
        var acks: Int { seen.split(separator: "\n").filter { $0.hasPrefix("ack ") }.count }

        /// The events the last `ack` line counted (`ack N SCREEN`).
        var lastAckedEvents: Int {
            seen.split(separator: "\n").last { $0.hasPrefix("ack ") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        }
    }

    static func script(_ text: String, _ dir: URL, _ name: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func killedRunsLoseAndRepeatNoEvent() async throws {
        let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
        let dir = Fixtures.temporaryDirectory()
        let db = dir.appendingPathComponent("r.db").path
        #expect(try await sdui(["registry", "import", examples.path, "--db", db]).status == 0)
        let server = try ServeProcess(["--db", db])
        let base = server.baseURL.absoluteString
        let screenState = dir.appendingPathComponent("screen.sqlite").path
        let flowState = dir.appendingPathComponent("flow.sqlite").path
        let taps = try Self.script(#"[{"tap": "Change"}, {"tap": "Use this address"}, {"tap": "Change"}, {"tap": "Use this address"}, {"tap": "Change"}, "back"]"#,
                                   dir, "taps.json")
        let answers = try Self.script(#"["next", {"answer": {"goal": "strength"}}, "next", {"answer": {"days_per_week": 4}}, "next"]"#,
                                      dir, "answers.json")
        let screen = ["screen", "run", "checkout", "--registry", base, "--events", base + "events", "--state", screenState,
                      "--user", "kill-test", "--trace"]
        let flow = ["flow", "run", "onboarding", "--registry", base, "--events", base + "events", "--state", flowState,
                    "--user", "kill-test", "--trace"]
        // Both at once, so their events reach the registry interleaved; each killed mid-sequence,
        // as soon as it is far enough. The flow steps slowly (a second each, four steps left
        // when it shows screen_goal), so under load it is still running when the kill comes.
        let s1 = try Child(screen + ["--script", taps, "--step-delay-ms", "300"])
        let f1 = try Child(flow + ["--script", answers, "--step-delay-ms", "1000"])
        s1.read { $0.split(separator: "\n").filter { $0.hasPrefix("ack ") }.count >= 3 }
        s1.kill()
        f1.read { $0.contains(" screen_goal\n") }
        f1.kill()
        #expect(s1.process.terminationReason == .uncaughtSignal && f1.process.terminationReason == .uncaughtSignal)
        #expect(s1.acks >= 3, "\(s1.seen)")
        // Again on the same state files: what run 1 queued is sent with run 2's own.
        let s2 = try await sdui(screen + ["--script", try Self.script("[]", dir, "none.json")])
        #expect(s2.status == 0, "\(s2.err)")
        let f2 = try await sdui(flow + ["--script", try Self.script(#"["next"]"#, dir, "one.json")])
        #expect(f2.status == 0, "\(f2.err)")
        #expect(server.stop() == 0)

        let store = try await SQLiteRegistryStore(path: db)
        let stored = try await store.closing { try await store.events(limit: 1_000_000) }.filter { $0.userID == "kill-test" }
        #expect(Set(stored.map(\.id)).count == stored.count, "an event id stored twice")
        let values = stored.compactMap { try? JSONValue(json: $0.json) }
        // Screen events: two sessions, each numbered 1…n without a gap.
        let bySession = Dictionary(grouping: values.filter { $0["session"] != nil }) { $0["session"]?.stringValue ?? "" }
        #expect(bySession.count == 2, "\(bySession.keys)")
        for (session, events) in bySession {
            let seqs = events.compactMap { $0["seq"]?.intValue }.sorted()
            #expect(seqs == Array(1...Int64(seqs.count)), "session \(session): \(seqs)")
        }
        // Run 1's session holds at least every event it had acknowledged
        // (what it committed after its last ack, before the kill, too).
        let firstRun = bySession.values.map(\.count).max() ?? 0
        #expect(firstRun >= s1.lastAckedEvents && s1.lastAckedEvents >= 6, "\(firstRun) \(s1.seen)")
        // Nothing is left queued on either device.
        #expect(try FlowJournal(path: screenState).stats().events == 0)
        #expect(try FlowJournal(path: flowState).stats().events == 0)
        // Flow events: one session numbered 1…n across the kill.
        let flowSeqs = values.filter { $0["session"] == nil }.compactMap { $0["seq"]?.intValue }.sorted()
        #expect(!flowSeqs.isEmpty && flowSeqs == Array(1...Int64(flowSeqs.count)), "\(flowSeqs)")
    }
}
#endif
