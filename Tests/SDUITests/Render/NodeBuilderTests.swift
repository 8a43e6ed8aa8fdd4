// NodeBuilderTests.swift - nodes built one by one: bindings, prop rules, placeholders, skeletons and binding bounds.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct NodeBuilderTests: ResolverFixtures {
    @Test func wholeValueBindingsMeetPropRules() throws {
        // "{{count}}" bound to 7 stays a number, which a string prop shows as "7";
        // bound to an object, Text.text is broken and the node a placeholder.
        let card = Self.card.replacingOccurrences(of: "{{count}} left", with: "{{count}}")
        let number = ScreenResolver().resolve(screen("card", bind: ["count": 7]), lookups: found(token("card", card)))
        #expect(number.root.children[0].children[1].props["text"] == "7")
        let object = ScreenResolver().resolve(screen("card", bind: ["count": .object(["n": 7])]),
                                              lookups: found(token("card", card)))
        let caption = object.root.children[0].children[1]
        #expect(caption.kind == .placeholder && caption.reason == "prop_rule")
        #expect(caption.primitive == "Text")
        // "{{lines}}" and "{{user.name}}" had no value: removed or emptied, and reported.
        #expect(Set(object.issues.filter { $0.kind == .missingBinding }.map(\.path))
                == ["props.children[1].props.maxLines", "props.children[0].props.text"])
        #expect(object.root.children[0].children[0].props["text"] == "Hi ")
    }

    @Test func unknownPrimitiveIsAPlaceholderWithAnEvent() throws {
        let t = token("mixed", """
        {"id":"mixed","version":1,"primitive":"Column","primitiveVersion":3,"props":{"children":[
          {"primitive":"Text","primitiveVersion":4,"props":{"text":"kept"}},
          {"primitive":"Carousel","primitiveVersion":2,"props":{"children":[{"primitive":"Text","props":{"text":"x"}}]}},
          {"primitive":"Text","primitiveVersion":4,"props":{"text":"also kept"}}]}}
        """)
        var ctx = RenderContext()
        ctx.appVersion = "4.2.0"
        let tree = ScreenResolver(ctx).resolve(screen("mixed"), lookups: found(t))
        let kids = tree.root.children[0].children
        #expect(kids.map(\.kind) == [.primitive, .placeholder, .primitive])
        #expect(kids[1].primitive == "Carousel" && kids[1].version == 2 && kids[1].reason == "unknown_primitive")
        #expect(kids[1].children.isEmpty)
        #expect(tree.events == [RenderEvent(name: "unknown_primitive", token: "mixed", appVersion: "4.2.0", detail: "Carousel@2")])
        #expect(tree.issues.map(\.path) == ["props.children[1]"])
    }

    @Test func incompatibleVersionsNestedAndAtTheRoot() throws {
        let nested = token("n", """
        {"id":"n","version":1,"primitive":"Column","primitiveVersion":3,"props":{"children":[
          {"primitive":"Row","primitiveVersion":2,"props":{"children":[{"primitive":"Text","primitiveVersion":5,"props":{"text":"new"}}]}}]}}
        """)
        let root = token("r", #"{"id":"r","version":1,"primitive":"Column","primitiveVersion":4,"props":{}}"#)
        let tree = ScreenResolver().resolve(screen("n", "r"), lookups: found(nested, root))
        let deep = tree.root.children[0].children[0].children[0]
        #expect(deep.kind == .placeholder && deep.reason == "incompatible_version" && deep.primitive == "Text" && deep.version == 5)
        #expect(tree.root.children[0].kind == .primitive)
        #expect(tree.root.children[1].kind == .placeholder && tree.root.children[1].reason == "incompatible_version")
        #expect(tree.issues.map(\.path) == ["props.children[0].props.children[0]", "root"])
        #expect(tree.events.isEmpty)
        // The same tokens render in full for a client that has the newer versions.
        var ctx = RenderContext()
        ctx.primitives = try PrimitiveMap.builtIn.adding("Text", version: 5).adding("Column", version: 4)
        #expect(ScreenResolver(ctx).resolve(screen("n", "r"), lookups: found(nested, root)).issues.isEmpty)
    }

    @Test func offlineMissesAreSkeletonsAndFailuresPlaceholders() {
        let ok = token("ok", #"{"id":"ok","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"hi"}}"#)
        var lookups = found(ok)
        lookups["away"] = .offline
        lookups["broken"] = .unavailable(SDUIError(.signature, "bad signature", input: "registry"))
        let tree = ScreenResolver().resolve(screen("ok", "away", "broken", "never"), lookups: lookups)
        #expect(tree.root.children.map(\.kind) == [.primitive, .skeleton, .placeholder, .placeholder])
        #expect(tree.root.children.map(\.reason) == [nil, "offline", "unavailable", "unavailable"])
        #expect(tree.root.children[1].token == "away")
        #expect(kinds(tree) == [.offline, .unavailable, .unavailable])
        #expect(tree.issues[1].message.contains("bad signature"))
        #expect(tree.renderedScreen == "s")
    }

    @Test func malformedNodesDegradeOneByOne() {
        // The C core refuses tokens with malformed nodes, so they reach the
        // resolver only from code: here, a block renderer.
        var ctx = RenderContext()
        ctx.blocks.register("odd") { _ in
            .object(["primitive": "Column", "primitiveVersion": 3, "props": .object(["children": .array([
                .object(["props": .object(["text": "no primitive"])]), 42,
                .object(["primitive": "Text", "primitiveVersion": 0, "props": .object(["text": "v0"])]),
                .object(["primitive": "Text", "props": "not an object"]),
                .object(["primitive": "Row", "props": .object(["children": .object(["not": "a list"])])]),
                .object(["primitive": "Text", "props": .object(["text": "fine"])]),
            ])])])
        }
        let tree = ScreenResolver(ctx).resolve(BlockScreen(id: "b", blocks: [.object(["type": "odd"])]))
        let kids = tree.root.children[0].children
        #expect(kids.map(\.kind) == [.placeholder, .placeholder, .placeholder, .placeholder, .primitive, .primitive])
        #expect(kids.prefix(4).allSatisfy { $0.reason == "bad_content" })
        #expect(kids[4].children.isEmpty && kids[5].props["text"] == "fine")
        #expect(kinds(tree) == Array(repeating: .badContent, count: 5))
        #expect(tree.issues.allSatisfy { $0.token == "block[0]" })
    }

    @Test func propRulesRequiredAndOptional() throws {
        let t = token("rules", """
        {"id":"rules","version":1,"primitive":"Column","primitiveVersion":3,"props":{"background":"tomato","children":[
          {"primitive":"Text","props":{"color":"#000"}},
          {"primitive":"AsyncImage","primitiveVersion":2,"props":{"url":"https://cdn.sdui.example.com/a.png","width":-5}},
          {"primitive":"Gauge","props":{"value":"high"}},
          {"primitive":"Gauge","props":{"value":0.5}}]}}
        """)
        var ctx = RenderContext()
        ctx.primitives = try PrimitiveMap.builtIn.adding("Gauge", version: 1, props: ["value": .required(.number)])
        #expect(ctx.primitives.propRules(of: "Gauge") == ["value": .required(.number)])
        let tree = ScreenResolver(ctx).resolve(screen("rules"), lookups: found(t))
        let col = tree.root.children[0]
        #expect(col.kind == .primitive && col.props["background"] == nil)
        #expect(col.children.map(\.kind) == [.placeholder, .primitive, .placeholder, .primitive])
        #expect(col.children[1].props["width"] == nil && col.children[1].props["url"] != nil)
        #expect(col.children[3].props["value"] == 0.5)
        #expect(kinds(tree) == [.propRule, .propRule, .propRule, .propRule])
        #expect(tree.issues.contains { $0.message.contains("Text needs the prop \"text\"") })
        #expect(tree.issues.contains { $0.message.contains("Gauge.value must be number") })
    }

    @Test func inlineStylesSpacingNamesAndBoundNames() throws {
        let t = token("st", """
        {"id":"st","version":1,"primitive":"Column","primitiveVersion":3,"props":{
          "padding":{"horizontal":"md","top":"huge","bottom":"@spacing.nope"},"children":[
          {"primitive":"Text","props":{"text":"a","style":{"size":12}}},
          {"primitive":"Text","props":{"text":"b","style":{"size":-3,"lineHeight":"x","weight":2.5,"family":7}}},
          {"primitive":"Text","props":{"text":"c","style":"{{st}}"}},
          {"primitive":"Column","primitiveVersion":3,"props":{"spacing":"{{gap}}","children":[]}}]}}
        """)
        let tree = ScreenResolver().resolve(screen("st", bind: ["st": "caption", "gap": "lg"]), lookups: found(t))
        let col = tree.root.children[0]
        // One unknown spacing name drops that side only.
        #expect(col.props["padding"] == .object(["horizontal": 16]))
        // A partial inline style is completed; a broken one is dropped.
        #expect(col.children[0].props["style"] == .object(["size": 12, "lineHeight": 15, "weight": 400, "family": "system"]))
        #expect(col.children[1].props["style"] == nil)
        // A bound name in a style or spacing prop is looked up as a name.
        #expect(col.children[2].props["style"] == .object(["size": 12, "lineHeight": 16, "weight": 400, "family": "system"]))
        #expect(col.children[3].props["spacing"] == 24)
        #expect(kinds(tree) == [.unknownThemeReference, .unknownThemeReference, .propRule])
        #expect(tree.issues[0].message.contains("no spacing \"huge\"") || tree.issues[1].message.contains("no spacing \"huge\""))
    }

    @Test func issuesComeInPropNameOrder() throws {
        // Rule checks walk props sorted by name, so the same content gives
        // the same issue list on every run (dictionaries are not ordered).
        let t = token("o", """
        {"id":"o","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"x",
          "style":{"size":0},"maxLines":"many","color":"blue","zIndex":"@color.nope","alpha":"@color.nada"}}
        """)
        let tree = ScreenResolver().resolve(screen("o"), lookups: found(t))
        // Theme references while props resolve, then the rule checks.
        #expect(tree.issues.map(\.path) == ["props.alpha", "props.zIndex", "props.color", "props.maxLines", "props.style"],
                "\(tree.issues)")
    }

    @Test func visibilityThemeReferencesAndBindingsInTrees() {
        let t = token("v", """
        {"id":"v","version":1,"primitive":"Column","primitiveVersion":3,"props":{"children":[
          {"primitive":"Text","props":{"text":"shown","visible":"{{show}}"}},
          {"primitive":"Text","props":{"text":"hidden","visible":"{{hide}}"}},
          {"primitive":"Text","props":{"text":"no flag","visible":"{{missing}}"}},
          {"primitive":"Text","props":{"text":"@handle and user@example.com","color":"@color.nope","style":"@shadow.md"}}]}}
        """)
        let tree = ScreenResolver().resolve(screen("v", bind: ["show": true, "hide": false]), lookups: found(t))
        let kids = tree.root.children[0].children
        #expect(kids.compactMap { $0.props["text"]?.stringValue } == ["shown", "no flag", "@handle and user@example.com"])
        #expect(kids.allSatisfy { $0.props["visible"] == nil })
        // An unknown theme reference drops the prop; "@shadow.md" is no theme group, so it is an unknown typography name.
        #expect(kids[2].props["color"] == nil && kids[2].props["style"] == nil)
        #expect(kinds(tree) == [.missingBinding, .unknownThemeReference, .unknownThemeReference])
    }

    /// Five thousand `{{a}}` bound to a large value: the node degrades to a
    /// placeholder with a `limit` issue, and the rest of the screen renders.
    @Test func bindingExpansionIsBounded() throws {
        let text = String(repeating: "{{a}}", count: 5000)
        let bomb = token("bomb", #"{"id":"bomb","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"\#(text)"}}"#)
        let ok = token("ok", #"{"id":"ok","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"hi {{a}}"}}"#)
        let value = JSONValue.string(String(repeating: "z", count: 30_000))
        let tree = ScreenResolver().resolve(screen("bomb", "ok", bind: ["a": value]), lookups: found(bomb, ok))
        #expect(tree.root.children.map(\.kind) == [.placeholder, .primitive])
        #expect(tree.root.children[0].reason == "limit")
        let issue = try #require(tree.issues.first { $0.kind == .limit })
        #expect(issue.token == "bomb" && issue.path == "root")
        #expect(issue.message.contains("props.text") && issue.message.contains("string"))
        #expect(tree.root.children[1].props["text"] == .string("hi " + String(repeating: "z", count: 30_000)))
        // The encoded tree stays small.
        #expect(try tree.jsonData().count < 200_000)
    }

    /// Many tokens each under the per-node bound still meet the per-tree one,
    /// and whole-value bindings in lists count too.
    @Test func treeAndListBoundsHold() throws {
        var ctx = RenderContext()
        ctx.bindingLimits = BindingLimits(maxStringBytes: 1000, maxNodeBytes: 1500, maxTreeBytes: 2500)
        let t = token("t", #"{"id":"t","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"{{a}}"}}"#)
        let list = token("l", #"{"id":"l","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"x","items":["{{a}}","{{a}}"]}}"#)
        let value = JSONValue.string(String(repeating: "q", count: 798))   // 800 bytes as counted
        let tree = ScreenResolver(ctx).resolve(screen("t", "t", "t", "t", bind: ["a": value]), lookups: found(t))
        #expect(tree.root.children.map(\.kind) == [.primitive, .primitive, .primitive, .placeholder])
        #expect(tree.issues.last?.message.contains("per-tree") == true)
        let listTree = ScreenResolver(ctx).resolve(screen("l", bind: ["a": value]), lookups: found(list))
        #expect(listTree.root.children.map(\.kind) == [.placeholder])
        #expect(listTree.issues.first?.message.contains("per-node") == true)
    }

    /// `@group.name` with a known group is a theme reference; other text
    /// starting with `@` is plain text.
    @Test func themeReferencesHaveAKnownGroupAndAPlainName() {
        for ref in ["@color.primary", "@colors.text_2", "@spacing.md", "@radius.lg", "@typography.bodyMedium",
                    "@animation.quickTransition", "@animations.x"] {
            #expect(NodeBuilder.isThemeReference(ref), "\(ref)")
        }
        for text in ["@handle", "@shadow.md", "@COLOR.primary", "@color.", "@color.a-b", "@color.a.b", "@color.é", "@.x"] {
            #expect(!NodeBuilder.isThemeReference(text), "\(text)")
        }
    }
}
