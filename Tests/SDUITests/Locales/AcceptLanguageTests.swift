// AcceptLanguageTests.swift - Accept-Language read, written and negotiated.
import SDUI
import Testing

@Suite struct AcceptLanguageTests {
    @Test func readByQualityThenOrder() {
        let a = AcceptLanguage(header: "fr;q=0.5, de_ch, *;q=0.1, en;q=0.8, xx-!!, pt-br;q=0, es;q=0.8")
        #expect(a.locales == ["de-CH", "en", "es", "fr"])
        #expect(AcceptLanguage(header: "").locales.isEmpty)
        // Bounded: at most 32 ranges are read.
        let long = (0..<100).map { "l\($0 % 26 + 10)" }.joined(separator: ",")
        #expect(AcceptLanguage(header: long).locales.count <= 32)
    }

    @Test func writtenWithFallingQualities() {
        let a = AcceptLanguage(["de-CH", "de", "en"])
        #expect(a.header == "de-CH, de;q=0.9, en;q=0.8")
        #expect(AcceptLanguage(header: a.header) == a)
    }

    @Test func theBestLocaleReachesACatalogAlongItsChain() {
        let a = AcceptLanguage(["de-CH", "fr"])
        #expect(a.best(among: ["de", "en"]) == "de-CH")
        #expect(a.best(among: ["fr", "en"]) == "fr")
        #expect(a.best(among: ["ja"]) == nil)
        #expect(AcceptLanguage(["es-MX"]).best(among: ["es"]) == "es-MX")
    }

    @Test func deviceLocalesWithExtensionsCountAsTheirTags() throws {
        // Android writes a user's regional preferences into the device's locales.
        let a = AcceptLanguage(header: "en-GB-u-fw-mon-mu-celsius, de-CH-u-nu-latn;q=0.8, de-CH;q=0.5, fr-x-app;q=0.4")
        #expect(a.locales == ["en-GB", "de-CH", "fr"])
        #expect(try LocaleTag("sr_Latn_RS_u_nu_latn").identifier == "sr-Latn-RS")
        #expect(try LocaleTag("ar-EG-u-nu-latn").chain == ["ar-EG", "ar"])
        #expect(throws: SDUIError.self) { try LocaleTag("en-u") }
        #expect(throws: SDUIError.self) { try LocaleTag("en-u-nu-latn-x") }
    }
}
