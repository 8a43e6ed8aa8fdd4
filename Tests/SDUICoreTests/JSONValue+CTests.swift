// JSONValue+CTests.swift - JSON text into JSONValue with the C core's parser.
import Foundation
import SDUICore
import Testing

@Suite struct JSONValueCTests {
    @Test func everyValueParses() throws {
        #expect(try JSONValue(json: Data(#"{"a":[1,2.5,"x",true,null],"b":{"c":-7}}"#.utf8))
                == .object(["a": [1, 2.5, "x", true, .null], "b": .object(["c": -7])]))
        #expect(try JSONValue(json: Data(" 3 ".utf8)) == 3)
        #expect(try JSONValue(json: Data(#""caf\u00e9 🏃""#.utf8)) == "café 🏃")
    }

    @Test func aRepeatedNameKeepsTheLastValue() throws {
        #expect(try JSONValue(json: Data(#"{"alg":"HS256","alg":"none"}"#.utf8)) == .object(["alg": "none"]))
    }

    @Test func faultsNameThePlace() {
        for (text, line) in [("{\"a\":\n tru}", 2), ("[1,]", 1), ("", 1)] {
            do {
                _ = try JSONValue(json: Data(text.utf8), source: "answer.json")
                Issue.record("\(text) parsed")
            } catch let e as SDUIError {
                #expect(e.category == .json && e.input == "answer.json" && e.line == line, "\(e)")
            } catch {
                Issue.record("\(error)")
            }
        }
        let deep = Data((String(repeating: "[", count: 40) + String(repeating: "]", count: 40)).utf8)
        #expect(throws: SDUIError.self) { try JSONValue(json: deep, maxDepth: 39) }
        #expect((try? JSONValue(json: deep, maxDepth: 40)) != nil)
    }
}
