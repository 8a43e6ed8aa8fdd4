// UsageTelemetryTests.swift - usage files in JSON and CSV, and the errors that name their place.
import Foundation
import SDUI
@testable import SDUIRegistryKit
import SDUITestSupport
import Testing

@Suite struct UsageTelemetryTests {
    @Test func usageFilesJSONAndCSV() throws {
        let json = try UsageTelemetry(data: Data(#"{"format":"sdui-usage/1","period":"W1","counts":{"a":3,"b":0}}"#.utf8), source: "u")
        #expect(json == UsageTelemetry(counts: ["a": 3, "b": 0], period: "W1"))
        let csv = try UsageTelemetry(data: Data("# id,count\na, 3\n\nb,0\n".utf8), source: "u.csv")
        #expect(csv.counts == ["a": 3, "b": 0])
        let crlf = try UsageTelemetry(data: Data("promo_banner,18234\r\nteam_list,7\r\n".utf8), source: "u.csv")
        #expect(crlf.counts == ["promo_banner": 18234, "team_list": 7])
        for bad in [#"{"counts":{"a":-1}}"#, #"{"counts":[]}"#, "a,1\na,2", "a;1", "a,x"] {
            #expect(throws: RegistryError.self, "\(bad)") { try UsageTelemetry(data: Data(bad.utf8), source: "u") }
        }
        let example = try UsageTelemetry(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Examples/usage.json"))
        #expect(example.counts.count == 48 && example.period == "2026-W46")
    }

    @Test func errorsNameTheFileAndTheLine() {
        let twice = #expect(throws: RegistryError.self) { try UsageTelemetry(data: Data("# c\na,1\na,2".utf8), source: "u.csv") }
        #expect(twice?.code == .invalid && twice?.subject == "u.csv" && twice?.message == "line 3: a appears twice")
        let shape = #expect(throws: RegistryError.self) { try UsageTelemetry(data: Data("a,1\nb;2".utf8), source: "u.csv") }
        #expect(shape?.message == "line 2: expected token_id,count")
        let negative = #expect(throws: RegistryError.self) { try UsageTelemetry(data: Data(#"{"counts":{"a":1.5}}"#.utf8), source: "u.json") }
        #expect(negative?.message == "counts.a must be an integer ≥ 0")
        let missing = #expect(throws: RegistryError.self) {
            try UsageTelemetry(contentsOf: URL(fileURLWithPath: "/nonexistent/usage.csv"))
        }
        #expect(missing?.code == .notFound && missing?.subject == "/nonexistent/usage.csv")
    }
}

extension UsageTelemetryTests {
    @Test func csvHeadersBOMsAndQuotes() throws {
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data("token_id,count\r\n\"a,b\",3\n\"say \"\"hi\"\"\", 4\n c , 5 \n".utf8)
        #expect(try UsageTelemetry(data: bom, source: "u.csv").counts == ["a,b": 3, "say \"hi\"": 4, "c": 5])
        #expect(try UsageTelemetry(data: Data("ID,Count\nx,1".utf8), source: "u.csv").counts == ["x": 1])
        // A BOM before JSON too.
        #expect(try UsageTelemetry(data: Data([0xEF, 0xBB, 0xBF]) + Data(#"{"counts":{"a":1}}"#.utf8), source: "u").counts == ["a": 1])
        // A header anywhere but first, or any other first row, is a bad line.
        for (text, message) in [("x,1\ntoken_id,count", "line 2: expected token_id,count"),
                                ("name,views\nx,1", "line 1: expected token_id,count"),
                                ("\"open,1", "line 1: a quoted field is not closed"),
                                ("\"a\"b,1", "line 1: text after a closing quote; expected , or the end of the line"),
                                ("a\"b,1", "line 1: a quote inside an unquoted field"),
                                ("a,1,2", "line 1: expected token_id,count")] {
            let e = #expect(throws: RegistryError.self, "\(text)") { try UsageTelemetry(data: Data(text.utf8), source: "u.csv") }
            #expect(e?.message == message && e?.subject == "u.csv", "\(String(describing: e))")
        }
    }
}
