// A11yLayoutTests.swift - `sdui a11y lint --layout`: screens built to clip at
// text scale 3.1 on a 320 px screen are found by headless Chromium, and
// screens built not to clip are not.
#if Server
import Foundation
import SDUITestSupport
import Testing

@Suite struct A11yLayoutTests {
    /// A folder with one screen of `tokens` (id → token JSON).
    func folder(_ tokens: [String: String]) throws -> String {
        let dir = Fixtures.temporaryDirectory()
        for sub in ["screens", "tokens"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let items = tokens.keys.sorted().map { #"{"id":"\#($0)"}"# }.joined(separator: ",")
        try Data(#"{"id":"s","tokens":[\#(items)]}"#.utf8).write(to: dir.appendingPathComponent("screens/s.json"))
        for (id, json) in tokens { try Data(json.utf8).write(to: dir.appendingPathComponent("tokens/\(id).json")) }
        return dir.path
    }

    static func text(_ id: String, _ text: String, _ extra: String = "") -> String {
        #"{"id":"\#(id)","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"\#(text)","style":{"size":16,"lineHeight":22}\#(extra)}}"#
    }

    @Test func textBuiltToClipIsFoundAndTextBuiltToWrapIsNot() async throws {
        let long = "Your subscription renews every month until you cancel it in the settings"
        let clipping = try folder([
            "a_clamped": Self.text("a_clamped", long, #","maxLines":1"#),
            "b_button": #"{"id":"b_button","version":1,"primitive":"Button","primitiveVersion":1,"props":{"label":"\#(long)","height":48}}"#,
        ])
        let r = try await sdui(["a11y", "lint", clipping, "--layout", "--json"])
        #expect(r.status == 1, "\(r.err)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r.out) \(r.err)")
        let found = try #require(o["findings"] as? [[String: Any]]).filter { $0["rule"] as? String == "text-clip" }
        #expect(Set(found.compactMap { $0["token"] as? String }) == ["a_clamped", "b_button"], "\(found)")
        #expect(found.allSatisfy { $0["wcag"] as? String == "1.4.4" && ($0["message"] as? String ?? "").contains("3.1") })

        let wrapping = try folder(["a_free": Self.text("a_free", long), "b_short": Self.text("b_short", "OK")])
        let fine = try await sdui(["a11y", "lint", wrapping, "--layout"])
        #expect(fine.status == 0 && fine.out.contains("0 error(s)"), "\(fine.out) \(fine.err)")
        // Without --layout the clamp is not looked at.
        #expect(try await sdui(["a11y", "lint", clipping]).status == 0)
    }
}
#endif
