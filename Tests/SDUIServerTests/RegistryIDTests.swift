// RegistryIDTests.swift - the id grammar of the registry's HTTP API.
#if Server
import SDUIServer
import Testing

@Suite struct RegistryIDTests {
    @Test func theGrammarAcceptsLettersDigitsAndFourMarks() {
        for id in ["a", "promo_banner", "Checkout-2", "v1.2", "ns:card", "a.b.c", "A9_-.:z", String(repeating: "x", count: 128)] {
            #expect(RegistryID.isValid(id), "\(id)")
        }
    }

    @Test func everythingElseIsRefused() {
        for id in ["", ".", ".hidden", "..", "a..b", "a/b", "a b", "a%2F", "é", "a\u{0}", "a,b", "a?b", "a#b", "a@1",
                   String(repeating: "x", count: 129)] {
            #expect(!RegistryID.isValid(id), "\(id)")
        }
        #expect(RegistryID.maxLength == 128)
        #expect(RegistryID.isValid("abc".dropFirst()))   // any StringProtocol
    }
}
#endif
