// ActionPropertyTests.swift - action payloads from mutated JSON: reading,
// validating and running one never crashes; a refusal always names its
// place (the validator's JSON path, the session's render_error).
import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUITestSupport
import Testing

@Suite struct ActionPropertyTests {
    /// One action holding a row of every kind that takes fields.
    static let base: JSONValue = ["type": "sequence", "actions": [
        ["type": "set", "key": "cart.n", "expr": "1 + 1"],
        ["type": "toggle", "key": "prefs.news"],
        ["type": "validate", "keys": ["cart.n", "prefs.news"]],
        ["type": "if", "when": "cart.n > 1", "then": ["type": "track", "event": "big", "properties": ["n": 2]],
         "else": ["type": "open_url", "url": "https://example.com/help"]],
        ["type": "request", "method": "POST", "url": "http://127.0.0.1:9/x", "body": ["a": 1], "into": "answer",
         "timeout": 0.5, "onError": ["type": "navigate", "to": "home"]],
        "back",
    ]]

    /// A flow whose first screen's button runs `action`.
    static func flow(with action: JSONValue) throws -> FlowDefinition {
        let v: JSONValue = ["id": "f", "version": 1, "start": "home", "screens": [
            ["id": "home", "blocks": [["type": "cta", "primary": ["label": "Go", "action": action]]]],
        ]]
        return try FlowDefinition(value: v, source: "property")
    }

    /// Screens for the session: `home`, and any other id refused.
    struct Screens: ScreenProvider {
        func screen(_ id: String) async throws -> ProvidedScreen {
            guard id == "home" else { throw SDUIError(.notFound, "no screen \"\(id)\"", input: id) }
            let blocks = try BlockScreen(value: ["id": "home", "blocks": [["type": "header", "title": "Home"]]])
            return ProvidedScreen(requested: id, items: blocks.screenItems)
        }
    }

    @Test func mutatedActionsNeverCrashAndRefusalsNameTheirPlace() async throws {
        var r = SeededGenerator(state: 0xAC7)
        var parsed = 0, refused = 0
        let session = ScreenSession(provider: Screens(),
                                    configuration: .init(httpClient: HTTPClient(timeout: 1, maxBodyBytes: 1 << 16)))
        _ = try await session.open("home")
        for i in 0..<1500 {
            var v = Self.base
            for _ in 0..<Int.random(in: 1...2, using: &r) { v = DecoderPropertyTests.mutate(v, &r) }
            let issues = FlowValidator().validate(try Self.flow(with: v))
            switch FlowAction.parse(v) {
            case .success:
                parsed += 1
                #expect(!issues.contains { $0.kind == .badAction }, "mutant \(i): \(issues)")
            case .failure(let why):
                refused += 1
                let bad = issues.filter { $0.kind == .badAction }
                #expect(bad.count == 1 && bad[0].path == "$.screens[0].blocks[0].primary.action", "mutant \(i): \(why) \(issues)")
            }
            for issue in issues { #expect(issue.path.hasPrefix("$"), "mutant \(i): \(issue)") }
            // Run it on a screen: it applies, stays, or is refused as a render_error; never a crash.
            if i % 5 == 0 {
                let before = session.issues.count
                let u = try await session.perform(json: v, node: "$/0")
                if case .stayed(let why) = u.step, session.issues.count > before {
                    #expect(session.issues.last?.kind == "render_error" && session.issues.last?.node == "$/0", "mutant \(i): \(why)")
                }
                if session.currentScreen != "home" { _ = try session.back() }
            }
        }
        // Both sides are reached: mutants that still read, and refusals.
        #expect(parsed > 50 && refused > 300, "parsed \(parsed), refused \(refused)")
    }
}
