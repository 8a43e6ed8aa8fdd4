// PackCommandTests.swift - `sdui pack build --seekable` run as a user would.
#if Server
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct PackCommandTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")

    /// --seekable writes several members within the budget, says how many
    /// and how many tokens fit, and the file holds the plain pack's JSON
    /// (so its tokens in the same, usage, order).
    @Test func seekableBuildReportsMembersAndKeepsThePlainPacksJSON() async throws {
        let dir = Fixtures.temporaryDirectory()
        let tokens = examples.appendingPathComponent("tokens").path
        let usage = examples.appendingPathComponent("usage.json").path
        let plainOut = dir.appendingPathComponent("plain.gz").path, seekOut = dir.appendingPathComponent("seek.gz").path
        let plain = try await sdui(["pack", "build", tokens, "--usage", usage, "--out", plainOut])
        #expect(plain.status == 0, "\(plain.err)")
        let r = try await sdui(["pack", "build", tokens, "--usage", usage, "--out", seekOut, "--seekable",
                                "--member-bytes", "4096", "--max-member-bytes", "8192"])
        #expect(r.status == 0, "\(r.err)")
        let p = try CorePack(contentsOf: URL(fileURLWithPath: plainOut))
        let s = try CorePack(contentsOf: URL(fileURLWithPath: seekOut))
        #expect(r.out.contains("seekable: \(s.info.members) gzip members; \(p.count) tokens fit the 600000-byte budget"), "\(r.out)")
        #expect(s.info.members > 2)
        #expect(Set(s.ids) == Set(p.ids) && s.count == p.count)
        for id in p.ids { #expect(try s.token(id)?.json == p.token(id)?.json, "\(id)") }
        let zcat = Process()
        zcat.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zcat.arguments = ["gzip", "-dc", seekOut]
        let pipe = Pipe()
        zcat.standardOutput = pipe
        try zcat.run()
        let json = pipe.fileHandleForReading.readDataToEndOfFile()
        zcat.waitUntilExit()
        #expect(zcat.terminationStatus == 0 && json == p.json)
        // inspect says it is seekable and that the open inflated only the
        // first and the last member.
        let inspected = try await sdui(["pack", "inspect", seekOut, "--json"])
        let i = try JSONSerialization.jsonObject(with: Data(inspected.out.utf8)) as? [String: Any]
        #expect(i?["seekable"] as? Bool == true && i?["members"] as? Int == s.info.members, "\(inspected.out)")
        #expect(i?["membersInflated"] as? Int == 2, "\(inspected.out)")
        let human = try await sdui(["pack", "inspect", seekOut])
        #expect(human.out.contains("gzip members:     \(s.info.members) (seekable; 2 inflated by the open)"), "\(human.out)")

        let j = try await sdui(["pack", "build", tokens, "--out", seekOut, "--seekable", "--member-bytes", "4096", "--json"])
        #expect(j.status == 0, "\(j.err)")
        let obj = try JSONSerialization.jsonObject(with: Data(j.out.utf8)) as? [String: Any]
        #expect(obj?["seekable"] as? Bool == true && (obj?["members"] as? Int ?? 0) > 2, "\(j.out)")
        let written = try FileManager.default.attributesOfItem(atPath: seekOut)[.size] as? Int
        #expect(obj?["compressedBytes"] as? Int == written)
    }

    /// A seekable pack's budget is the size of the seekable file: too small
    /// a budget fails the build as it would a plain one.
    @Test func seekableBuildHoldsTheBudget() async throws {
        let dir = Fixtures.temporaryDirectory()
        let tokens = examples.appendingPathComponent("tokens").path
        let out = dir.appendingPathComponent("seek.gz").path
        let r = try await sdui(["pack", "build", tokens, "--out", out, "--seekable", "--budget", "3000", "--json"])
        #expect(r.status == 0, "\(r.err)")
        let obj = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
        let size = try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int ?? .max
        #expect(size <= 3000 && obj?["compressedBytes"] as? Int == size, "\(r.out)")
        let n = obj?["tokens"] as? Int ?? 0
        let opened = try CorePack(contentsOf: URL(fileURLWithPath: out))
        #expect(n > 0 && n < 47 && opened.count == n)
    }

    @Test func seekableOptionsAreChecked() async throws {
        let dir = Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("p.gz").path
        let tokens = examples.appendingPathComponent("tokens").path
        let cases: [([String], String)] = [
            (["--member-bytes", "4096"], "--member-bytes needs --seekable"),
            (["--max-member-bytes", "4096"], "--max-member-bytes needs --seekable"),
            (["--seekable", "--level", "0"], "--level must be between 1 and 12 with --seekable; got 0"),
            (["--seekable", "--member-bytes", "0"], "--member-bytes must be between 1 and 67108864 bytes; got 0"),
        ]
        for (args, says) in cases {
            let r = try await sdui(["pack", "build", tokens, "--out", out] + args)
            #expect(r.status == 64 && r.err.contains(says) && r.err.contains("Usage: sdui pack build"), "\(args): \(r.err)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
#endif
