// StringCatalogTests.swift - the Swift face of the C catalogs: errors that
// name the catalog and the place, bundles, the check's findings.
import Foundation
import SDUI
import SDUICore
import Testing

@Suite struct StringCatalogTests {
    @Test func aBadCatalogIsRefusedNamingItsPlace() throws {
        do {
            _ = try StringCatalog(defaultLocale: "en", catalogs: ["en": Data(#"{"a":"x","b":{"one":"y"}}"#.utf8)],
                                  source: "strings")
            Issue.record("accepted a plural entry without other")
        } catch let e as SDUIError {
            #expect(e.description.contains("en"))
            #expect(e.description.contains("other"))
        }
        #expect(throws: SDUIError.self) { try StringCatalog(defaultLocale: "not a tag", catalogs: [:]) }
        #expect(throws: SDUIError.self) { try StringCatalog(bundle: Data("[]".utf8), source: "b") }
    }

    @Test func aBundleReadsAsItsCatalogs() throws {
        let bundle = Data(#"{"locale":"pt-BR","default":"en","catalogs":{"pt":{"k":"olá {n}"},"en":{"k":"hi {n}","only":"en"}}}"#.utf8)
        let set = try StringCatalog(bundle: bundle, source: "bundle")
        #expect(set.defaultLocale == "en")
        #expect(set.locales == ["en", "pt"])
        let r = try set.text("k", locale: "pt-BR", arguments: ["n": .number(1234.5)])
        #expect(r.text == "olá 1.234,5")
        #expect(r.locale == "pt" && r.fellBack && !r.isMissing)
        #expect(try set.text("only", locale: "pt-BR").locale == "en")
        #expect(set.has("k", locale: "pt") && !set.has("only", locale: "pt"))
    }

    @Test func theCheckFindsWhatIsMissingAndMismatched() throws {
        let set = try StringCatalog(defaultLocale: "en", catalogs: [
            "en": Data(#"{"a":"A {x}","b":"B","n":{"one":"1","other":"{count}"}}"#.utf8),
            "pl": Data(#"{"a":"A {y}","n":{"one":"1","other":"{count}"},"z":"Z"}"#.utf8),
        ])
        let findings = try set.check(usedKeys: ["a", "n", "ghost"])
        let kinds = Set(findings.map { "\($0.kind.rawValue) \($0.locale ?? "-") \($0.key)" })
        #expect(kinds.contains("missing pl b"))
        #expect(kinds.contains("arguments pl a"))
        #expect(kinds.contains("plural pl n"))    // pl needs few and many
        #expect(kinds.contains("orphan pl z"))
        #expect(kinds.contains("unused - b"))
        #expect(kinds.contains("undefined - ghost"))
    }
}
