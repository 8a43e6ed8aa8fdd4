// FlowCommandTests.swift - `sdui flow validate|run|preview` as a user runs
// them: scripts, resume from --state, a pseudo-terminal, and a loop of
// SIGKILLs in the middle of a run.
#if Server
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SDUI
import SDUIFlow
import SDUITestSupport
import Testing

@Suite struct FlowCommandTests {
    static let flow = Fixtures.repositoryRoot.appendingPathComponent("Examples/flows/onboarding.json").path

    func script(_ steps: String) throws -> String {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("steps.json")
        try Data(steps.utf8).write(to: url)
        return url.path
    }

    @Test func validateSaysOkOrNamesScreenAndPath() async throws {
        let ok = try await sdui(["flow", "validate", Self.flow])
        #expect(ok.status == 0 && ok.out.hasPrefix("ok: flow \"onboarding\" version 1: 6 screens"), "\(ok)")
        let bad = Fixtures.temporaryDirectory().appendingPathComponent("bad.json")
        try Data(#"{"id":"f","version":1,"start":"a","screens":[{"id":"a","blocks":[{"type":"carousel"}],"next":[{"when":"answers.x >","to":"b"}]}]}"#.utf8).write(to: bad)
        let r = try await sdui(["flow", "validate", bad.path])
        #expect(r.status == 1)
        #expect(r.err.contains("error: flow: \(bad.path): $.screens[0].blocks[0].type (screen \"a\"): unknown block type \"carousel\""), "\(r.err)")
        #expect(r.err.contains("$.screens[0].next[0].to (screen \"a\"): no screen \"b\""), "\(r.err)")
        #expect(r.err.contains("$.screens[0].next[0].when (screen \"a\"): does not parse"), "\(r.err)")
        let j = try await sdui(["flow", "validate", bad.path, "--json"])
        let listed = try JSONValue(json: Data(j.out.utf8)).arrayValue ?? []
        #expect(Set(listed.compactMap { $0["kind"]?.stringValue }) ==
                ["unknown_block", "unknown_target", "no_completion", "bad_condition", "no_default_transition"])
        #expect(listed.last?["severity"] == "warning")
        let notJSON = try await sdui(["flow", "validate", "-"], stdin: Data("{".utf8))
        #expect(notJSON.status == 1 && notJSON.err.hasPrefix("error: json: standard input"), "\(notJSON)")
    }

    @Test func aScriptRunsResumesAndFinishes() async throws {
        let state = Fixtures.temporaryDirectory().appendingPathComponent("state.sqlite").path
        let first = try await sdui(["flow", "run", Self.flow, "--state", state, "--user", "ada", "--script", try script("""
            ["next", "next", {"answer": {"goal": "muscles"}}, "next", {"answer": {"nope": 1}}, "back", "next"]
            """)])
        #expect(first.status == 0, "\(first)")
        let a = try JSONValue(json: Data(first.out.utf8))
        #expect(a["screens"] == ["screen_welcome", "screen_goal", "screen_muscles", "screen_goal", "screen_muscles"])
        #expect(a["current"] == "screen_muscles")
        #expect(a["status"] == "in_progress")
        #expect(a["answers"] == ["goal": "muscles"])
        #expect(a["events"] == ["flow_start", "screen_view", "screen_view", "answer", "screen_view", "screen_view", "screen_view"])
        #expect(first.err.contains("an answer to \"goal\" is required"))
        #expect(first.err.contains("no input with key \"nope\""))
        // Resumed from --state: the screen shown at resume comes first.
        let second = try await sdui(["flow", "run", Self.flow, "--state", state, "--user", "ada", "--script", try script("""
            ["next", {"answer": {"name": "Ada"}}, "next", "next"]
            """)])
        let b = try JSONValue(json: Data(second.out.utf8))
        #expect(b["screens"] == ["screen_muscles", "screen_profile", "screen_done"], "\(second)")
        #expect(b["status"] == "completed")
        #expect(b["current"] == .null)
        #expect(b["answers"]?["name"] == "Ada")
        #expect(b["events"] == ["screen_view", "screen_view", "answer", "screen_view", "flow_complete"])
        // Another user starts at the beginning; exit ends it.
        let other = try await sdui(["flow", "run", Self.flow, "--state", state, "--user", "bob", "--attr", "country=DE",
                                    "--script", try script(#"["exit", "next"]"#)])
        let c = try JSONValue(json: Data(other.out.utf8))
        #expect(c["status"] == "exited" && c["events"] == ["flow_start", "screen_view", "flow_exit"], "\(other)")
        // A script that is not one is an error naming its step.
        let bad = try await sdui(["flow", "run", Self.flow, "--script", try script(#"["next", {"jump": 1}]"#)])
        #expect(bad.status == 1 && bad.err.contains("step 1"), "\(bad)")
    }

    @Test func previewWritesOnePagePerScreen() async throws {
        let out = Fixtures.temporaryDirectory().appendingPathComponent("preview")
        let theme = Fixtures.repositoryRoot.appendingPathComponent("Examples/themes/theme_mint_dark.json").path
        let r = try await sdui(["flow", "preview", Self.flow, "--out", out.path, "--theme", theme])
        #expect(r.status == 0, "\(r)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(files.count == 7 && files.contains("index.html") && files.contains("02-screen_goal.html"), "\(files)")
        let goal = String(decoding: try Data(contentsOf: out.appendingPathComponent("02-screen_goal.html")), as: UTF8.self)
        #expect(goal.contains("What is your goal?"))
    }

    /// The terminal mode, driven through a real pseudo-terminal.
    @Test func theTerminalModeWalksTheFlow() async throws {
        var master: Int32 = -1, slave: Int32 = -1
        #expect(openpty(&master, &slave, nil, nil, nil) == 0)
        let p = Process()
        p.executableURL = sduiExecutable()
        p.arguments = ["flow", "run", Self.flow, "--state", Fixtures.temporaryDirectory().appendingPathComponent("s.sqlite").path]
        let tty = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        p.standardInput = tty
        p.standardOutput = tty
        p.standardError = tty
        try p.run()
        close(slave)
        let reader = FileHandle(fileDescriptor: master, closeOnDealloc: true)
        var seen = ""
        /// Reads until `text` appears (or 20 s pass).
        func await_(_ text: String) throws {
            let deadline = Date().addingTimeInterval(20)
            while !seen.contains(text), Date() < deadline {
                var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 200) > 0 else { continue }
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            guard seen.contains(text) else { throw SDUIError(.notFound, "no \"\(text)\" in: \(seen)") }
        }
        func send(_ line: String) { _ = line.withCString { write(master, $0, strlen($0)) }; _ = write(master, "\n", 1) }
        try await_("── screen_welcome ──")
        send("next")
        try await_("1) Be stronger [strength]")
        send("next")
        try await_("⚠ an answer to \"goal\" is required")
        send("answer goal 1")                // a choice takes its option's number
        try await_("= strength")
        send("next")
        try await_("── screen_strength ──")
        send("answer days_per_week 4")
        send("next")
        try await_("── screen_profile ──")
        send("answer name Ada")
        send("next")
        try await_("── screen_done ──")
        send("next")
        try await_("flow completed")
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }

    /// 500 acknowledged transitions across runs killed with SIGKILL at
    /// random moments: after each kill the journal holds every transition
    /// the run acknowledged, and each event once, numbered without a gap.
    @Test func flowProgressSurvivesSIGKILLs() async throws {
        let dir = Fixtures.temporaryDirectory()
        let state = dir.appendingPathComponent("state.sqlite").path
        var steps = ["next"]
        for _ in 0..<4000 { steps += ["back", "next"] }
        let stepsFile = try script("[" + steps.map { "\"\($0)\"" }.joined(separator: ",") + "]")
        var acknowledged = 0, kills = 0
        var rng = SystemRandomNumberGenerator()
        let def = try FlowDefinition(json: Data(contentsOf: URL(fileURLWithPath: Self.flow)))
        while acknowledged < 500 || kills < 20 {
            #expect(kills < 400, "too many runs")
            if kills >= 400 { break }
            let p = Process()
            p.executableURL = sduiExecutable()
            p.arguments = ["flow", "run", Self.flow, "--state", state, "--script", stepsFile, "--trace"]
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...400, using: &rng)))
            _ = kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            kills += 1
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // Whole lines only: `ack SEQ SCREEN`.
            let acks = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .filter { $0.hasPrefix("ack ") }.compactMap { Int($0.split(separator: " ")[1]) }
            let journal = try FlowJournal(path: state)
            let saved = try #require(try journal.state("flow/onboarding/local").map {
                try JSONDecoder().decode(FlowProgress.self, from: $0)
            }, "kill \(kills): no progress")
            if let last = acks.last {
                #expect(saved.eventSeq >= last, "kill \(kills): seq \(saved.eventSeq) saved, \(last) acknowledged")
            }
            let events = try journal.peek(maxEvents: 1_000_000, maxBytes: 1 << 30).map {
                try JSONDecoder().decode(FlowEvent.self, from: $0.json)
            }
            // The queue is bounded (10,000 by default) and nothing uploads
            // here: the oldest may have been dropped, and are counted.
            let dropped = try journal.stats().droppedTotal
            #expect(events.count + dropped == saved.eventSeq,
                    "kill \(kills): \(events.count) events + \(dropped) dropped for seq \(saved.eventSeq)")
            #expect(events.first?.seq == dropped + 1 && zip(events, events.dropFirst()).allSatisfy { $0.seq + 1 == $1.seq },
                    "kill \(kills): event seqs have a gap or a repeat")
            #expect(Set(events.map(\.id)).count == events.count)
            #expect(events.last?.screen == saved.screen, "kill \(kills): the last event is not the saved screen's")
            #expect(def.screen(saved.screen ?? "") != nil)
            acknowledged += max(0, acks.count - 1)   // the first ack is the start (or resume)
        }
        #expect(acknowledged >= 500)
        print("flow SIGKILL loop: \(kills) kills, \(acknowledged) acknowledged transitions")
    }
}
#endif
