// FlowStateCommandTests.swift - `sdui flow run --state` over files that are
// not its own, damaged and hostile state files, refused actions in a
// script, and `sdui flow validate` on links and limits.
#if Server
import Foundation
import SDUI
import SDUIFlow
import SDUITestSupport
import Testing

@Suite struct FlowStateCommandTests {
    static let flow = Fixtures.repositoryRoot.appendingPathComponent("Examples/flows/onboarding.json").path
    static let key = "flow/onboarding/local"

    func script(_ steps: String) throws -> String {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("steps.json")
        try Data(steps.utf8).write(to: url)
        return url.path
    }

    func run(_ state: String, _ steps: String = #"["next"]"#) async throws -> (status: Int32, out: String, err: String) {
        try await sdui(["flow", "run", Self.flow, "--state", state, "--script", try script(steps)])
    }

    /// A file that is not a state file (a document, another program's
    /// healthy SQLite database, a token cache) is refused with a clear
    /// error and keeps every byte; nothing is moved aside.
    @Test func aFileThatIsNotOursIsRefusedAndLeftAlone() async throws {
        let dir = Fixtures.temporaryDirectory()
        let notes = dir.appendingPathComponent("notes.sqlite")
        try Data("remember the milk\n".utf8).write(to: notes)
        let registry = dir.appendingPathComponent("registry.db")
        let tokens = Fixtures.repositoryRoot.appendingPathComponent("Examples/tokens").path
        let imported = try await sdui(["registry", "import", tokens, "--db", registry.path])
        #expect(imported.status == 0, "\(imported)")
        let cache = dir.appendingPathComponent("cache.db")
        _ = try DiskCache(path: cache.path)
        for (file, why) in [(notes, "not a SQLite database"), (registry, "another program"), (cache, "application_id")] {
            let before = try Data(contentsOf: file)
            let r = try await run(file.path)
            #expect(r.status == 1, "\(file.lastPathComponent): \(r)")
            #expect(r.err.hasPrefix("error: sqlite: "), "\(r.err)")
            #expect(r.err.contains(file.path) && r.err.contains("left untouched") && r.err.contains(why), "\(r.err)")
            #expect(r.out.isEmpty)
            #expect(try Data(contentsOf: file) == before, "\(file.lastPathComponent) changed")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains(".corrupt-") })
        let listed = try await sdui(["registry", "list", "--db", registry.path])
        #expect(listed.status == 0, "\(listed)")
    }

    /// A path that is not a regular file (a FIFO; a character device like
    /// /dev/null, made with mknod where the machine allows it) is refused
    /// as a state file and as a store file, and stays what it was: never
    /// opened for reading (a FIFO would block), written, moved or replaced.
    @Test func aFileThatIsNotRegularIsRefusedAndLeftAsItIs() async throws {
        let dir = Fixtures.temporaryDirectory()
        var specials: [(path: String, kind: mode_t)] = []
        for name in ["flow.fifo", "store.fifo"] {
            let path = dir.appendingPathComponent(name).path
            #expect(mkfifo(path, 0o644) == 0)
            specials.append((path, S_IFIFO))
        }
        for name in ["flow.null", "store.null"] {
            let path = dir.appendingPathComponent(name).path
            // The device of /dev/null (major 1, minor 3: glibc's makedev
            // gives 0x103); unprivileged or in some containers mknod is refused.
            if mknod(path, S_IFCHR | 0o666, 0x103) == 0 { specials.append((path, S_IFCHR)) }
        }
        for special in specials {
            let r = special.path.contains("flow")
                ? try await run(special.path)
                : try await sdui(["store", "set", special.path, "a=1"])
            #expect(r.status == 1 && r.out.isEmpty, "\(special.path): \(r)")
            #expect(r.err.contains(special.path) && r.err.contains("not a regular file"), "\(r.err)")
            var st = stat()
            #expect(lstat(special.path, &st) == 0 && st.st_mode & S_IFMT == special.kind, "\(special.path) was replaced")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == specials.map { URL(fileURLWithPath: $0.path).lastPathComponent }.sorted(), "\(left)")
    }

    /// Our own damaged state file is moved aside, said on stderr, and the
    /// run goes on with a fresh one.
    @Test func aDamagedStateFileIsMovedAsideAndSaid() async throws {
        let dir = Fixtures.temporaryDirectory()
        let state = dir.appendingPathComponent("state.sqlite")
        #expect(try await run(state.path, #"["next"]"#).status == 0)
        let handle = try FileHandle(forWritingTo: state)
        try handle.write(contentsOf: Data(repeating: 0, count: 16))
        try handle.close()
        let r = try await run(state.path, #"["next"]"#)
        #expect(r.status == 0, "\(r)")
        #expect(r.err.contains("warning: outbox \"\(state.path)\" was damaged"), "\(r.err)")
        let moved = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("state.sqlite.corrupt-") }
        #expect(!moved.isEmpty && moved.contains { r.err.contains($0) }, "\(moved) \(r.err)")
        let out = try JSONValue(json: Data(r.out.utf8))
        #expect(out["events"] == ["flow_start", "screen_view", "screen_view"])
    }

    /// Progress written into the state file by hand: a screen the flow does
    /// not have resumes by the policy (said on stderr); an impossible
    /// counter is a corrupt error naming the file and the field; progress
    /// that does not decode is moved aside (said on stderr), run after run
    /// the flow works.
    @Test func hostileProgressInTheStateFile() async throws {
        let hash = try FlowDefinition(json: Data(contentsOf: URL(fileURLWithPath: Self.flow))).contentHash
        func progress(screen: String, seq: String) -> String {
            #"{"backStack": ["screen_welcome"], "contentHash": "\#(hash)", "data": {}, "eventSeq": \#(seq), "#
                + #""flowId": "onboarding", "flowVersion": "1", "screen": \#(screen), "status": "in_progress", "updatedAt": 0}"#
        }
        func state(with row: String) throws -> String {
            let path = Fixtures.temporaryDirectory().appendingPathComponent("state.sqlite").path
            try FlowJournal(path: path).commit(states: [(Self.key, Data(row.utf8))])
            return path
        }
        // A screen the definition does not have.
        let ghost = try await run(try state(with: progress(screen: #""screen_gone""#, seq: "4")), #"["next"]"#)
        #expect(ghost.status == 0, "\(ghost)")
        #expect(ghost.err.contains("warning: saved progress") && ghost.err.contains("the saved screen is not in the definition"),
                "\(ghost.err)")
        let g = try JSONValue(json: Data(ghost.out.utf8))
        #expect(g["screens"] == ["screen_welcome", "screen_goal"])
        #expect(g["events"] == ["flow_resume_mismatch", "screen_view", "screen_view"])
        // Counters no run reaches.
        for seq in ["9223372036854775807", "-1"] {
            let path = try state(with: progress(screen: #""screen_goal""#, seq: seq))
            let r = try await run(path)
            #expect(r.status == 1, "\(r)")
            #expect(r.err.hasPrefix("error: corrupt: \(path): ") && r.err.contains("eventSeq \(seq)"), "\(r.err)")
        }
        // Undecodable: a number out of range.
        let path = try state(with: progress(screen: #""screen_goal""#, seq: "1e400"))
        for round in 0..<2 {
            let r = try await run(path, #"["next"]"#)
            #expect(r.status == 0, "round \(round): \(r)")
            if round == 0 {
                #expect(r.err.contains("does not decode") && r.err.contains("moved aside to the key \"\(Self.key)#undecodable-"),
                        "\(r.err)")
            } else {
                #expect(!r.err.contains("warning"), "\(r.err)")
            }
        }
    }

    /// Refused actions in a script are render_error events; the run goes on.
    @Test func refusedActionsDoNotStopAScript() async throws {
        let state = Fixtures.temporaryDirectory().appendingPathComponent("state.sqlite").path
        let r = try await run(state, """
            [{"action": {"type": "open_url", "url": "javascript:alert(1)"}},
             {"action": {"type": "open_url", "url": "intent://x#Intent;end"}},
             {"action": {"type": "set", "key": "n", "expr": "1 / 0"}},
             {"action": "submit"},
             "next"]
            """)
        #expect(r.status == 0, "\(r)")
        let out = try JSONValue(json: Data(r.out.utf8))
        #expect(out["current"] == "screen_goal")
        #expect(out["events"] == ["flow_start", "screen_view", "render_error", "render_error", "render_error", "render_error",
                                  "screen_view"])
        #expect(r.err.contains("link refused: scheme \"javascript\" is never allowed"), "\(r.err)")
        #expect(!r.err.contains("image"), "\(r.err)")
    }

    /// `flow validate` checks open_url links with the link policy, and
    /// refuses a flow over the screen limit at once, naming the limit.
    @Test func validateChecksLinksAndLimits() async throws {
        let dir = Fixtures.temporaryDirectory()
        let links = dir.appendingPathComponent("links.json")
        try Data(#"""
            {"id":"f","version":1,"start":"a","screens":[{"id":"a","blocks":[
              {"type":"cta","primary":{"label":"x","action":{"type":"open_url","url":"javascript:alert(1)"}},
                            "secondary":{"label":"y","action":{"type":"open_url","url":"file:///etc/passwd"}}},
              {"type":"cta","primary":{"label":"z","action":{"type":"open_url","url":"myapp://home"}}}]}]}
            """#.utf8).write(to: links)
        let r = try await sdui(["flow", "validate", links.path])
        #expect(r.status == 1)
        #expect(r.err.contains("$.screens[0].blocks[0].primary.action.url (screen \"a\"): open_url: link refused: scheme \"javascript\""),
                "\(r.err)")
        #expect(r.err.contains("secondary.action.url") && r.err.contains("scheme \"file\""))
        #expect(r.err.contains("scheme \"myapp\" is not allowed"))
        let allowed = try await sdui(["flow", "validate", links.path, "--allow-scheme", "myapp", "--json"])
        let kinds = try JSONValue(json: Data(allowed.out.utf8)).arrayValue?.compactMap { $0["kind"]?.stringValue }
        #expect(kinds == ["bad_url", "bad_url"], "\(allowed)")
        let dangerous = try await sdui(["flow", "validate", links.path, "--allow-scheme", "javascript"])
        #expect(dangerous.status == 1 && dangerous.err.contains("cannot be allowed"), "\(dangerous)")

        let big = dir.appendingPathComponent("big.json")
        let screens = (0...FlowLimits().maxScreens).map { #"{"id":"s\#($0)","blocks":[]}"# }.joined(separator: ",")
        try Data(#"{"id":"big","version":1,"start":"s0","screens":[\#(screens)]}"#.utf8).write(to: big)
        let tooBig = try await sdui(["flow", "validate", big.path])
        #expect(tooBig.status == 1)
        #expect(tooBig.err.contains("error: limit: \(big.path): $.screens: 10001 screens, over the limit of 10000 (FlowLimits.maxScreens)"),
                "\(tooBig.err)")
    }
}
#endif
