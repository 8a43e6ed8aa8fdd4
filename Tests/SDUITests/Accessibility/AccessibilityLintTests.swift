// AccessibilityLintTests.swift - each lint rule with a passing and a
// failing case, and the derivation of each primitive's accessibility.
import Foundation
@testable import SDUI
import SDUICore
import Testing

@Suite struct AccessibilityLintTests {
    /// A tree of `children` under a white column.
    func tree(_ children: [RenderNode], background: String = "#FFFFFF") -> RenderTree {
        RenderTree(screen: "s", renderedScreen: "s", theme: "t", themeSource: .sdk, mode: .light,
                   root: RenderNode(primitive: "Column", version: 3, props: ["background": .string(background)],
                                    children: children, token: "root"),
                   issues: [], events: [])
    }

    func node(_ primitive: String, _ props: [String: JSONValue], children: [RenderNode] = []) -> RenderNode {
        RenderNode(primitive: primitive, version: 1, props: props, children: children, token: "root")
    }

    func rules(_ t: RenderTree, platform: AccessibilityPlatform = .ios) -> [String] {
        AccessibilityLint(platform: platform).findings(in: t).map(\.rule)
    }

    static let body: JSONValue = ["size": 16, "weight": 400, "lineHeight": 24]
    static let tap: JSONValue = ["type": "navigate", "to": "next"]

    @Test func eachPrimitiveHasARoleAndALabelFromItsRow() {
        let cases: [(RenderNode, NodeAccessibility.Role, String?)] = [
            (node("Button", ["label": "Pay"]), .button, "Pay"),
            (node("Text", ["text": "Hello"]), .text, "Hello"),
            (node("Text", ["text": "★★★★★", "accessibilityLabel": "5 stars"]), .text, "5 stars"),
            (node("AsyncImage", ["url": "https://x/y.png", "alt": "A cat"]), .image, "A cat"),
            (node("TextField", ["key": "email", "label": "Email"]), .textField, "Email"),
            (node("Slider", ["key": "age", "min": 18, "max": 99, "label": "Age"]), .slider, "Age"),
            (node("Toggle", ["key": "news", "label": "News"]), .toggle, "News"),
            (node("Choice", ["key": "goal", "options": []]), .radioGroup, nil),
            (node("Badge", ["text": "New"]), .status, "New"),
            (node("Text", ["text": "Terms", "action": ["type": "open_url", "url": "https://x"]]), .link, "Terms"),
            (node("Row", ["action": Self.tap], children: [node("Text", ["text": "Anna"]), node("Text", ["text": "Admin"])]),
             .button, "Anna, Admin"),
        ]
        for (n, role, label) in cases {
            let a = n.accessibility
            #expect(a?.role == role, "\(n.primitive) \(n.props)")
            #expect(a?.label == label, "\(n.primitive) \(n.props)")
        }
        #expect(node("Spacer", [:]).accessibility?.hidden == true)
        #expect(node("AsyncImage", ["url": "https://x", "decorative": true]).accessibility?.hidden == true)
        #expect(node("Toggle", ["key": "k", "value": true]).accessibility?.value == "on")
        #expect(node("Slider", ["key": "k", "min": 1, "max": 5, "value": 3]).accessibility?.value == "3")
        #expect(node("Text", ["text": "T", "accessibilityHeading": true]).accessibility?.traits.contains(.header) == true)
        #expect(RenderNode.placeholder(.unknownPrimitive, token: "x").accessibility == nil)
    }

    @Test func labelRule() {
        #expect(rules(tree([node("Button", ["label": "Pay", "height": 48])])) == [])
        #expect(rules(tree([node("Button", ["label": " ", "height": 48])])) == ["label"])
        #expect(rules(tree([node("TextField", ["key": "email"])])) == ["label"])
        #expect(rules(tree([node("TextField", ["key": "email", "label": "Email"])])) == [])
        // A tapped group with nothing readable inside.
        #expect(rules(tree([node("Row", ["action": Self.tap], children: [node("Spacer", [:])])])) == ["label"])
        // Hidden or invisible nodes are not checked.
        #expect(rules(tree([node("TextField", ["key": "k", "accessibilityHidden": true])])) == [])
        #expect(rules(tree([node("TextField", ["key": "k", "visible": false])])) == [])
    }

    @Test func imageAltRule() {
        #expect(rules(tree([node("AsyncImage", ["url": "https://x"])])) == ["image-alt"])
        #expect(rules(tree([node("AsyncImage", ["url": "https://x", "alt": "Logo"])])) == [])
        #expect(rules(tree([node("AsyncImage", ["url": "https://x", "decorative": true])])) == [])
    }

    @Test func touchTargetRuleByPlatform() {
        let small = tree([node("Button", ["label": "Go", "height": 40])])
        #expect(rules(small) == ["touch-target"])
        let fortyFour = tree([node("Button", ["label": "Go", "height": 44])])
        #expect(rules(fortyFour, platform: .ios) == [])
        #expect(rules(fortyFour, platform: .android) == ["touch-target"])
        #expect(rules(tree([node("Button", ["label": "Go", "height": 48])]), platform: .android) == [])
        // A tapped text: 24 pt line, no padding = 24 pt; with 10 pt padding each side = 44.
        #expect(rules(tree([node("Text", ["text": "Edit", "style": Self.body, "action": Self.tap])])) == ["touch-target"])
        #expect(rules(tree([node("Text", ["text": "Edit", "style": Self.body, "action": Self.tap, "padding": 10])])) == [])
        // Not interactive: not a target at all.
        #expect(rules(tree([node("Text", ["text": "Note", "style": Self.body])])) == [])
        let f = AccessibilityLint().findings(in: small)[0]
        #expect(f.wcag == "2.5.5" && f.severity == .error && f.node == "root" && f.token == "root")
        #expect(f.message.contains("40 pt") && f.message.contains("44 × 44"), "\(f.message)")
    }

    @Test func contrastRuleOnTheBackgroundDrawn() {
        // Grey #999999 on white: 2.85:1, under 4.5 and under 3.
        #expect(rules(tree([node("Text", ["text": "x", "color": "#999999", "style": Self.body])])) == ["contrast"])
        #expect(rules(tree([node("Text", ["text": "x", "color": "#595959", "style": Self.body])])) == [])   // 7:1
        // The same grey passes on a dark card drawn behind it (nearest ancestor's background).
        let card = node("Column", ["background": "#000000"], children: [node("Text", ["text": "x", "color": "#999999"])])
        #expect(rules(tree([card])) == [])
        // A sibling's background is not behind a node: only ancestors' are.
        #expect(rules(tree([node("Column", ["background": "#000000"]), node("Text", ["text": "x", "color": "#999999"])]))
                == ["contrast"])
        // Large text needs 3:1: #888888 on white is 3.54:1.
        let large: JSONValue = ["size": 28, "weight": 700]
        #expect(rules(tree([node("Text", ["text": "x", "color": "#888888", "style": large])])) == [])
        #expect(rules(tree([node("Text", ["text": "x", "color": "#888888", "style": Self.body])])) == ["contrast"])
        // A filled button: its label on its own background.
        #expect(rules(tree([node("Button", ["label": "Go", "height": 48, "color": "#FFFFFF", "background": "#FFEB3B"])]))
                == ["contrast"])
        #expect(rules(tree([node("Button", ["label": "Go", "height": 48, "color": "#FFFFFF", "background": "#1F2937"])])) == [])
    }

    @Test func focusOrderRule() {
        let inOrder = tree([node("Button", ["label": "A", "height": 48, "focusOrder": 1]),
                            node("Button", ["label": "B", "height": 48, "focusOrder": 2])])
        #expect(rules(inOrder) == [])
        let jumps = tree([node("Button", ["label": "A", "height": 48, "focusOrder": 2]),
                          node("Button", ["label": "B", "height": 48, "focusOrder": 1])])
        let f = AccessibilityLint().findings(in: jumps)
        #expect(f.map(\.rule) == ["focus-order"] && f[0].severity == .warning && f[0].wcag == "2.4.3")
    }

    /// Durations within 50 ms of a theme timing pass; farther is a
    /// warning; a transition the resolver dropped is a motion error.
    @Test func motionRules() {
        let near = node("Text", ["text": "x", "transition": ["appear": ["type": "fade", "duration": 340]]])
        #expect(rules(tree([near])) == [])
        let far = node("Text", ["text": "x", "transition": ["appear": ["type": "fade", "duration": 420]]])
        let f = AccessibilityLint(timings: [200, 300, 500]).findings(in: tree([far]))
        #expect(f.map(\.rule) == ["motion-timing"] && f[0].severity == .warning, "\(f)")
        #expect(f[0].message.contains("420 ms") && f[0].message.contains("200, 300, 500"), "\(f[0].message)")
        let spring = node("Text", ["text": "x", "transition": ["appear": ["type": "scale", "spring": ["response": 0.9, "damping": 0.5]]]])
        #expect(rules(tree([spring])) == [], "a spring has no duration to match")
        var t = tree([node("Text", ["text": "x"])])
        t.issues = [RenderIssue(.badContent, token: "card", path: "card.props.transition",
                                "transition.appear.reduced: a reduced form may not move or scale; dropped")]
        let m = AccessibilityLint().findings(in: t)
        #expect(m.map(\.rule) == ["motion"] && m[0].wcag == "2.3.3" && m[0].token == "card")
    }
}
