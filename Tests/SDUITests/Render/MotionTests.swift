// MotionTests.swift - transitions in the render tree: every kind's reduced
// form (a property test: none ever moves or scales), reduceMotion leaving
// only reduced forms, theme timings, and bad transitions named.
import Foundation
@testable import SDUI
import SDUICore
import Testing

@Suite struct MotionTests {
    /// Every kind, edge, duration, easing and spring the reader accepts:
    /// the reduced form never moves or scales and lasts at most 150 ms,
    /// whatever the author wrote (the rule's, or a given one that passed).
    @Test func noReducedFormEverMovesOrScales() throws {
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<5_000 {
            let kind = Motion.Kind.allCases.randomElement(using: &rng)!
            var o: [String: JSONValue] = ["type": .string(kind.rawValue)]
            if kind == .slide, Bool.random(using: &rng) { o["edge"] = .string(Motion.Edge.allCases.randomElement(using: &rng)!.rawValue) }
            if Bool.random(using: &rng) {
                o["spring"] = ["response": .double(Double.random(in: 0.01...5, using: &rng)),
                               "damping": .double(Double.random(in: 0.01...1, using: &rng))]
            } else {
                o["duration"] = .double(Double.random(in: 0...5_000, using: &rng))
                if Bool.random(using: &rng) { o["easing"] = .string(Motion.easings.randomElement(using: &rng)!) }
            }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                let rk = Motion.Kind.allCases.randomElement(using: &rng)!
                o["reduced"] = ["type": .string(rk.rawValue), "duration": .double(Double.random(in: 0...400, using: &rng))]
            }
            guard let m = try? Motion(value: .object(o), at: "t") else { continue }
            // What the tree holds reads back to the same motion.
            let back = try Motion(value: m.jsonValue(), at: "t")
            #expect(back.jsonValue() == m.jsonValue() && back.reduced == m.reduced, "\(o)")
            let r = m.reduced
            #expect(!r.moves && r.milliseconds <= Motion.maxReducedMilliseconds && r.spring == nil, "\(o) → \(r)")
            #expect(r.kind == .fade || r.kind == .none)
            checked += 1
        }
        #expect(checked > 3_000)
    }

    @Test func theRuleForEachKind() throws {
        let slide = try Motion(value: ["type": "slide", "edge": "leading", "duration": 300, "easing": "easeOut"], at: "t")
        #expect(slide.reduced == Motion(kind: .fade, milliseconds: 150, easing: "easeOut"))
        let quickFade = try Motion(value: ["type": "fade", "duration": 100], at: "t")
        #expect(quickFade.reduced.milliseconds == 100 && quickFade.reduced.kind == .fade)
        let spring = try Motion(value: ["type": "scale", "spring": ["response": 0.4, "damping": 0.7]], at: "t")
        #expect(spring.milliseconds == 400 && spring.reduced == Motion(kind: .fade, milliseconds: 150, easing: "easeOut"))
        #expect(try Motion(value: ["type": "none"], at: "t").reduced.kind == Motion.Kind.none)
        let given = try Motion(value: ["type": "slide", "duration": 250, "reduced": ["type": "none"]], at: "t")
        #expect(given.reduced.kind == Motion.Kind.none)
    }

    @Test func badMotionsAreNamedByPath() {
        for (value, says) in [
            (["type": "spin"] as JSONValue, "t.type"),
            (["type": "fade", "edge": "top"], "t.edge: only a slide"),
            (["type": "slide", "edge": "left"], "t.edge"),
            (["type": "fade", "duration": -1], "t.duration"),
            (["type": "fade", "duration": 9_000], "t.duration"),
            (["type": "fade", "easing": "bounce"], "t.easing"),
            (["type": "fade", "spring": ["response": 0.3, "damping": 2]], "t.spring"),
            (["type": "fade", "spring": ["response": 0.3, "damping": 0.5], "duration": 200], "t.spring"),
            (["type": "fade", "reduced": ["type": "slide"]], "t.reduced: a reduced form may not move"),
            (["type": "fade", "reduced": ["type": "fade", "duration": 300]], "t.reduced: a reduced form lasts at most 150"),
            (["type": "fade", "reduced": ["type": "fade", "reduced": ["type": "none"]]], "t.reduced.reduced"),
            (["type": "fade", "wobble": 1], "t.wobble"),
        ] {
            do {
                _ = try Motion(value: value, at: "t")
                Issue.record("\(value) was read")
            } catch let e as SDUIError {
                #expect(e.message.contains(says), "\(value): \(e.message)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// A token's transition resolves with its theme timing and a reduced
    /// form; with reduceMotion the tree holds only the reduced forms; a bad
    /// one is dropped with an issue naming the path.
    @Test func theTreeHoldsMotionsAndOnlyReducedOnesWhenAsked() throws {
        let json = #"""
            {"id":"card","version":1,"primitive":"Text","primitiveVersion":4,
             "props":{"text":"Hi","transition":{"appear":{"type":"slide","edge":"bottom","duration":"@animation.standardTransition"},
                                                "expanded":{"type":"scale","spring":{"response":0.35,"damping":0.8}}}}}
            """#
        let token = try DesignToken(json: Data(json.utf8))
        let screen = ScreenPayload(id: "s", tokens: [.init(id: "card")])
        let full = ScreenResolver().resolve(screen, lookups: ["card": .found(token, .pack)])
        let t = try #require(full.root.children.first?.props["transition"])
        #expect(t["appear"]?["type"] == "slide" && t["appear"]?["duration"]?.doubleValue == 300, "\(t)")
        #expect(t["appear"]?["reduced"]?["type"] == "fade" && t["appear"]?["reduced"]?["duration"]?.doubleValue == 150)
        #expect(t["expanded"]?["spring"]?["response"]?.doubleValue == 0.35)
        var context = RenderContext()
        context.reduceMotion = true
        let reduced = ScreenResolver(context).resolve(screen, lookups: ["card": .found(token, .pack)])
        let r = try #require(reduced.root.children.first?.props["transition"])
        #expect(r["appear"] == ["type": "fade", "duration": 150.0, "easing": "easeInOut"], "\(r)")
        #expect(r["expanded"]?["type"] == "fade" && r["expanded"]?["spring"] == nil && r["appear"]?["reduced"] == nil)

        let bad = try DesignToken(json: Data(#"{"id":"card","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"Hi","transition":{"appear":{"type":"slide","edge":"left"}}}}"#.utf8))
        let tree = ScreenResolver().resolve(screen, lookups: ["card": .found(bad, .pack)])
        #expect(tree.root.children.first?.props["transition"] == nil)
        #expect(tree.root.children.first?.props["text"] == "Hi", "the node is still drawn")
        let issue = try #require(tree.issues.first)
        #expect(issue.path.hasSuffix("props.transition") && issue.message.contains("transition.appear.edge"), "\(issue)")
    }

    /// A block's `transition` goes to the node its renderer draws, checked alike.
    @Test func aBlockDeclaresATransition() throws {
        let screen = try BlockScreen(value: ["id": "b", "blocks": [
            ["type": "header", "title": "Hi", "transition": ["appear": ["type": "slide", "edge": "top", "duration": 200]]],
            ["type": "header", "title": "Bad", "transition": ["appear": ["type": "spin"]]],
        ]])
        let tree = ScreenResolver().resolve(screen)
        let t = try #require(tree.root.children.first?.props["transition"])
        #expect(t["appear"]?["edge"] == "top" && t["appear"]?["reduced"]?["duration"]?.doubleValue == 150, "\(t)")
        #expect(tree.root.children.last?.props["transition"] == nil)
        #expect(tree.issues.contains { $0.message.contains("transition.appear.type") }, "\(tree.issues)")
    }
}
