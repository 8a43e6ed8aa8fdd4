// DTCGImportTests.swift - W3C Design Tokens import: types, aliases, dark values, cycles.
import Foundation
@testable import SDUI
import SDUITestSupport
import Testing

@Suite struct DTCGImportTests {
    func theme(_ json: String) throws -> Theme {
        try DTCGImport.theme(json: Data(json.utf8), id: "t", source: "t.tokens.json")
    }

    func error(_ json: String) -> SDUIError? {
        do {
            _ = try theme(json)
            return nil
        } catch {
            return error as? SDUIError
        }
    }

    @Test func exampleFileWithAliasesAndDarkValues() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Examples/themes/brand.tokens.json")
        let t = try Theme(contentsOf: url)
        #expect(t.id == "brand")
        #expect(t.colors["background"]?.light.description == "#FFFFFF")
        #expect(t.colors["background"]?.dark.description == "#0F172A")
        #expect(t.colors["textPrimary"]?.light.description == "#0F172A")
        #expect(t.colors["textSecondary"]?.dark.description == "#CBD5E1")
        #expect(t.colors["primary"]?.dark.description == "#C7D2FE")
        #expect(t.spacing == ["xs": 4, "sm": 8, "md": 16, "lg": 24, "xl": 32])
        #expect(t.radius == ["sm": 4, "md": 4, "lg": 12])
        #expect(t.animations == ["quickTransition": 200, "standardTransition": 300, "slowTransition": 500])
        #expect(t.typography["headingLarge"] == Theme.Typography(size: 28, lineHeight: 34, weight: 700, family: "Inter"))
        #expect(t.typography["bodyMedium"] == Theme.Typography(size: 16, lineHeight: 24, weight: 400, family: "Inter"))
        // Every colour token is a colour, palette entries included.
        #expect(t.colors["indigo700"]?.light.description == "#4338CA")
        #expect(ThemeLint.check(t).filter { $0.severity == .error }.isEmpty)
    }

    @Test func typeIsInheritedAndAliasesChain() throws {
        let t = try theme(#"""
        {"color": {"$type": "color",
                   "base": {"$value": "#102030"},
                   "mid": {"$value": "{color.base}"},
                   "top": {"$value": "{color.mid}", "$description": "two hops"}},
         "spacing": {"md": {"$type": "dimension", "$value": {"value": 1.5, "unit": "rem"}}}}
        """#)
        #expect(t.colors["top"]?.light.description == "#102030")
        #expect(t.colors["mid"]?.dark.description == "#102030")
        #expect(t.spacing["md"] == 24)
    }

    @Test func darkValueMayBeAnAlias() throws {
        let t = try theme(#"""
        {"c": {"$type": "color",
               "black": {"$value": "#000000"}, "white": {"$value": "#FFFFFF"},
               "ink": {"$value": "{c.black}", "$extensions": {"com.sdui": {"dark": "{c.white}"}}},
               "echo": {"$value": "{c.ink}"}}}
        """#)
        #expect(t.colors["ink"] == Theme.ColorPair(light: try RGBColor(hex: "#000000"), dark: try RGBColor(hex: "#FFFFFF")))
        // An alias resolved in dark mode follows the target's dark value.
        #expect(t.colors["echo"]?.dark.description == "#FFFFFF")
    }

    @Test func sharedAliasesResolveOnceAndDeepChainsAreRefused() throws {
        // 40 levels of composites (an unmapped type: alias targets only),
        // each with two members aliasing the next level: followed afresh at
        // every use this is 2^40 steps; resolved once per token it is 80.
        var levels: [String] = []
        for i in 0..<40 {
            levels.append(#""l\#(i)": {"$value": {"a": "{x.l\#(i + 1)}", "b": "{x.l\#(i + 1)}"}}"#)
        }
        levels.append(#""l40": {"$value": {"a": 1}}"#)
        let fan = ##"{"x": {"$type": "shadow", \##(levels.joined(separator: ","))},"##
            + ##" "color": {"$type": "color", "ink": {"$value": "#112233"}}}"##
        let theme = try DTCGImport.theme(json: Data(fan.utf8), id: "fan")
        #expect(theme.colors["ink"]?.light.description == "#112233")

        // A chain longer than maxAliasDepth is an error naming where it starts.
        let n = DTCGImport.maxAliasDepth + 1
        func link(_ i: Int) -> String { ##""a\##(i)": {"$value": "{c.a\##(i + 1)}"}"## }
        let end = ##""a\##(n)": {"$value": "#000000"}"##
        func doc(_ members: [String]) -> String { ##"{"c": {"$type": "color", \##(members.joined(separator: ","))}}"## }
        let e = try #require(error(doc((0..<n).map(link) + [end])))
        #expect(e.message.hasPrefix("c.a0: aliases nest deeper than \(DTCGImport.maxAliasDepth)"), "\(e.message)")
        // One link fewer is fine.
        let shorter = try DTCGImport.theme(json: Data(doc((1..<n).map(link) + [end]).utf8), id: "c")
        #expect(shorter.colors["a1"]?.light.description == "#000000")
    }

    @Test func cyclesAreReportedWithTheirPath() throws {
        let e = try #require(error(#"""
        {"color": {"$type": "color",
                   "a": {"$value": "{color.b}"}, "b": {"$value": "{color.c}"}, "c": {"$value": "{color.a}"}}}
        """#))
        #expect(e.category == .schema)
        #expect(e.input == "t.tokens.json")
        #expect(e.message.contains("alias cycle: color.a → color.b → color.c → color.a"), "\(e.message)")

        let selfLoop = try #require(error(#"{"color": {"$type": "color", "x": {"$value": "{color.x}"}}}"#))
        #expect(selfLoop.message.contains("alias cycle: color.x → color.x"))

        let inDark = try #require(error(#"""
        {"color": {"$type": "color", "p": {"$value": "#000", "$extensions": {"com.sdui": {"dark": "{color.q}"}}},
                   "q": {"$value": "#fff", "$extensions": {"com.sdui": {"dark": "{color.p}"}}}}}
        """#))
        #expect(inDark.message.contains("alias cycle"))
    }

    @Test(arguments: [
        (##"{"color": {"$type": "color", "a": {"$value": "{color.nope}"}}}"##, "color.a", "not a token"),
        (##"{"color": {"a": {"$value": "#fff"}}}"##, "color.a", "no $type"),
        (##"{"color": {"$type": "color", "a": {"$value": "blue"}}}"##, "color.a", "hex"),
        (##"{"spacing": {"$type": "dimension", "md": {"$value": "16vh"}}}"##, "spacing.md", "unit"),
        (##"{"spacing": {"$type": "dimension", "md": {"$value": true}}}"##, "spacing.md", "dimension"),
        (##"{"motion": {"$type": "duration", "q": {"$value": "200"}}}"##, "motion.q", "duration"),
        (##"{"type": {"$type": "typography", "b": {"$value": {"fontWeight": 400}}}}"##, "type.b", "fontSize"),
        (##"{"type": {"$type": "typography", "b": {"$value": {"fontSize": "16px", "fontWeight": "chunky"}}}}"##, "type.b.fontWeight", "weight"),
        (##"{"color": {"$type": "color", "a.b": {"$value": "#fff"}}}"##, "color.a.b", "without '.'"),
        (##"{"": {"$type": "color", "$value": "#fff"}}"##, #""""#, "non-empty"),
        (##"{"color": {"$type": "color", "": {"$value": "#fff"}}}"##, #"color."""#, "non-empty"),
        (##"{"space": {"$type": "dimension", "md": {"$value": "-4px"}}}"##, "space.md", "from 0 to"),
        (##"{"space": {"$type": "dimension", "md": {"$value": {"value": 1e308, "unit": "rem"}}}}"##, "space.md", "from 0 to"),
        (##"{"motion": {"$type": "duration", "q": {"$value": "1e9ms"}}}"##, "motion.q", "duration"),
        (##"{"motion": {"$type": "duration", "q": {"$value": 20000}}}"##, "motion.q", "from 0 to"),
        (##"{"type": {"$type": "typography", "b": {"$value": {"fontSize": {"value": 1e300, "unit": "rem"}}}}}"##, "type.b.fontSize", "from 0 to"),
        (##"{"color": {"$type": 3}}"##, "color", "$type"),
        (##"{"color": 5}"##, "color", "expected a token"),
        (##"[1]"##, "the top level", "object"),
    ])
    func badDocumentsNameTheToken(json: String, path: String, fragment: String) throws {
        let e = try #require(error(json))
        #expect(e.category == .schema)
        #expect(e.message.hasPrefix(path + ":"), "\(e.message)")
        #expect(e.message.contains(fragment), "\(e.message)")
    }

    /// An integer past 2^63 is refused by the core's parser, naming the
    /// input and the place, even in a `$`-member the import skips
    /// (JSONDecoder took it as a double and the import went on).
    @Test func anIntegerPast2To63IsRefused() throws {
        let e = try #require(error(##"{"$version": 99999999999999999999, "c": {"$type": "color", "a": {"$value": "#000000"}}}"##))
        #expect(e.category == .json && e.input == "t.tokens.json" && e.line == 1 && e.offset == 33, "\(e)")
        #expect(e.message.contains("integer"), "\(e)")
        // The same document with a number in range imports.
        #expect(try theme(##"{"$version": 9, "c": {"$type": "color", "a": {"$value": "#000000"}}}"##).colors["a"] != nil)
    }
}
