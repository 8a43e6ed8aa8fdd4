// CommandLineTests.swift - the `sdui` command run as a separate process.
import Foundation
import SDUITestSupport
import Testing

/// Runs the built `sdui` with `args`; returns status, stdout and stderr.
/// The process is waited for on a Dispatch thread, not on Swift's
/// cooperative pool: on 2 cores, blocking both pool threads would stall the
/// in-process servers other suites run meanwhile.
func sdui(_ args: [String]) async throws -> (status: Int32, out: String, err: String) {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try runSDUI(args) })
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

/// Runs `sdui` and blocks until it exits.
private func runSDUI(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
    let p = Process()
    p.executableURL = sduiExecutable()
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

@Suite struct CommandLineTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")

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
        #expect(try await sdui(["pack", "build", examples.appendingPathComponent("tokens").path, "--out", out]).status == 0)
        let fresh = try Data(contentsOf: URL(fileURLWithPath: out))
        let committed = try Data(contentsOf: examples.appendingPathComponent("core-pack.json.gz"))
        #expect(fresh == committed, "Examples/core-pack.json.gz is stale: rebuild it with sdui pack build")
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

    @Test func benchFirstPaintReportsEveryMethod() async throws {
        let pack = examples.appendingPathComponent("core-pack.json.gz").path
        let r = try await sdui(["bench", "first-paint", pack, "--json", "--iterations", "3"])
        #expect(r.status == 0, "\(r.err)")
        let obj = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        for key in ["floor", "sdui", "jansson", "jsondecoder", "jsonserialization"] {
            let ms = obj[key] as? Double
            #expect(ms != nil && ms! > 0, "\(key)")
        }
        #expect(obj["tokens"] as? Int ?? 0 >= 40)
    }
}
