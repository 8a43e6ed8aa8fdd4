// ClientFrontTests.swift - `sdui`, the client front: it runs the client
// commands without `sdui-server`, hands every other command line to the
// `sdui-server` beside it (through symbolic links too), and says clearly
// when that executable is missing.
#if Server
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct ClientFrontTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")

    /// A copy of the front alone in a new folder renders a screen and says
    /// its version; a server command there fails with one line naming the
    /// missing executable (JSON with --json), exit status 1.
    @Test func frontRunsClientCommandsAlone() throws {
        let dir = Fixtures.temporaryDirectory()
        let lonely = dir.appendingPathComponent("sdui")
        try FileManager.default.copyItem(at: sduiExecutable(), to: lonely)
        let screen = examples.appendingPathComponent("screens/checkout.json").path
        let pack = examples.appendingPathComponent("core-pack.json.gz").path
        let r = try runProgram(lonely, ["render", screen, "--pack", pack])
        #expect(r.status == 0, "\(r.err)")
        let tree = try JSONValue(json: Data(r.out.utf8))
        #expect(tree["root"] != nil && tree["screen"] != nil, "\(r.out.prefix(300))")
        let version = try runProgram(lonely, ["--version"])
        let serverVersion = try runProgram(sduiServerExecutable(), ["--version"])
        #expect(version.status == 0 && version.out == serverVersion.out, "\(version) \(serverVersion)")

        let missing = dir.appendingPathComponent("sdui-server").path
        let s = try runProgram(lonely, ["serve", "--port", "0"])
        #expect(s.status == 1, "\(s)")
        #expect(s.err.hasPrefix("error: io: \(missing): `sdui serve` runs in sdui-server"), "\(s.err)")
        #expect(s.err.split(separator: "\n").count == 1, "\(s.err)")
        let j = try runProgram(lonely, ["bench", "store", "--json"])
        #expect(j.status == 1, "\(j)")
        let e = try JSONValue(json: Data(j.err.utf8))
        #expect(e["error"]?["category"] == "io" && e["error"]?["input"]?.stringValue == missing, "\(j.err)")
    }

    /// Help of the whole tree, the server commands and their exit statuses
    /// come from `sdui-server`, identical to running it directly.
    @Test func frontHandsOtherCommandLinesToTheServer() async throws {
        let help = try await sdui(["--help"])
        #expect(help.status == 0)
        let serverHelp = try runProgram(sduiServerExecutable(), ["--help"])
        #expect(help.out == serverHelp.out)
        for name in ["serve", "bench", "registry", "render", "expr", "flow"] {
            #expect(help.out.contains("\n  \(name) "), "\(name) missing from sdui --help")
        }
        let usage = try await sdui(["serve", "--port", "nonsense"])
        #expect(usage.status == 64 && usage.err.contains("--port"), "\(usage)")
        let unknown = try await sdui(["no-such-command"])
        #expect(unknown.status == 64 && unknown.err.contains("no-such-command"), "\(unknown)")
        let serveHelp = try await sdui(["help", "serve"])
        #expect(serveHelp.status == 0 && serveHelp.out.contains("USAGE: sdui serve"), "\(serveHelp)")
    }

    /// Through a symbolic link in another folder, the front still finds the
    /// `sdui-server` beside the file the link points at.
    @Test func frontFollowsSymbolicLinks() throws {
        let dir = Fixtures.temporaryDirectory()
        let link = dir.appendingPathComponent("sdui")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: sduiExecutable())
        let r = try runProgram(link, ["bench", "--help"])
        #expect(r.status == 0 && r.out.contains("USAGE: sdui bench"), "\(r)")
    }
}
#endif
