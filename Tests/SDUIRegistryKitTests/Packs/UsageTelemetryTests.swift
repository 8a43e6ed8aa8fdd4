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
        #expect(example.counts.count == 47 && example.period == "2026-W46")
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
