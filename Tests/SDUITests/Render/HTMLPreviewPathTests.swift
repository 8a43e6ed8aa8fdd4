// HTMLPreviewPathTests.swift - the preview's annotated form, which the
// playground patches by: every node's element carries its path, and one
// node drawn alone is exactly its element in the whole frame.
import Foundation
import SDUICore
import SDUITestSupport
import Testing
@testable import SDUI

@Suite struct HTMLPreviewPathTests {
    /// The trees checked: the layout and hostile pages of the preview's
    /// tests, and the example checkout screen.
    static func trees() throws -> [RenderTree] {
        let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
        let payload = try ScreenPayload(json: try Data(contentsOf: examples.appendingPathComponent("screens/checkout.json")))
        var lookups: [String: TokenLookup] = [:]
        for id in payload.screenItems.tokenIDs {
            let data = try Data(contentsOf: examples.appendingPathComponent("tokens/\(id).json"))
            lookups[id] = .found(try DesignToken(json: data), .network)
        }
        return [PreviewPages.layoutTree, PreviewPages.hostileTree, ScreenResolver().resolve(payload, lookups: lookups)]
    }

    /// Every node's path, the root's (`[]`) first.
    static func paths(_ node: RenderNode, _ at: [Int] = []) -> [[Int]] {
        [at] + node.children.enumerated().flatMap { paths($0.element, at + [$0.offset]) }
    }

    @Test func eachNodeAloneIsItsElementInTheFrame() throws {
        for tree in try Self.trees() {
            let frame = HTMLPreview.annotatedFrame(tree)
            for path in Self.paths(tree.root) {
                let marker = #" data-path=""# + HTMLPreview.pathText(path) + #"""#
                let hits = frame.components(separatedBy: marker).count - 1
                #expect(hits == 1, "\(tree.screen) \(path): \(hits) elements carry it")
                guard !path.isEmpty else { continue }
                let alone = try #require(HTMLPreview.annotatedNode(in: tree, at: path))
                #expect(alone.contains(marker))
                #expect(frame.contains(alone), "\(tree.screen) \(path): drawn alone it differs from the frame's")
            }
            #expect(HTMLPreview.annotatedNode(in: tree, at: [tree.root.children.count]) == nil)
            #expect(HTMLPreview.annotatedNode(in: tree, at: []) == frame)
        }
    }

    @Test func theAnnotatedFrameIsThePreviewWithPaths() throws {
        for tree in try Self.trees() {
            // Without the paths and the radio groups' names, the same markup.
            let plain = HTMLPreview.render(tree)
            var annotated = HTMLPreview.annotatedFrame(tree)
            annotated = annotated.replacingOccurrences(of: #" data-path="[0-9.]*""#, with: "", options: .regularExpression)
            annotated = annotated.replacingOccurrences(of: #"sdui-choice-p[0-9.]*"#, with: "G", options: .regularExpression)
            let body = plain.replacingOccurrences(of: #"sdui-choice-[0-9]+"#, with: "G", options: .regularExpression)
            #expect(body.contains(annotated), "\(tree.screen)")
        }
    }

    @Test func hostileValuesStayTextInTheAnnotatedForm() throws {
        let frame = HTMLPreview.annotatedFrame(PreviewPages.hostileTree)
        #expect(!frame.contains("<script") && !frame.contains(#"id="pwned"#) && !frame.contains("<img"))
        for path in Self.paths(PreviewPages.hostileTree.root).dropFirst() {
            let alone = try #require(HTMLPreview.annotatedNode(in: PreviewPages.hostileTree, at: path))
            #expect(!alone.contains("<script") && !alone.contains(#"id="pwned"#))
        }
    }
}
