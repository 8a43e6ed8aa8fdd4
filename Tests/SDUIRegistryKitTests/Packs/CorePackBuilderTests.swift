// CorePackBuilderTests.swift - tokens validated, minified and written one per line, gzipped and read back.
import Foundation
import SDUI
@testable import SDUIRegistryKit
import SDUITestSupport
import Testing

@Suite struct CorePackBuilderTests {
    static let spaced = Data("""
        { "id": "b", "version": 2, "primitive": "Text",
          "primitiveVersion": 1, "props": { "text": "x y" } }
        """.utf8)

    @Test func tokensAreMinifiedAndWrittenOnePerLine() throws {
        var builder = CorePackBuilder()
        let token = try builder.add(json: Self.spaced, source: "b.json")
        #expect(token.id == "b" && token.version == 2)
        try builder.add(json: Data(Fixtures.token("a").utf8), source: "a.json")
        #expect(builder.ids == ["b", "a"])
        let minified = #"{"id":"b","version":2,"primitive":"Text","primitiveVersion":1,"props":{"text":"x y"}}"#
        #expect(builder.tokens.map(\.version) == [2, 1])
        #expect(builder.tokens[0].json == Data(minified.utf8))
        #expect(String(decoding: builder.document(), as: UTF8.self)
                == "{\"formatVersion\":1,\"tokens\":[\n\(minified),\n\(Fixtures.token("a"))\n]}")
        #expect(String(decoding: builder.document(prefix: 1), as: UTF8.self)
                == "{\"formatVersion\":1,\"tokens\":[\n\(minified)\n]}")
        // The built pack opens and holds the same tokens.
        let pack = try CorePack(data: try builder.build(level: 6))
        #expect(pack.ids == ["b", "a"])
        #expect(try pack.token("b")?.json == Data(minified.utf8))
    }

    @Test func aSecondTokenWithAnIdAlreadyAddedIsRefusedNamingBoth() throws {
        var builder = CorePackBuilder()
        try builder.add(json: Data(Fixtures.token("a").utf8), source: "first.json")
        let e = #expect(throws: SDUIError.self) {
            try builder.add(json: Data(Fixtures.token("a", version: 2).utf8), source: "second.json")
        }
        #expect(e?.category == .schema && e?.input == "second.json")
        #expect(e?.message == "duplicate token id \"a\" (also in first.json)")
        #expect(builder.ids == ["a"])
        #expect(throws: SDUIError.self) { try builder.add(json: Data(#"{"id":"x"}"#.utf8), source: "bad.json") }
    }

    @Test func aFolderIsAddedInFileNameOrder() throws {
        let dir = Fixtures.temporaryDirectory()
        for id in ["zeta", "alpha", "mid"] {
            try Data(Fixtures.token(id).utf8).write(to: dir.appendingPathComponent("\(id).json"))
        }
        try Data("not a token".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        var builder = CorePackBuilder()
        try builder.addDirectory(dir)
        #expect(builder.ids == ["alpha", "mid", "zeta"])
        let e = #expect(throws: SDUIError.self) { try builder.addDirectory(dir.appendingPathComponent("missing")) }
        #expect(e?.category == .io)
    }

    /// verify refuses a pack whose token count is not the one written.
    @Test func verifyChecksThePackReadsBack() throws {
        let pack = Fixtures.pack(tokens: Fixtures.tokens(3))
        try CorePackBuilder.verify(pack, tokens: 3, source: "p")
        let e = #expect(throws: SDUIError.self) { try CorePackBuilder.verify(pack, tokens: 4, source: "p") }
        #expect(e?.message == "the pack written holds 3 tokens, not 4")
        let broken = #expect(throws: SDUIError.self) { try CorePackBuilder.verify(Data("nope".utf8), tokens: 0, source: "p") }
        #expect(broken?.message.hasPrefix("the pack written does not open: ") == true)
    }

    /// A large plain pack is several growing gzip members, the first
    /// header giving the total: it opens (scanned while it inflates, with
    /// a low parallel-scan threshold) to the same tokens as one member,
    /// gzip -dc prints the document, and small input stays one member,
    /// byte for byte sdui_gzip_encode's.
    @Test func aLargePlainPackIsSeveralMembersThatOpenAsOne() throws {
        var builder = CorePackBuilder()
        for i in 0..<400 { try builder.add(json: Data(Fixtures.token("t\(i)").utf8), source: "t\(i)") }
        let doc = builder.document()
        let one = try CorePackBuilder.gzip(doc, level: 6, memberBytes: .max)
        let many = try CorePackBuilder.gzip(doc, level: 6, memberBytes: 4096)
        let limits = PackLimits(parallelScanBytes: 1)
        let a = try CorePack(data: one, name: "one", limits: limits)
        let b = try CorePack(data: many, name: "many", limits: limits)
        #expect(a.info.members == 1)
        #expect(b.info.members > 4 && !b.info.seekable && b.info.membersInflated == b.info.members)
        #expect(a.ids == b.ids && a.json == b.json && b.json == doc)
        for id in a.ids { #expect(try a.token(id)?.json == b.token(id)?.json) }
        let file = Fixtures.temporaryDirectory().appendingPathComponent("many.gz")
        try many.write(to: file)
        let zcat = Process()
        zcat.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zcat.arguments = ["gzip", "-dc", file.path]
        let pipe = Pipe()
        zcat.standardOutput = pipe
        try zcat.run()
        let printed = pipe.fileHandleForReading.readDataToEndOfFile()
        zcat.waitUntilExit()
        #expect(zcat.terminationStatus == 0 && printed == doc)
        #expect(try CorePackBuilder.gzip(doc, level: 6) == CorePackBuilder.gzip(doc, level: 6, memberBytes: doc.count))
        #expect(try CorePack(data: CorePackBuilder.gzip(doc, level: 6)).info.members == 1, "under 2 MiB: one member")
    }
}
