// ExprCommandTests.swift - `sdui expr eval|check` as a user runs them.
#if Server
import Foundation
import SDUITestSupport
import Testing

@Suite struct ExprCommandTests {
    @Test func evalPrintsTheValueAsJSON() async throws {
        let dir = Fixtures.temporaryDirectory()
        let data = dir.appendingPathComponent("cart.json")
        try Data(#"{"cart":{"items":[{"price":4},{"price":3.5}],"count":2}}"#.utf8).write(to: data)
        let r = try await sdui(["expr", "eval", "sum(cart.items[*].price)", "--data", data.path])
        #expect(r.status == 0 && r.out == "7.5\n", "\(r)")
        let n = try await sdui(["expr", "eval", "cart.count * 3", "--data", data.path])
        #expect(n.out == "6\n", "an integer prints without a decimal point: \(n)")
        let d = try await sdui(["expr", "eval", "6 / 3"])
        #expect(d.out == "2.0\n", "\(d)")
        let s = try await sdui(["expr", "eval", "{'a': 1} ?? 0"])
        #expect(s.status == 1 && s.err.hasPrefix("error: expr: expr-parse: expression"), "\(s)")
        let fromStdin = try await sdui(["expr", "eval", "[user.name, len(user.name)]", "--data", "-"],
                                       stdin: Data(#"{"user":{"name":"Zoë"}}"#.utf8))
        #expect(fromStdin.out == "[\"Zoë\",3]\n", "\(fromStdin)")
    }

    @Test func evaluationErrorsExitOneWithThePlace() async throws {
        let r = try await sdui(["expr", "eval", "1 + 'a'"])
        #expect(r.status == 1)
        #expect(r.out.isEmpty)
        #expect(r.err.hasPrefix("error: expr: expr-type: expression '1 + 'a'': line 1, column 1 (byte 0): "), "\(r.err)")
        let z = try await sdui(["expr", "eval", "10 % (2 - 2)"])
        #expect(z.status == 1 && z.err.contains("expr-division"), "\(z)")
    }

    @Test func badDataIsAnInputErrorNamingTheFile() async throws {
        let bad = Fixtures.temporaryDirectory().appendingPathComponent("bad.json")
        try Data("{\"a\": [1,}".utf8).write(to: bad)
        let r = try await sdui(["expr", "eval", "a", "--data", bad.path])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("error: json: \(bad.path): line 1, column 10"), "\(r.err)")
        let missing = try await sdui(["expr", "eval", "a", "--data", bad.path + ".none"])
        #expect(missing.status == 1 && missing.err.hasPrefix("error: io: "), "\(missing)")
    }

    @Test func checkListsThePathsItReads() async throws {
        let r = try await sdui(["expr", "check", "cart.total > 0 && answers['first name'] != null || items[*].ok"])
        #expect(r.status == 0)
        #expect(r.out == "cart.total\nanswers['first name']\nitems[*].ok\n", "\(r)")
        let j = try await sdui(["expr", "check", "--json", "a.b + 1"])
        let report = try JSONSerialization.jsonObject(with: Data(j.out.utf8)) as? [String: Any]
        #expect(report?["paths"] as? [String] == ["a.b"])
        let bad = try await sdui(["expr", "check", "a +"])
        #expect(bad.status == 1 && bad.err.hasPrefix("error: expr: expr-parse: expression 'a +': line 1, column 4 (byte 3): "), "\(bad)")
        let long = try await sdui(["expr", "check", String(repeating: "1+", count: 2100) + "1"])
        #expect(long.status == 1 && long.err.hasPrefix("error: expr: limit: "), "\(long)")
    }
}
#endif
