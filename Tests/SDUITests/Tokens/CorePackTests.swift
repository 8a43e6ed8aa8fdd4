// CorePackTests.swift - opening packs: gzip handling, document rules, lookups.
import Foundation
import SDUI
import SDUITestSupport
import Testing
import SDUIRegistryKit

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
        // Depth counts from the token, as for a token alone: token { is 1,
        // props { is 2, then the arrays (the pack's root and list do not count).
        let limits = PackLimits(maxDepth: 10)
        let ok = Fixtures.token("d", props: #"{"deep":\#(nested(8))}"#)
        #expect(try CorePack(data: Fixtures.pack(tokens: [ok]), limits: limits).count == 1)
        let tooDeep = Fixtures.token("d", props: #"{"deep":\#(nested(9))}"#)
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

/// The two-thread scan of large packs must give exactly the one-thread answer.
@Suite struct SplitScanTests {
    static let serial = PackLimits(parallelScanBytes: .max)
    static let split = PackLimits(parallelScanBytes: 1)

    /// Opens `doc` both ways and checks ids, or errors, are identical.
    func sameBothWays(_ doc: String, limits: (inout PackLimits) -> Void = { _ in },
                      sourceLocation: SourceLocation = #_sourceLocation) {
        var a = Self.serial, b = Self.split
        limits(&a)
        limits(&b)
        let gz = Fixtures.gzip(Data(doc.utf8))
        func outcome(_ l: PackLimits) -> String {
            do { return "ok " + (try CorePack(data: gz, limits: l).ids.joined(separator: ",")) }
            catch { return "\(error)" }
        }
        #expect(outcome(a) == outcome(b), "\(doc.prefix(120))", sourceLocation: sourceLocation)
    }

    func lines(_ tokens: [String], head: String = #""formatVersion":1,"#, tail: String = "") -> String {
        "{" + head + #""tokens":["# + "\n" + tokens.joined(separator: ",\n") + "\n]" + tail + "}"
    }

    @Test func goodPacksGiveTheSameIds() {
        sameBothWays(lines(Fixtures.tokens(1)))
        sameBothWays(lines(Fixtures.tokens(2)))
        sameBothWays(lines(Fixtures.tokens(301)))
        sameBothWays(lines(Fixtures.tokens(40), head: "", tail: #","formatVersion":1"#))
        sameBothWays(lines(Fixtures.tokens(40), head: #""a":{"x":[1,{"y":2}]},"formatVersion":1,"#,
                           tail: #","z":"\n"#.replacingOccurrences(of: "\n", with: "\\n") + "\""))
    }

    @Test func compactPacksSplitAtATokenBoundaryOrFallBack() {
        func compact(_ tokens: [String]) -> String {
            #"{"formatVersion":1,"tokens":["# + tokens.joined(separator: ",") + "]}"
        }
        sameBothWays(compact(Fixtures.tokens(300)))
        // The pattern inside a string and inside nested arrays past the middle.
        let decoys = (0..<300).map {
            Fixtures.token("d\($0)", props: #"{"s":"},{\"id\":","list":[{"id":1},{"id":2}]}"#)
        }
        sameBothWays(compact(decoys))
        var broken = Fixtures.tokens(300)
        broken[250] = #"{"id":"t250","x":[}"#
        sameBothWays(compact(broken))
    }

    @Test func newlinesThatAreNotTokenBoundariesFallBack() {
        // Pretty-printed props: the newline past the middle is deep inside a token.
        let pretty = (0..<30).map { Fixtures.token("p\($0)", props: "{\n  \"children\": [\n{\"primitive\":\"Text\",\"props\":{}}\n]\n}") }
        sameBothWays(lines(pretty))
        sameBothWays("{\"formatVersion\":1,\"tokens\":[" + pretty.joined(separator: ",") + "]}")
        // A newline before '{' inside an unknown top-level member.
        sameBothWays(lines(Fixtures.tokens(3), tail: ",\"meta\":[\n{\"id\":\"decoy\"}]"))
    }

    @Test func errorsAreTheSameOnEitherSideOfTheSplit() {
        var tokens = Fixtures.tokens(200)
        tokens[20] = #"{"id":"t20","x":[1,,2]}"#          // grammar error in the first half
        sameBothWays(lines(tokens))
        tokens = Fixtures.tokens(200)
        tokens[180] = #"{"id":"t180","x":tru}"#            // grammar error in the second half
        sameBothWays(lines(tokens))
        tokens = Fixtures.tokens(200)
        tokens[190] = #"{"id":"t5"}"#                      // duplicate id across halves
        sameBothWays(lines(tokens))
        tokens = Fixtures.tokens(200)
        tokens[150] = #"{"noid":1}"#
        sameBothWays(lines(tokens))
        tokens = Fixtures.tokens(200)
        tokens[199] = #"{"id":"\#(String(repeating: "é", count: 20_000))"}"#  // over the size limit
        sameBothWays(lines(tokens))
        sameBothWays(lines(Fixtures.tokens(200), head: ""))                             // no formatVersion
        sameBothWays(lines(Fixtures.tokens(200), tail: #","formatVersion":1"#))         // twice
        sameBothWays(lines(Fixtures.tokens(200), tail: #","formatVersion":2"#))
        sameBothWays(lines(Fixtures.tokens(200), tail: #","tokens":[]"#))
        sameBothWays(lines(Fixtures.tokens(200)) + " x")
        sameBothWays(String(lines(Fixtures.tokens(200)).dropLast(2)))                    // truncated
        for max in [1, 99, 100, 101, 150, 199, 200] {
            sameBothWays(lines(Fixtures.tokens(200))) { $0.maxTokens = max }
        }
        sameBothWays(lines(Fixtures.tokens(200))) { $0.maxDepth = 2 }
        sameBothWays(lines(Fixtures.tokens(200))) { $0.maxDepth = 3 }
    }

    @Test func theSplitPathIsTaken() throws {
        // A pack written by the builder, large enough for the default threshold.
        var builder = CorePackBuilder()
        for i in 0..<3_000 {
            try builder.add(json: Data(Fixtures.token("big\(i)", props: #"{"text":"\#(String(repeating: "w", count: 400))"}"#).utf8),
                            source: "t\(i)")
        }
        let gz = try builder.build(level: 1)
        let pack = try CorePack(data: gz)
        #expect(pack.info.rawBytes > 1 << 20)
        #expect(pack.ids == builder.ids)
        #expect(try pack.token("big2999")?.id == "big2999")
    }
}
