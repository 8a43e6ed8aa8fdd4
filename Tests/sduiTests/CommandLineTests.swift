// CommandLineTests.swift - the `sdui` command run as a separate process.
#if Server
import Foundation
import SDUI
import SDUITestSupport
import Testing

/// Runs the built `sdui` with `args`; returns status, stdout and stderr.
func sdui(_ args: [String], stdin: Data? = nil) async throws -> (status: Int32, out: String, err: String) {
    try await program(sduiExecutable(), args, stdin: stdin)
}

/// ``runProgram(_:_:stdin:environment:)`` waited for on a Dispatch thread,
/// not on Swift's cooperative pool: on 2 cores, blocking both pool threads
/// would stall the in-process servers other suites run meanwhile.
func program(_ exe: URL, _ args: [String], stdin: Data? = nil,
             environment: [String: String]? = nil) async throws -> (status: Int32, out: String, err: String) {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try runProgram(exe, args, stdin: stdin, environment: environment) })
        }
    }
}

/// The built `sdui` executable: the test bundle sits next to the built products.
func sduiExecutable() -> URL {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let exe = products.appendingPathComponent("sdui")
    if FileManager.default.fileExists(atPath: exe.path) { return exe }
    return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("sdui")
}

/// The built `sdui-server`, beside `sdui`.
func sduiServerExecutable() -> URL {
    sduiExecutable().deletingLastPathComponent().appendingPathComponent("sdui-server")
}

/// The test process ignores SIGPIPE (once): tests write to children that may
/// have exited.
private let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// Runs `exe` with `args` (and `environment` instead of the test's own,
/// when given) and blocks until it exits; status, stdout and stderr.
func runProgram(_ exe: URL, _ args: [String], stdin: Data? = nil,
                environment: [String: String]? = nil) throws -> (status: Int32, out: String, err: String) {
    let p = Process()
    p.executableURL = exe
    p.arguments = args
    if let environment { p.environment = environment }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    let input = Pipe()
    p.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try p.run()
    if let stdin {
        // A child that refuses its input exits before reading it all: the
        // write then fails with EPIPE instead of killing the test process.
        ignoreSIGPIPE
        // Written from another thread: a large input fills the pipe before the child reads it all.
        let writer = input.fileHandleForWriting
        DispatchQueue.global().async {
            try? writer.write(contentsOf: stdin)   // the child may exit before reading it all
            try? writer.close()
        }
    }
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

@Suite struct CommandLineTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")

    @Test func versionPrintsTheOneVersion() async throws {
        let r = try await sdui(["--version"])
        #expect(r.status == 0 && r.out.trimmingCharacters(in: .whitespacesAndNewlines) == SDUIKitVersion.string, "\(r)")
    }

    /// `--out` naming a device (/dev/null) writes into it: the atomic
    /// write of a file must not rename a new file over a device.
    @Test func outputToADeviceWritesIntoIt() async throws {
        let screen = examples.appendingPathComponent("screens/checkout.json").path
        let pack = examples.appendingPathComponent("core-pack.json.gz").path
        let r = try await sdui(["render", screen, "--pack", pack, "--out", "/dev/null"])
        #expect(r.status == 0, "\(r)")
        let type = try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        #expect(type == .typeCharacterSpecial, "/dev/null is now \(String(describing: type))")
    }

    /// `-` is standard output for the pack, and standard input for the
    /// reader: a pipe works, and the report stays off the pipe.
    @Test func aPackGoesThroughAPipe() async throws {
        let exe = sduiExecutable().path
        let tokens = examples.appendingPathComponent("tokens").path
        let sh = Process()
        sh.executableURL = URL(fileURLWithPath: "/bin/sh")
        sh.arguments = ["-c", "'\(exe)' pack build '\(tokens)' --out - 2>/dev/null | '\(exe)' pack inspect - --json"]
        let pipe = Pipe()
        sh.standardOutput = pipe
        try sh.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        sh.waitUntilExit()
        #expect(sh.terminationStatus == 0)
        let obj = try JSONSerialization.jsonObject(with: out) as? [String: Any]
        let count = try FileManager.default.contentsOfDirectory(atPath: tokens).filter { $0.hasSuffix(".json") }.count
        #expect(obj?["tokens"] as? Int == count, "\(String(decoding: out, as: UTF8.self))")
        // The report of a pack written to stdout goes to stderr.
        let r = try await sdui(["pack", "build", tokens, "--out", "-"])
        #expect(r.status == 0 && r.err.contains("wrote the pack to standard output") && !r.out.contains("wrote"))
        // --json and --out - cannot share stdout: a usage error, nothing written.
        let both = try await sdui(["pack", "build", tokens, "--out", "-", "--json"])
        #expect(both.status == 64 && both.err.contains("--json and --out - both use standard output") && both.out.isEmpty)
    }

    /// A read-only command never creates the registry file it was pointed at.
    @Test func readOnlyCommandsCreateNoFiles() async throws {
        let typo = Fixtures.temporaryDirectory().appendingPathComponent("typo.db").path
        let list = try await sdui(["registry", "list", "--db", typo])
        #expect(list.status == 1 && list.err.contains(typo) && list.err.contains("no registry file"), "\(list.err)")
        let pack = try await sdui(["pack", "build", "--db", typo, "--out", typo + ".gz"])
        #expect(pack.status == 1 && pack.err.contains("no registry file"), "\(pack.err)")
        #expect(!FileManager.default.fileExists(atPath: typo) && !FileManager.default.fileExists(atPath: typo + ".gz"))
    }

    /// One key style, camelCase, in every `--json` output.
    @Test func jsonKeysAreCamelCase() async throws {
        let dir = Fixtures.temporaryDirectory()
        let pack = dir.appendingPathComponent("p.gz").path
        let tokens = examples.appendingPathComponent("tokens").path
        let runs: [[String]] = [
            ["pack", "build", tokens, "--out", pack, "--json"],
            ["pack", "inspect", pack, "--json"],
            ["bench", "resolve", "--examples", examples.path, "--rounds", "2", "--json"],
            ["bench", "disk", "--directory", dir.path, "--rounds", "1", "--no-sync", "--json"],
        ]
        func keys(_ v: Any) -> [String] {
            if let o = v as? [String: Any] { return o.keys.map { $0 } + o.values.flatMap(keys) }
            if let a = v as? [Any] { return a.flatMap(keys) }
            return []
        }
        for args in runs {
            let r = try await sdui(args)
            #expect(r.status == 0, "\(args): \(r.err)")
            let value = try JSONSerialization.jsonObject(with: Data(r.out.utf8))
            for key in keys(value) {
                #expect(key.range(of: "^[a-z][A-Za-z0-9]*$", options: .regularExpression) != nil, "\(args): \(key)")
            }
        }
    }

    /// Image URLs must be HTTPS whatever the options; hosts are checked only
    /// against the --cdn-host list given, and the output says which was done.
    @Test func packBuildChecksHostsOnlyWhenGiven() async throws {
        let dir = Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("p.gz").path
        try Data(Fixtures.token("img", primitive: "AsyncImage", props: #"{"url":"https://img.team.example/a.png"}"#).utf8)
            .write(to: dir.appendingPathComponent("img.json"))
        let any = try await sdui(["pack", "build", dir.path, "--out", out])
        #expect(any.status == 0 && any.out.contains("image URLs checked for HTTPS, any host"), "\(any.err)")
        let strict = try await sdui(["pack", "build", dir.path, "--out", out, "--cdn-host", "cdn.sdui.example.com"])
        #expect(strict.status == 1 && strict.err.contains("img"), "\(strict.err)")
        let ours = try await sdui(["pack", "build", dir.path, "--out", out, "--cdn-host", "img.team.example"])
        #expect(ours.status == 0 && ours.out.contains("image URLs checked for HTTPS on img.team.example"))
        try Data(Fixtures.token("img", primitive: "AsyncImage", props: #"{"url":"http://img.team.example/a.png"}"#).utf8)
            .write(to: dir.appendingPathComponent("img.json"))
        #expect(try await sdui(["pack", "build", dir.path, "--out", out]).status == 1)
    }

    /// Usage errors come before anything is read or written, exit 64, and
    /// show the subcommand's own usage.
    @Test func usageErrorsNameTheOptionAndShowTheSubcommand() async throws {
        let dir = Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("p.gz").path
        let tokens = examples.appendingPathComponent("tokens").path
        let cases: [([String], String, String)] = [
            (["registry", "list"], "give --db FILE or --postgres URL", "Usage: sdui registry list"),
            (["registry", "import", tokens], "give --db FILE or --postgres URL", "Usage: sdui registry import"),
            (["pack", "build", "--out", out], "give --db FILE or --postgres URL", "Usage: sdui pack build"),
            (["pack", "build", tokens, "--out", out, "--level", "13"], "--level must be between 0 and 12; got 13", "Usage: sdui pack build"),
            (["pack", "build", tokens, "--out", out, "--budget", "0"], "--budget must be at least 1 byte", "Usage: sdui pack build"),
            (["pack", "build", tokens, "--out", out, "--fallback-screens", "login"], "--fallback-screens needs --fallback-out",
             "Usage: sdui pack build"),
            (["bench", "resolve", "--rounds", "0"], "--rounds must be between 1 and 1000000; got 0", "Usage: sdui bench resolve"),
            (["bench", "first-paint", "--iterations", "0"], "--iterations must be between 1 and 10000", "Usage: sdui bench first-paint"),
            (["registry", "token", "--access-key", out, "--ttl", "7200"], "--ttl must be between 1 and 3600 seconds; got 7200",
             "Usage: sdui registry token"),
            (["demo", "--budget", "0"], "--budget must be between 1 and 1073741824 bytes; got 0", "Usage: sdui demo"),
        ]
        for (args, says, usage) in cases {
            let r = try await sdui(args)
            #expect(r.status == 64 && r.err.contains(says) && r.err.contains(usage), "\(args): \(r.status) \(r.err)")
        }
        #expect(!FileManager.default.fileExists(atPath: out), "nothing is written before the options are checked")
    }

    @Test func buildThenInspectAPack() async throws {
        let out = Fixtures.temporaryDirectory().appendingPathComponent("pack.json.gz").path
        let built = try await sdui(["pack", "build", examples.appendingPathComponent("tokens").path, "--out", out, "--json"])
        #expect(built.status == 0, "\(built.err)")
        let b = try JSONSerialization.jsonObject(with: Data(built.out.utf8)) as! [String: Any]
        let r = try await sdui(["pack", "inspect", out, "--json", "--check-tokens"])
        #expect(r.status == 0, "\(r.err)")
        let obj = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        let files = try FileManager.default.contentsOfDirectory(atPath: examples.appendingPathComponent("tokens").path)
            .filter { $0.hasSuffix(".json") }
        #expect(obj["tokens"] as? Int == files.count)
        #expect(obj["checkedTokens"] as? Int == files.count)
        #expect(obj["compressedBytes"] as? Int == b["compressedBytes"] as? Int)
        #expect(obj["rawBytes"] as? Int == b["rawBytes"] as? Int)
        #expect(obj["members"] as? Int == 1)
        let human = try await sdui(["pack", "inspect", out])
        #expect(human.out.contains("tokens:           \(files.count)"))
    }

    @Test func theCommittedExamplePackMatchesItsSources() async throws {
        let out = Fixtures.temporaryDirectory().appendingPathComponent("p.gz").path
        // The example pack carries the catalogs of these locales (and en, the default).
        #expect(try await sdui(["pack", "build", examples.appendingPathComponent("tokens").path, "--out", out,
                                "--locales", "de-CH,fr,ar,pl,ja", "--strings", examples.appendingPathComponent("strings").path]).status == 0)
        let fresh = try Data(contentsOf: URL(fileURLWithPath: out))
        let committed = try Data(contentsOf: examples.appendingPathComponent("core-pack.json.gz"))
        #expect(fresh == committed, "Examples/core-pack.json.gz is stale: rebuild it with sdui pack build (README, The pack)")
    }

    @Test func badPackExitsOneWithACategorizedFirstLine() async throws {
        let dir = Fixtures.temporaryDirectory()
        let bad = dir.appendingPathComponent("bad.gz")
        try Fixtures.gzip(Data("{\"formatVersion\":1,\n\"tokens\":[{\"id\":\"a\"},]}".utf8)).write(to: bad)
        let r = try await sdui(["pack", "inspect", bad.path])
        #expect(r.status == 1)
        let first = r.err.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("error: json: \(bad.path): line 2, column 22 (byte 41): unexpected character"), "\(first)")
        let notGzip = try await sdui(["pack", "inspect", examples.appendingPathComponent("tokens/promo_banner.json").path])
        #expect(notGzip.status == 1)
        #expect(notGzip.err.hasPrefix("error: gzip: "))
        let missing = try await sdui(["pack", "inspect", dir.appendingPathComponent("nope.gz").path])
        #expect(missing.status == 1 && missing.err.hasPrefix("error: io: "))
    }

    @Test func tokenValidate() async throws {
        let good = try await sdui(["token", "validate", examples.appendingPathComponent("tokens/promo_banner.json").path, "--json"])
        #expect(good.status == 0, "\(good.err)")
        let obj = try JSONSerialization.jsonObject(with: Data(good.out.utf8)) as! [String: Any]
        #expect(obj["valid"] as? Bool == true && obj["id"] as? String == "promo_banner")

        let dir = Fixtures.temporaryDirectory()
        let bad = dir.appendingPathComponent("t.json")
        try Data(#"{"id":"x","version":0,"primitive":"Text","primitiveVersion":1,"props":{}}"#.utf8).write(to: bad)
        let r = try await sdui(["token", "validate", bad.path])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("error: schema: \(bad.path): line 1, column 1 (byte 0): token \"x\": \"version\" must be"), "\(r.err)")
        let json = try await sdui(["token", "validate", bad.path, "--json"])
        let e = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as! [String: Any]
        #expect(e["valid"] as? Bool == false)
        #expect((e["error"] as? [String: Any])?["category"] as? String == "schema")
    }

    @Test func buildRefusesDuplicateIdsAndBadTokens() async throws {
        let dir = Fixtures.temporaryDirectory()
        try Data(Fixtures.token("same").utf8).write(to: dir.appendingPathComponent("a.json"))
        try Data(Fixtures.token("same").utf8).write(to: dir.appendingPathComponent("b.json"))
        let r = try await sdui(["pack", "build", dir.path, "--out", dir.appendingPathComponent("p.gz").path])
        #expect(r.status == 1)
        #expect(r.err.contains("duplicate token id \"same\""))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("p.gz").path))
    }

    /// Every method on both encodings, warm and in fresh processes, on the
    /// first 20 ids in pack order.
    @Test func benchFirstPaintReportsEveryMethod() async throws {
        let pack = examples.appendingPathComponent("core-pack.json.gz")
        let r = try await sdui(["bench", "first-paint", pack.path, "--json", "--iterations", "2", "--launches", "1"])
        #expect(r.status == 0, "\(r.err)")
        let obj = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        let methods: [String: [String]] = [
            "plain": ["libdeflate", "zlib", "sdui", "sduiOneThread", "resolve", "jansson", "simdjson", "simdjsonOndemand"],
            "seekable": ["libdeflate", "zlib", "sdui", "resolve"],
        ]
        let warm = obj["warm"] as? [String: [String: Double]], fresh = obj["fresh"] as? [String: [String: [String: Double]]]
        for (variant, names) in methods {
            #expect(Set(warm?[variant]?.keys.map { $0 } ?? []) == Set(names), "\(variant)")
            for name in names {
                #expect(warm?[variant]?[name] ?? 0 > 0, "\(variant) \(name)")
                let f = fresh?[variant]?[name]
                #expect(f?["ms"] ?? 0 > 0 && f?["minorFaults"] ?? 0 > 0 && f?["peakBytes"] ?? 0 > 0, "\(variant) \(name)")
            }
        }
        #expect(obj["tokens"] as? Int ?? 0 >= 40)
        #expect(obj["firstScreenIds"] as? [String] == Array(try CorePack(contentsOf: pack).ids.prefix(20)))
        #expect(obj["seekableMembers"] as? Int ?? 0 > 1 && obj["screenNodes"] as? Int ?? 0 > 20)
        // The machine: its load before and after, its cores, the open's CPU over its wall time.
        #expect(obj["load1Before"] as? Double ?? -1 >= 0 && obj["load1After"] as? Double ?? -1 >= 0)
        #expect(obj["cores"] as? Int ?? 0 >= 1)
        #expect(obj["plainOpenCPUPerWall"] as? Double ?? 0 > 0 && obj["singleOpenCPUPerWall"] as? Double ?? 0 > 0)
    }

    /// `--threads 1` pins the run, its fresh processes too, to one core: the
    /// report says one core, and the open's CPU time cannot pass its wall time
    /// by more than the clocks' grain.
    @Test func benchFirstPaintOnOneCore() async throws {
        let pack = examples.appendingPathComponent("core-pack.json.gz")
        let r = try await sdui(["bench", "first-paint", pack.path, "--json", "--iterations", "3", "--launches", "1",
                                "--threads", "1"])
        #expect(r.status == 0, "\(r.err)")
        let obj = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        #expect(obj["cores"] as? Int == 1, "\(r.out)")
        #expect(obj["plainOpenCPUPerWall"] as? Double ?? 9 <= 1.05, "\(r.out)")
        let text = try await sdui(["bench", "first-paint", pack.path, "--iterations", "2", "--launches", "0", "--threads", "1"])
        #expect(text.status == 0 && text.out.contains("machine: 1 core(s) usable (--threads 1)")
                && text.out.contains("the split scan's second thread: plain"), "\(text.out)")
    }

    /// Every benchmark's report gives the machine it ran on.
    @Test func benchReportsGiveTheLoad() async throws {
        let dir = Fixtures.temporaryDirectory()
        let r = try await sdui(["bench", "disk", "--directory", dir.path, "--rounds", "1", "--no-sync", "--json"])
        #expect(r.status == 0, "\(r.err)")
        let obj = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Double]
        #expect(obj["load1Before"] ?? -1 >= 0 && obj["load1After"] ?? -1 >= 0 && obj["cores"] ?? 0 >= 1, "\(obj)")
        let text = try await sdui(["bench", "resolve", "--examples", examples.path, "--rounds", "2"])
        #expect(text.status == 0 && text.out.hasPrefix("machine: ") && text.out.contains("1-minute load"), "\(text.out)")
    }

    /// `sdui bench start-up` launches fresh processes and reports the
    /// render's own work beside its wall time.
    @Test func benchStartUpLaunchesFreshProcesses() async throws {
        let r = try await sdui(["bench", "start-up", "--launches", "2", "--examples", examples.path, "--json"])
        #expect(r.status == 0, "\(r.err)")
        let obj = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Double]
        for key in ["true", "version", "serverVersion", "render", "renderWork", "renderParse", "floor", "floorParse",
                    "stackFloor", "stackFloorParse", "binaryBytes", "serverBinaryBytes", "cores"] {
            #expect(obj[key] ?? 0 > 0, "\(key) in \(obj)")
        }
        #expect(obj["render"] ?? 0 > obj["renderWork"] ?? 0, "\(obj)")
        #expect(obj["floor"] ?? 0 > obj["floorParse"] ?? 0, "\(obj)")
        #expect(obj["stackFloor"] ?? 0 > obj["stackFloorParse"] ?? 0, "\(obj)")
    }

    /// Input files are sized before they are read, and errors name the real
    /// cause: a device is not a regular file, a directory is a directory, a
    /// FIFO and standard input are read, with the same bound.
    @Test func inputFilesAreBoundedAndNamed() async throws {
        let dir = Fixtures.temporaryDirectory()
        let token = Data(Fixtures.token("piped").utf8)
        // A sparse 1.5 GB file: refused from its size, without reading it.
        let huge = dir.appendingPathComponent("huge.json")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let h = try FileHandle(forWritingTo: huge)
        try h.truncate(atOffset: 1_500_000_000)
        try h.close()
        for args in [["token", "validate", huge.path], ["render", huge.path], ["theme", "lint", huge.path]] {
            let r = try await sdui(args)
            #expect(r.status == 1, "\(args)")
            #expect(r.err.hasPrefix("error: limit: \(huge.path): file is 1500000000 bytes"), "\(args): \(r.err)")
        }
        let zero = try await sdui(["token", "validate", "/dev/zero"])
        #expect(zero.status == 1 && zero.err.contains("/dev/zero: cannot read: not a regular file"), "\(zero.err)")
        let folder = try await sdui(["render", dir.path])
        #expect(folder.status == 1 && folder.err.contains("cannot read: is a directory"), "\(folder.err)")
        let missing = try await sdui(["theme", "lint", dir.appendingPathComponent("nope.json").path])
        #expect(missing.status == 1 && missing.err.contains("no such file or directory"), "\(missing.err)")

        // A FIFO is read like a file.
        let fifo = dir.appendingPathComponent("token.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        DispatchQueue.global().async {
            if let w = FileHandle(forWritingAtPath: fifo) { w.write(token); try? w.close() }
        }
        let piped = try await sdui(["token", "validate", fifo])
        #expect(piped.status == 0, "\(piped.err)")
        #expect(piped.out.contains("valid token"))

        // Standard input as `-`, with the same bound as a file.
        let stdin = try await sdui(["token", "validate", "-"], stdin: token)
        #expect(stdin.status == 0 && stdin.out.contains("valid token"), "\(stdin.err)")
        let flood = try await sdui(["token", "validate", "-"], stdin: Data(repeating: 0x20, count: 200_000))
        #expect(flood.status == 1)
        #expect(flood.err.hasPrefix("error: limit: standard input: input is over the limit of 32768 bytes"), "\(flood.err)")
    }

    /// `pack inspect --check-tokens` reports every bad token, not the first.
    @Test func checkTokensReportsEveryBadToken() async throws {
        let dir = Fixtures.temporaryDirectory()
        let path = dir.appendingPathComponent("bad.json.gz").path
        let bad1 = #"{"id":"bad_one","version":1,"primitive":"Text","primitiveVersion":"x","props":{}}"#
        let bad2 = #"{"id":"bad_two","version":-4,"primitive":"Text","primitiveVersion":1,"props":{}}"#
        try Fixtures.pack(tokens: [Fixtures.token("good"), bad1, bad2]).write(to: URL(fileURLWithPath: path))
        let r = try await sdui(["pack", "inspect", path, "--check-tokens"])
        #expect(r.status == 1)
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 2, "\(r.err)")
        #expect(lines.first?.contains("bad_one") == true && lines.last?.contains("bad_two") == true, "\(r.err)")
        #expect(r.out.contains("2 invalid"))
        let j = try await sdui(["pack", "inspect", path, "--check-tokens", "--json"])
        #expect(j.status == 1)
        let obj = try JSONSerialization.jsonObject(with: Data(j.out.utf8)) as! [String: Any]
        #expect((obj["badTokens"] as? [[String: Any]])?.count == 2)
    }

    /// A build that selects no token fails with the reason, and writes nothing.
    @Test func buildThatSelectsNothingFails() async throws {
        let dir = Fixtures.temporaryDirectory()
        try Data(Fixtures.token("only").utf8).write(to: dir.appendingPathComponent("only.json"))
        let out = dir.appendingPathComponent("p.gz").path
        let r = try await sdui(["pack", "build", dir.path, "--out", out, "--budget", "60"])
        #expect(r.status == 1)
        #expect(r.err.contains("no token fits the 60-byte budget"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// One definition of depth from token to pack: a token nested as deep as
    /// the limit allows validates, packs, and opens inside the pack.
    @Test func aTokenAtTheDepthLimitSurvivesThePack() async throws {
        let dir = Fixtures.temporaryDirectory()
        // The token object is level 1 and props level 2; 126 nested arrays make 128.
        let nested = String(repeating: "[", count: 126) + String(repeating: "]", count: 126)
        let deep = #"{"id":"deep","version":1,"primitive":"Text","primitiveVersion":1,"props":{"x":\#(nested)}}"#
        let file = dir.appendingPathComponent("deep.json")
        try Data(deep.utf8).write(to: file)
        let v = try await sdui(["token", "validate", file.path])
        #expect(v.status == 0, "\(v.err)")
        let out = dir.appendingPathComponent("p.gz").path
        let b = try await sdui(["pack", "build", dir.path, "--out", out])
        #expect(b.status == 0, "\(b.err)")
        let i = try await sdui(["pack", "inspect", out, "--check-tokens"])
        #expect(i.status == 0, "\(i.err)")
        // One level more is refused alone, so it never reaches a pack.
        let deeper = #"{"id":"deeper","version":1,"primitive":"Text","primitiveVersion":1,"props":{"x":[\#(nested)]}}"#
        try Data(deeper.utf8).write(to: file)
        let w = try await sdui(["token", "validate", file.path])
        #expect(w.status == 1 && w.err.contains("limit"), "\(w.err)")
    }

    /// `registry list` widens its columns: long ids and version lists are
    /// printed whole, not cut at a fixed width.
    @Test func registryListPrintsWholeIdsAndVersions() async throws {
        let dir = Fixtures.temporaryDirectory()
        let tokens = dir.appendingPathComponent("tokens")
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true)
        let id = "a_rather_long_token_id_of_forty_chars_xx"
        for v in 1...12 {
            try Data(Fixtures.token(id, version: v).utf8).write(to: tokens.appendingPathComponent("t\(v).json"))
        }
        let db = dir.appendingPathComponent("r.db").path
        let imported = try await sdui(["registry", "import", tokens.path, "--db", db])
        #expect(imported.status == 0, "\(imported.err)")
        let list = try await sdui(["registry", "list", "--db", db])
        #expect(list.status == 0, "\(list.err)")
        let row = list.out.split(separator: "\n").first { $0.hasPrefix(id) }
        #expect(row?.contains("12,11,10,9,8,7,6,5,4,3,2,1") == true, "\(list.out)")
    }
}
#endif
