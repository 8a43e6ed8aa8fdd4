// StringsCommandTests.swift - `sdui strings check` and `sdui render
// --locale` as an author runs them: the examples' report, a broken catalog
// named, the checkout in German, Swiss German and Arabic (right to left),
// and the pseudo-locale layout pass in headless Chromium.
#if Server
import Foundation
import SDUITestSupport
import Testing

@Suite struct StringsCommandTests {
    let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples").path

    func json(_ out: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
    }

    /// The examples: ja is a partial translation, so its missing keys are
    /// reported (exit 0: missing is progress, not a defect); every other
    /// locale is whole, and no key is unused or undefined.
    @Test func theExamplesReport() async throws {
        let r = try await sdui(["strings", "check", examples, "--json"])
        #expect(r.status == 0, "\(r.err)")
        let o = try json(r.out)
        #expect(o["default"] as? String == "en")
        #expect(o["locales"] as? [String] == ["ar", "de", "de-CH", "en", "fr", "ja", "pl"])
        let findings = try #require(o["findings"] as? [[String: Any]])
        #expect(!findings.isEmpty)
        for f in findings {
            #expect(f["kind"] as? String == "missing", "\(f)")
            #expect(f["locale"] as? String == "ja", "\(f)")
        }
        #expect(Set(findings.compactMap { $0["key"] as? String }).contains("checkout.delivery"))
        let text = try await sdui(["strings", "check", examples])
        #expect(text.out.contains("missing: "))
        #expect(text.out.contains("7 locale(s) (default en)"))
    }

    /// A catalog with an argument mismatch and a plural form Polish needs
    /// but lacks: exit 1, both named; a catalog that does not load is named
    /// with its file and place.
    @Test func defectsAreFoundAndNamed() async throws {
        let dir = Fixtures.temporaryDirectory()
        let strings = dir.appendingPathComponent("strings")
        try FileManager.default.createDirectory(at: strings, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("tokens"), withIntermediateDirectories: true)
        try Data(#"{"id":"t","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":{"$string":"n","count":2},"alt":"@string.greet"}}"#.utf8)
            .write(to: dir.appendingPathComponent("tokens/t.json"))
        try Data(#"{"greet":"Hi {name}","old":"Old","n":{"one":"{count} item","other":"{count} items"}}"#.utf8)
            .write(to: strings.appendingPathComponent("en.json"))
        try Data(#"{"greet":"Cześć {imie}","n":{"one":"{count} rzecz","other":"{count} rzeczy"}}"#.utf8)
            .write(to: strings.appendingPathComponent("pl.json"))
        let r = try await sdui(["strings", "check", dir.path, "--json"])
        #expect(r.status == 1)
        let kinds = try #require(try json(r.out)["findings"] as? [[String: Any]]).map {
            "\($0["kind"] as? String ?? "") \($0["locale"] as? String ?? "-") \($0["key"] as? String ?? "")"
        }
        #expect(kinds.contains("arguments pl greet"))
        #expect(kinds.contains("plural pl n"))
        #expect(kinds.contains("unused - old"))
        #expect(!kinds.contains("unused - greet"))
        try Data(#"{"greet": {"few": "x"}}"#.utf8).write(to: strings.appendingPathComponent("pl.json"))
        let bad = try await sdui(["strings", "check", dir.path])
        #expect(bad.status != 0)
        #expect(bad.err.contains("pl") && bad.err.contains("other"), "\(bad.err)")
    }

    /// The checkout in three locales: texts from the catalogs, the Swiss
    /// override, and Arabic right to left.
    @Test func theCheckoutRendersInThreeLocales() async throws {
        let pack = examples + "/core-pack.json.gz"
        func render(_ locale: String, _ format: String = "json") async throws -> String {
            let r = try await sdui(["render", examples + "/screens/checkout.json", "--pack", pack, "--locale", locale,
                                    "--strings", examples + "/strings", "--format", format])
            #expect(r.status == 0, "\(r.err)")
            #expect(!r.err.contains("missing_string"), "\(r.err)")
            return r.out
        }
        let de = try await render("de")
        #expect(de.contains("Bestellübersicht") && de.contains("3 Artikel von Nordlicht Outfitters"))
        #expect(de.contains("CHF 199.75 bezahlen"))
        let swiss = try await render("de-CH")
        #expect(swiss.contains("CHF 199.75 zahlen") && swiss.contains("Bestellübersicht"))
        let ar = try await render("ar")
        #expect(ar.contains("\"direction\" : \"rtl\""))
        #expect(ar.contains("ملخص الطلب"))
        let html = try await render("ar", "html")
        #expect(html.contains(#"dir="rtl""#))
    }

    /// --pseudo: a one-line text that fits in English but not 40 % longer
    /// is found clipping in headless Chromium; a text free to wrap is not.
    @Test func thePseudoLocaleFindsTextThatWouldClip() async throws {
        let dir = Fixtures.temporaryDirectory()
        for sub in ["screens", "tokens", "strings"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try Data(#"{"short":"Continue to payment now","long":"Your order ships in two days"}"#.utf8)
            .write(to: dir.appendingPathComponent("strings/en.json"))
        try Data(#"{"id":"s","tokens":[{"id":"a_tight"},{"id":"b_free"}]}"#.utf8).write(to: dir.appendingPathComponent("screens/s.json"))
        let style = #""style":{"size":17,"lineHeight":22}"#
        try Data(#"{"id":"a_tight","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"@string.short","maxLines":1,\#(style),"width":230}}"#.utf8)
            .write(to: dir.appendingPathComponent("tokens/a_tight.json"))
        try Data(#"{"id":"b_free","version":1,"primitive":"Text","primitiveVersion":4,"props":{"text":"@string.long",\#(style)}}"#.utf8)
            .write(to: dir.appendingPathComponent("tokens/b_free.json"))
        let plain = try await sdui(["strings", "check", dir.path, "--json"])
        #expect(plain.status == 0, "\(plain.out) \(plain.err)")
        let r = try await sdui(["strings", "check", dir.path, "--pseudo", "--json"])
        #expect(r.status == 1, "\(r.out) \(r.err)")
        let clips = try #require(try json(r.out)["findings"] as? [[String: Any]]).filter { $0["kind"] as? String == "clip" }
        #expect(clips.count == 1, "\(clips)")
        #expect(clips.first?["locale"] as? String == "en-XA")
        #expect(clips.first?["screen"] as? String == "s")
    }
}
#endif
