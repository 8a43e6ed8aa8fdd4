// CorePackTests.swift - opening packs: gzip handling, document rules, lookups.
import Foundation
import SDUI
import SDUITestSupport
import Testing

/// Expects `body` to throw an SDUIError of `category`, and returns it.
@discardableResult
func expectError(_ category: SDUIError.Category, sourceLocation: SourceLocation = #_sourceLocation,
                 _ body: () throws -> Void) -> SDUIError? {
    do {
        try body()
        Issue.record("expected a \(category) error, got success", sourceLocation: sourceLocation)
    } catch let e as SDUIError {
        #expect(e.category == category, "\(e)", sourceLocation: sourceLocation)
        return e
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite struct CorePackTests {
    @Test func opensFromMemoryAndFindsTokens() throws {
        let pack = try CorePack(data: Fixtures.pack(tokens: Fixtures.tokens(50)))
        #expect(pack.count == 50)
        #expect(pack.ids == (0..<50).map { "t\($0)" })
        #expect(pack.contains("t49"))
        #expect(!pack.contains("t50"))
        let t = try #require(try pack.token("t7"))
        #expect(t.id == "t7")
        #expect(t.prop("text") == .string("token number 7"))
        #expect(try pack.token("missing") == nil)
        let info = pack.info
        #expect(info.tokens == 50 && info.members == 1 && info.rawBytes == pack.json.count)
    }

    @Test func opensFromARealFile() throws {
        let dir = Fixtures.temporaryDirectory()
        let url = dir.appendingPathComponent("pack.json.gz")
        let bytes = Fixtures.pack(tokens: Fixtures.tokens(3))
        try bytes.write(to: url)
        let pack = try CorePack(contentsOf: url)
        #expect(pack.count == 3)
        #expect(pack.source == url.path)
        #expect(pack.info.compressedBytes == bytes.count)
    }

    @Test func theExamplePackOpensAndEveryTokenParses() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Examples/core-pack.json.gz")
        let pack = try CorePack(contentsOf: url)
        #expect(pack.count >= 40)
        for id in pack.ids {
            let token = try #require(try pack.token(id))
            #expect(token.id == id)
        }
    }

    @Test func missingFileIsAnIOErrorNamingThePath() {
        let e = expectError(.io) { _ = try CorePack(contentsOf: URL(fileURLWithPath: "/no/such/pack.gz")) }
        #expect(e?.input == "/no/such/pack.gz")
        #expect(e?.message.contains("/no/such/pack.gz") == true)
    }

    // MARK: gzip

    @Test func emptyAndNonGzipInputAreGzipErrors() {
        expectError(.gzip) { _ = try CorePack(data: Data()) }
        let e = expectError(.gzip) { _ = try CorePack(data: Data(#"{"formatVersion":1,"tokens":[]}"#.utf8)) }
        #expect(e?.offset == 0)
    }

    @Test func everyHeaderFlagIsHandled() throws {
        let doc = Data(Fixtures.document(tokens: Fixtures.tokens(2)).utf8)
        let variants = [
            Fixtures.gzip(doc, extra: [0x53, 0x44, 4, 0, 1, 2, 3, 4]),
            Fixtures.gzip(doc, name: "core-pack.json"),
            Fixtures.gzip(doc, comment: "built by a test"),
            Fixtures.gzip(doc, headerCRC: true),
            Fixtures.gzip(doc, extra: [1, 2, 0, 0], name: "n", comment: "c", headerCRC: true),
        ]
        for v in variants {
            #expect(try CorePack(data: v).count == 2)
        }
        let e = expectError(.gzip) { _ = try CorePack(data: Fixtures.gzip(doc, headerCRC: true, corruptHeaderCRC: true)) }
        #expect(e?.message.contains("header CRC") == true)
    }

    @Test func severalMembersReadAsOneStream() throws {
        let doc = Fixtures.document(tokens: Fixtures.tokens(30))
        let bytes = Array(doc.utf8)
        var gz = Data()
        var start = 0
        for cut in [1, 17, 400, bytes.count] {
            gz.append(Fixtures.gzip(Data(bytes[start..<cut])))
            start = cut
        }
        let pack = try CorePack(data: gz)
        #expect(pack.count == 30)
        #expect(pack.info.members == 4)
        #expect(pack.json == Data(bytes))
    }

    @Test func damagedFilesAreRejected() {
        let good = [UInt8](Fixtures.pack(tokens: Fixtures.tokens(5)))
        // Truncated anywhere.
        for cut in stride(from: 1, to: good.count, by: 7) {
            expectError(.gzip) { _ = try CorePack(data: Data(good[0..<cut])) }
        }
        // Bad CRC-32 and bad ISIZE in the trailer.
        var badCRC = good
        badCRC[good.count - 8] ^= 0xff
        let crc = expectError(.gzip) { _ = try CorePack(data: Data(badCRC)) }
        #expect(crc?.message.contains("CRC-32") == true)
        var badSize = good
        badSize[good.count - 1] ^= 0x01
        let size = expectError(.gzip) { _ = try CorePack(data: Data(badSize)) }
        #expect(size?.message.contains("ISIZE") == true)
        // Trailing garbage.
        let trailing = expectError(.gzip) { _ = try CorePack(data: Data(good + [0x00, 0x01, 0x02])) }
        #expect(trailing?.message.contains("trailing garbage") == true)
        #expect(trailing?.offset == good.count)
    }

    @Test func aGigabyteBombStopsAtTheLimit() {
        let bomb = Fixtures.bomb()  // 64 × 16 MiB = 1 GiB of zeros
        #expect(bomb.count < 2 << 20)
        let e = expectError(.limit) { _ = try CorePack(data: bomb) }
        #expect(e?.message.contains("limit") == true)
        let small = PackLimits(maxInflatedBytes: 1 << 20)
        expectError(.limit) { _ = try CorePack(data: bomb, limits: small) }
    }

    @Test func compressedSizeLimit() {
        let gz = Fixtures.pack(tokens: Fixtures.tokens(100))
        expectError(.limit) { _ = try CorePack(data: gz, limits: PackLimits(maxCompressedBytes: gz.count - 1)) }
    }

    // MARK: document rules

    @Test func documentShapeErrors() {
        let cases: [(String, SDUIError.Category, String)] = [
            (#"[1,2]"#, .schema, "JSON object"),
            (#"{"formatVersion":1}"#, .schema, "tokens"),
            (#"{"formatVersion":1,"tokens":{}}"#, .schema, "array"),
            (#"{"tokens":[]}"#, .schema, "formatVersion"),
            (#"{"formatVersion":2,"tokens":[]}"#, .schema, "formatVersion"),
            (#"{"formatVersion":1.0,"tokens":[]}"#, .schema, "formatVersion"),
            (#"{"formatVersion":"1","tokens":[]}"#, .schema, "formatVersion"),
            (#"{"formatVersion":1,"tokens":[1]}"#, .schema, "not a JSON object"),
            (#"{"formatVersion":1,"tokens":[{"version":1}]}"#, .schema, "no string \"id\""),
            (#"{"formatVersion":1,"tokens":[{"id":7}]}"#, .schema, "must be a string"),
            (#"{"formatVersion":1,"tokens":[{"id":""}]}"#, .schema, "empty"),
            (#"{"formatVersion":1,"tokens":[{"id":"a","id":"b"}]}"#, .schema, "duplicate"),
            (#"{"formatVersion":1,"tokens":[],"tokens":[]}"#, .schema, "duplicate"),
            (#"{"formatVersion":1,"tokens":[{"id":"a"},{"id":"a"}]}"#, .schema, "duplicate token id \"a\""),
            (#"{"formatVersion":1,"tokens":[{"id":"a"}] x"#, .json, "expected"),
            (#"{"formatVersion":1,"tokens":[{"id":"a"}]"#, .json, "end of input"),
        ]
        for (doc, category, fragment) in cases {
            let e = expectError(category) { _ = try CorePack(data: Fixtures.gzip(Data(doc.utf8))) }
            #expect(e?.message.contains(fragment) == true, "\(doc): \(e.map(String.init(describing:)) ?? "-")")
        }
    }

    @Test func decoysInUnknownKeysAreIgnored() throws {
        let extra = #""meta":{"tokens":[{"id":"decoy"}],"id":"x"},"list":[{"id":"decoy2"}]"#
        let props = #"{"id":"inner","tokens":[{"id":"deeper"}],"children":[]}"#
        let pack = try CorePack(data: Fixtures.pack(tokens: [Fixtures.token("real", props: props)], extra: extra))
        #expect(pack.ids == ["real"])
        #expect(!pack.contains("decoy") && !pack.contains("inner"))
    }

    @Test func escapedAndUnicodeIds() throws {
        let tokens = [
            #"{"id":"a\u0062","version":1,"primitive":"Text","primitiveVersion":1,"props":{}}"#,
            Fixtures.token("café_zürich"),
            Fixtures.token("登録_🎉"),
            #"{"id":"\ud83c\udf89","version":1,"primitive":"Text","primitiveVersion":1,"props":{}}"#,
        ]
        let pack = try CorePack(data: Fixtures.pack(tokens: tokens))
        #expect(pack.ids == ["ab", "café_zürich", "登録_🎉", "🎉"])
        #expect(try pack.token("ab")?.id == "ab")
        #expect(try pack.token("登録_🎉")?.id == "登録_🎉")
        #expect(try pack.token("🎉")?.id == "🎉")
    }

    @Test func tokenSizeLimitExactlyAtTheBoundary() throws {
        let limit = PackLimits.default.maxTokenBytes
        func token(ofSize n: Int) -> String {
            let base = Fixtures.token("big", props: #"{"text":""}"#)
            let pad = String(repeating: "x", count: n - base.utf8.count)
            return Fixtures.token("big", props: #"{"text":"\#(pad)"}"#)
        }
        let exact = token(ofSize: limit)
        #expect(exact.utf8.count == 32_768)
        let pack = try CorePack(data: Fixtures.pack(tokens: [exact]))
        #expect(try pack.token("big")?.byteCount == 32_768)
        let e = expectError(.limit) { _ = try CorePack(data: Fixtures.pack(tokens: [token(ofSize: limit + 1)])) }
        #expect(e?.message.contains("32769") == true)
        // The same boundary for a standalone token.
        #expect(try DesignToken(json: exact).byteCount == 32_768)
        expectError(.limit) { _ = try DesignToken(json: token(ofSize: limit + 1)) }
    }

    @Test func tokenCountLimit() {
        expectError(.limit) {
            _ = try CorePack(data: Fixtures.pack(tokens: Fixtures.tokens(11)), limits: PackLimits(maxTokens: 10))
        }
    }

    @Test func depthLimit() throws {
        func nested(_ levels: Int) -> String {
            String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
        }
        // Pack depth: root {, tokens [, token {, props {, then the arrays.
        let limits = PackLimits(maxDepth: 10)
        let ok = Fixtures.token("d", props: #"{"deep":\#(nested(6))}"#)
        #expect(try CorePack(data: Fixtures.pack(tokens: [ok]), limits: limits).count == 1)
        let tooDeep = Fixtures.token("d", props: #"{"deep":\#(nested(7))}"#)
        let e = expectError(.limit) { _ = try CorePack(data: Fixtures.pack(tokens: [tooDeep]), limits: limits) }
        #expect(e?.message.contains("nesting") == true)
        #expect(e?.line == 1 && e?.offset != nil)
    }

    @Test func badTokensFailOnlyWhenAskedFor() throws {
        let bad = Fixtures.token("bad", props: #"{"children":[{"primitive":"Text","props":{}},{"props":{}}]}"#)
        let pack = try CorePack(data: Fixtures.pack(tokens: [Fixtures.token("good"), bad]))
        #expect(pack.count == 2)
        #expect(try pack.token("good") != nil)
        let e = expectError(.schema) { _ = try pack.token("bad") }
        #expect(e?.message.contains("token \"bad\"") == true)
        #expect(e?.message.contains("props.children[1]") == true)
        #expect(e?.offset == pack.json.range(of: Data(#"{"id":"bad""#.utf8))?.lowerBound)
    }

    @Test func concurrentLookupsShareOneParsedToken() async throws {
        let pack = try CorePack(data: Fixtures.pack(tokens: Fixtures.tokens(200)))
        let jsons = try await withThrowingTaskGroup(of: [Data].self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try (0..<200).map { try pack.token("t\($0)")!.json }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(jsons.count == 16)
        #expect(Set(jsons.map { $0.hashValue }).count == 1)
    }

    @Test func tokensOutliveTheirPack() throws {
        var pack: CorePack? = try CorePack(data: Fixtures.pack(tokens: Fixtures.tokens(3)))
        let token = try #require(try pack?.token("t1"))
        pack = nil
        #expect(token.prop("text") == .string("token number 1"))
        #expect(String(decoding: token.json, as: UTF8.self).hasPrefix(#"{"id":"t1""#))
    }
}
