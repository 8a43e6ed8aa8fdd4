// RenderIssueTests.swift - how an issue reads, and its stable codes.
import Foundation
import SDUI
import Testing

@Suite struct RenderIssueTests {
    @Test func descriptionNamesKindTokenAndPath() {
        let issue = RenderIssue(.missingBinding, token: "card", path: "props.text", "no value for {{name}}")
        #expect(issue.description == "missing_binding: card props.text: no value for {{name}}")
        #expect(RenderIssue(.offline, token: nil, path: "root", "not cached").description == "offline: root: not cached")
    }

    /// The codes are what placeholders carry as their reason, and what the JSON holds.
    @Test func kindsEncodeAsTheirCodes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(RenderIssue(.unknownThemeReference, token: "t", path: "props.color", "m")),
                          as: UTF8.self)
        #expect(json == #"{"kind":"unknown_theme_reference","message":"m","path":"props.color","token":"t"}"#)
        #expect(RenderIssue.Kind.allCases.count == 15)
        #expect(Set(RenderIssue.Kind.allCases.map(\.rawValue)).count == 15)
        #expect(RenderNode.placeholder(.badContent, token: nil).reason == RenderIssue.Kind.badContent.rawValue)
    }
}
