// PrimitiveMapTests.swift - the X-Primitives grammar and nested compatibility.
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct PrimitiveMapTests {
    @Test(arguments: [
        ("Column@3,Text@4,AsyncImage@2", "Column@3,Text@4,AsyncImage@2"),
        ("  Column@3 ,\tText@4 ,  AsyncImage@2  ", "Column@3,Text@4,AsyncImage@2"),
        ("Spacer@1", "Spacer@1"),
        ("My_Widget2@999999999", "My_Widget2@999999999"),
        ("a@1,B@2", "a@1,B@2"),
    ])
    func validHeaders(header: String, encoded: String) throws {
        let m = try PrimitiveMap(parsing: header)
        #expect(m.headerValue == encoded)
        #expect(try PrimitiveMap(parsing: m.headerValue) == m)
    }

    @Test(arguments: [
        ("", 0, "empty"),
        ("   ", 3, "empty"),
        ("Column@3,", 9, "trailing"),
        ("Column@3,,Text@4", 9, "name"),
        ("Column", 6, "'@'"),
        ("Column@", 7, "version number"),
        ("Column@0", 7, "1 or more"),
        ("Column@03", 7, "leading zeros"),
        ("Column@-1", 7, "version number"),
        ("Column@1.5", 8, "','"),
        ("Column@3;Text@4", 8, "','"),
        ("Column @3", 6, "'@'"),
        ("3D@1", 0, "letter"),
        ("Col-umn@1", 3, "'@'"),
        ("Colümn@1", 3, "'@'"),
        ("Column@3,Text@4,Column@2", 16, "twice"),
        ("Column@1234567890", 7, "too large"),
    ])
    func invalidHeaders(header: String, offset: Int, fragment: String) {
        let e = expectError(.schema) { _ = try PrimitiveMap(parsing: header) }
        #expect(e?.offset == offset, "\(header): \(e.map(String.init(describing:)) ?? "-")")
        #expect(e?.message.contains(fragment) == true, "\(header): \(e?.message ?? "-")")
        #expect(e?.input == "X-Primitives")
    }

    @Test func oversizedHeadersAndTooManyItems() {
        let long = (0..<800).map { "P\($0)@1" }.joined(separator: ",")
        #expect(long.utf8.count > PrimitiveMap.maxHeaderBytes)
        expectError(.limit) { _ = try PrimitiveMap(parsing: long) }
        let many = (0..<257).map { "P\($0)@1" }.joined(separator: ",")
        #expect(many.utf8.count <= PrimitiveMap.maxHeaderBytes)
        expectError(.schema) { _ = try PrimitiveMap(parsing: many) }
    }

    @Test func builtInsAndAppPrimitives() throws {
        let m = PrimitiveMap.builtIn
        #expect(m.version(of: "Column") == 3 && m.version(of: "Row") == 2 && m.version(of: "Text") == 4)
        #expect(m.version(of: "AsyncImage") == 2 && m.version(of: "Spacer") == 1)
        #expect(m.supports("Text", version: 4) && m.supports("Text", version: 1))
        #expect(!m.supports("Text", version: 5) && !m.supports("Map", version: 1))
        let app = try m.adding("Map", version: 2).adding("Text", version: 5)
        #expect(app.supports("Map", version: 2) && app.supports("Text", version: 5))
        expectError(.argument) { _ = try m.adding("bad name", version: 1) }
        expectError(.argument) { _ = try m.adding("Map", version: 0) }
        expectError(.argument) { _ = try PrimitiveMap([("A", 1), ("A", 2)]) }
    }

    @Test func compatibilityCoversEveryNestedNode() throws {
        let token = try DesignToken(json: """
            {"id":"t","version":1,"primitive":"Column","primitiveVersion":2,"props":{"children":[
              {"primitive":"Text","props":{}},
              {"primitive":"Row","primitiveVersion":2,"props":{"children":[
                {"primitive":"AsyncImage","primitiveVersion":3,"props":{}},
                {"primitive":"Map","props":{}}]}}]}}
            """)
        let client = try PrimitiveMap(parsing: "Column@3,Row@2,Text@4,AsyncImage@2")
        let bad = client.unsupportedNodes(in: token)
        #expect(bad.map(\.path) == ["props.children[1].props.children[0]", "props.children[1].props.children[1]"])
        #expect(bad[0] == .init(path: "props.children[1].props.children[0]", primitive: "AsyncImage",
                                requiredVersion: 3, clientVersion: 2))
        #expect(bad[1].clientVersion == nil && bad[1].requiredVersion == 1)  // default primitiveVersion 1
        #expect(!client.isCompatible(token))
        // The root alone being fine is not enough; with the nested needs met it is.
        let newer = try client.adding("AsyncImage", version: 3).adding("Map", version: 1)
        #expect(newer.isCompatible(token))
        let old = try PrimitiveMap(parsing: "Column@1,Row@2,Text@4,AsyncImage@3,Map@1")
        #expect(old.unsupportedNodes(in: token).map(\.path) == ["root"])
    }

    @Test func everyExampleTokenRendersWithTheBuiltIns() throws {
        let pack = try CorePack(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Examples/core-pack.json.gz"))
        for id in pack.ids {
            let t = try #require(try pack.token(id))
            #expect(PrimitiveMap.builtIn.unsupportedNodes(in: t).isEmpty, "\(id)")
        }
    }
}
