// SeekablePackWriterTests.swift - seekable packs: standard gzip, the plain pack's JSON, every token, the budget.
import Foundation
import SDUI
@testable import SDUIRegistryKit
import SDUITestSupport
import Testing

@Suite struct SeekablePackWriterTests {
    static let candidates = PackFixtures.candidates
    /// Small members, so 60 small tokens make several.
    static let writer = SeekablePackWriter(memberBytes: 2048, maxMemberBytes: 4096)

    /// Usage that ranks the candidates in reverse: the pack order is not the id order.
    static let usage = UsageTelemetry(counts: Dictionary(uniqueKeysWithValues: (0..<60).map { ("t\($0)", $0) }))

    /// The plain build and the seekable build of the same candidates.
    static func builds() throws -> (plain: CorePackBuild, seekable: CorePackBuild) {
        let plain = try CorePackPlanner().build(candidates, usage: usage)
        var planner = CorePackPlanner()
        planner.seekable = writer
        return (plain, try planner.build(candidates, usage: usage))
    }

    /// Runs `tool` with `args`, `input` written to a file whose path is the
    /// last argument; returns its standard output and status.
    static func run(_ tool: String, _ args: [String], file input: Data) throws -> (out: Data, status: Int32, err: String) {
        let path = Fixtures.temporaryDirectory().appendingPathComponent("pack.gz")
        try input.write(to: path)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args + [path.path]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read both before waiting: a full pipe would block the child.
        let errReader = DispatchQueue(label: "stderr")
        nonisolated(unsafe) var errData = Data()
        errReader.async { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        errReader.sync {}
        return (data, p.terminationStatus, String(decoding: errData, as: UTF8.self))
    }

    @Test func gzipPrintsThePlainPacksJSONByteForByte() throws {
        let (plain, seekable) = try Self.builds()
        let json = try CorePack(data: plain.pack).json
        let r = try Self.run("gzip", ["-dc"], file: seekable.pack)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == json)
        #expect(try CorePack(data: seekable.pack).info.members > 2)
    }

    @Test func pythonsGzipModuleReadsIt() throws {
        let (plain, seekable) = try Self.builds()
        let json = try CorePack(data: plain.pack).json
        let script = "import gzip, sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())"
        let r = try Self.run("python3", ["-c", script], file: seekable.pack)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == json)
    }

    @Test func corePackOpensItAndGetsEveryTokenInRankOrder() throws {
        let (plain, seekable) = try Self.builds()
        let p = try CorePack(data: plain.pack), s = try CorePack(data: seekable.pack)
        // Usage ranks t59 first: the document is in rank order, as the
        // manifest.  (A seekable pack lists its ids member by member from
        // the tables, so `ids` is compared as a set.)
        #expect(p.ids == seekable.manifest.tokens.map(\.id) && p.ids.first == "t59")
        #expect(try Self.run("gzip", ["-dc"], file: seekable.pack).out == p.json)
        #expect(Set(s.ids) == Set(p.ids) && s.count == 60)
        for id in p.ids {
            let a = try p.token(id), b = try s.token(id)
            #expect(a != nil && b?.json == a?.json, "\(id)")
        }
        #expect(try s.token("absent") == nil)
    }

    @Test func theBudgetIsMeasuredOnTheSeekableFileWritten() throws {
        var planner = CorePackPlanner()
        planner.seekable = Self.writer
        let all = try planner.build(Self.candidates, usage: Self.usage)
        planner.budgetBytes = all.pack.count * 2 / 3
        let cut = try planner.build(Self.candidates, usage: Self.usage)
        let n = cut.manifest.tokens.count
        #expect(n > 0 && n < 60)
        #expect(cut.pack.count <= planner.budgetBytes && cut.manifest.packBytes == cut.pack.count)
        // The seekable encoding of one more token would not fit.
        var builder = CorePackBuilder()
        for c in Self.candidates.sorted(by: { Self.usage.counts[$0.id]! > Self.usage.counts[$1.id]! }).prefix(n + 1) {
            try builder.add(json: c.json, source: c.id)
        }
        #expect(try Self.writer.write(builder.document()).count > planner.budgetBytes)
        // The pack written is what the planner measured, and it opens.
        let opened = try CorePack(data: cut.pack)
        #expect(Set(opened.ids) == Set(cut.manifest.tokens.map(\.id)) && opened.count == n)
    }

    @Test func aDocumentThatIsNotAPackIsRefusedNamingTheSource() throws {
        let e = #expect(throws: SDUIError.self) {
            try SeekablePackWriter().write(Data(#"{"formatVersion":1,"tokens":[{"id":"a"},"#.utf8), source: "broken.json")
        }
        #expect(e?.category == .json && e?.input == "broken.json", "\(String(describing: e))")
        let level = #expect(throws: SDUIError.self) {
            try SeekablePackWriter(level: 13).write(Data(Fixtures.document(tokens: [Fixtures.token("a")]).utf8))
        }
        #expect(level?.category == .argument)
    }
}
