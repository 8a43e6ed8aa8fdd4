import Foundation
import SDUICore
import SDUIFlow
import Testing

@Suite struct LinkPolicyTests {
    @Test(arguments: [
        "https://example.com/terms", "HTTPS://Example.com:8443/a?b=c#d", "https://[2001:db8::1]/x",
        "https://127.0.0.1/ok",
    ])
    func httpsLinksPass(_ url: String) throws {
        #expect(LinkPolicy.https.rejection(for: url) == nil)
        #expect(try LinkPolicy.https.check(url).absoluteString == url)
    }

    @Test(arguments: [
        ("javascript:alert(1)", LinkPolicy.Rejection.refusedScheme),
        ("JavaScript:alert(document.cookie)", .refusedScheme),
        ("file:///etc/passwd", .refusedScheme),
        ("intent://scan/#Intent;scheme=zxing;package=com.evil;end", .refusedScheme),
        ("data:text/html,<script>alert(1)</script>", .refusedScheme),
        ("vbscript:msgbox", .refusedScheme),
        ("blob:https://example.com/uuid", .refusedScheme),
        ("http://example.com/", .schemeNotAllowed),
        ("mailto:a@example.com", .schemeNotAllowed),
        (" javascript:alert(1)", .controlOrSpace),
        ("java\tscript:alert(1)", .controlOrSpace),
        ("https://example.com/\u{7f}", .controlOrSpace),
        ("https://exämple.com/", .nonASCII),
        ("https:\\\\example.com", .backslash),
        ("//example.com/x", .missingScheme),
        ("example.com", .missingScheme),
        ("1https://x", .missingScheme),
        ("https:example.com", .missingHost),
        ("https:///path", .missingHost),
        ("https://bank.example@evil.example/", .userinfo),
        ("", .empty),
    ])
    func refusedLinksNameTheRule(_ url: String, _ why: LinkPolicy.Rejection) {
        #expect(LinkPolicy.https.rejection(for: url) == why, "\(url)")
        do {
            try LinkPolicy.https.check(url)
            Issue.record("\(url) passed")
        } catch let e as SDUIError {
            #expect(e.category == .schema && e.message.hasPrefix("link refused: ") && e.input == url)
            #expect(!e.message.contains("image"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aLongLinkIsRefused() {
        let url = "https://example.com/" + String(repeating: "a", count: LinkPolicy.maxBytes)
        #expect(LinkPolicy.https.rejection(for: url) == .tooLong)
    }

    @Test func schemesAndHostsAreConfigurable() throws {
        let p = try LinkPolicy(allowedSchemes: ["HTTPS", "myapp"], allowedHosts: ["example.com", "*.cdn.example.com"])
        #expect(p.rejection(for: "myapp://settings/profile") == nil)
        #expect(p.rejection(for: "https://example.com/x") == nil)
        #expect(p.rejection(for: "https://a.b.cdn.example.com/x") == nil)
        #expect(p.rejection(for: "https://cdn.example.com.evil.net/x") == .hostNotAllowed)
        #expect(p.rejection(for: "https://evil.net/x") == .hostNotAllowed)
        #expect(p.rejection(for: "javascript:alert(1)") == .refusedScheme)
        #expect(LinkPolicy.endpoints.rejection(for: "http://127.0.0.1:8080/submit") == nil)
    }

    @Test(arguments: [["javascript"], ["FILE"], ["intent"], ["data"], ["not a scheme"], []])
    func dangerousSchemesCannotBeAllowed(_ schemes: [String]) {
        #expect(throws: SDUIError.self) { _ = try LinkPolicy(allowedSchemes: Set(schemes)) }
    }
}
