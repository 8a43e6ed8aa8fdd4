// StringReferenceRenderTests.swift - screens in a locale: "@string.key" and
// {"$string": …} props resolved from the catalogs (arguments bound, the
// plural form by count), missing keys shown and reported, a change of the
// bound count re-resolving the text, the direction on the root, and the
// HTML preview's lang and dir.
import Foundation
@testable import SDUI
import SDUICore
import SDUITestSupport
import Testing

@Suite struct StringReferenceRenderTests: ResolverFixtures {
    static let catalogs: [String: Data] = [
        "en": Data(#"{"title":"Cart","items":{"one":"{count} item","other":"{count} items"},"hello":"Hi {name}"}"#.utf8),
        "de": Data(#"{"title":"Warenkorb","items":{"one":"{count} Artikel","other":"{count} Artikel"}}"#.utf8),
        "ar": Data(#"{"title":"السلة","items":{"zero":"لا شيء","one":"عنصر واحد","two":"عنصران","few":"{count} عناصر","many":"{count} عنصرًا","other":"{count} عنصر"}}"#.utf8),
    ]

    static let cart = """
    {"id":"cart","version":1,"primitive":"Column","primitiveVersion":3,"props":{"padding":{"leading":8,"trailing":24},"children":[
      {"primitive":"Text","primitiveVersion":4,"props":{"text":"@string.title"}},
      {"primitive":"Text","primitiveVersion":4,"props":{"text":{"$string":"items","count":"{{cart.count}}"}}},
      {"primitive":"Text","primitiveVersion":4,"props":{"text":{"$string":"hello","name":"{{user}}"}}},
      {"primitive":"Text","primitiveVersion":4,"props":{"text":"@string.nowhere"}},
      {"primitive":"Text","primitiveVersion":4,"props":{"text":"@string. not a key"}}]}}
    """

    func render(_ locale: String?, count: Int) throws -> RenderTree {
        var ctx = RenderContext()
        ctx.strings = try StringCatalog(defaultLocale: "en", catalogs: Self.catalogs)
        ctx.locale = locale
        return ScreenResolver(ctx).resolve(screen("cart", bind: ["cart": ["count": .int(Int64(count))], "user": "Ada"]),
                                           lookups: found(token("cart", Self.cart)))
    }

    func texts(_ tree: RenderTree) -> [String] {
        tree.root.children[0].children.map { $0.props["text"]?.stringValue ?? "-" }
    }

    @Test func textsComeFromTheLocalesChain() throws {
        let en = try render("en-GB", count: 1)
        #expect(texts(en) == ["Cart", "1 item", "Hi Ada", "nowhere", "@string. not a key"])
        let de = try render("de-AT", count: 1234)
        #expect(texts(de) == ["Warenkorb", "1.234 Artikel", "Hi Ada", "nowhere", "@string. not a key"])
        let ar = try render("ar", count: 11)
        #expect(texts(ar)[1] == "11 عنصرًا" || texts(ar)[1].hasSuffix("عنصرًا"), "\(texts(ar))")
        #expect(texts(try render("ar", count: 2))[1] == "عنصران")
        #expect(texts(try render("ar", count: 0))[1] == "لا شيء")
    }

    /// A key no catalog has: the key is shown, with a missing_string issue and event.
    @Test func aMissingKeyIsShownAndReported() throws {
        let tree = try render("de", count: 1)
        let missing = tree.issues.filter { $0.kind == .missingString }
        #expect(missing.count == 1)
        #expect(missing.first?.path == "props.children[3].props.text")
        #expect(tree.events.contains { $0.name == "missing_string" && $0.detail == "nowhere" })
        // Without catalogs every reference is missing.
        let bare = ScreenResolver().resolve(screen("cart", bind: ["cart": ["count": 1]]), lookups: found(token("cart", Self.cart)))
        #expect(bare.issues.filter { $0.kind == .missingString }.count == 4)
    }

    /// The root carries the locale and its direction; the preview sets lang and dir
    /// and writes padding with logical sides, so leading is the right side in Arabic.
    @Test func theDirectionIsOnTheRootAndInThePreview() throws {
        let ar = try render("ar-EG", count: 3)
        #expect(ar.root.props["direction"] == "rtl")
        #expect(ar.root.props["locale"] == "ar-EG")
        let html = HTMLPreview.render(ar)
        #expect(html.contains(#"<html lang="ar-EG" dir="rtl">"#))
        #expect(html.contains("padding-inline:8px 24px"))
        let de = try render("de", count: 3)
        #expect(de.root.props["direction"] == "ltr")
        #expect(HTMLPreview.render(de).contains(#"<html lang="de" dir="ltr">"#))
        #expect(try render(nil, count: 3).root.props["direction"] == nil)
    }

    /// A change of the bound count re-resolves the text (the binding is tracked).
    @Test func aChangeOfTheCountReResolvesTheText() throws {
        let plan = NodePlan(primitive: "Text", version: 4, props: .object(["text": .object(["$string": "items", "count": "{{cart.count}}"])]))
        #expect(plan.binds(try KeyPath("cart.count")))
        #expect(!plan.binds(try KeyPath("user")))
    }

    /// Expressions read the locale: format_number in the app's locale.
    @Test func expressionsReadTheLocale() throws {
        let t = token("n", #"{"id":"n","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"@{format_number(1234.5, locale)}"}}"#)
        var ctx = RenderContext()
        ctx.locale = "de-CH"
        let tree = ScreenResolver(ctx).resolve(screen("n"), lookups: found(t))
        #expect(tree.root.children[0].props["text"]?.stringValue == "1'234.5")
    }
}
