// ImageURLPolicyTests.swift - image URLs: HTTPS on the configured CDN only.
import Foundation
import SDUI
import SDUITestSupport
import Testing

@Suite struct ImageURLPolicyTests {
    typealias R = ImageURLPolicy.Rejection

    static let policy = try! ImageURLPolicy(allowedHosts: ["cdn.sdui.example.com", "*.img.example.net"])

    static let accepted = [
        "https://cdn.sdui.example.com/brand/wordmark-dark.svg",
        "HTTPS://CDN.SDUI.EXAMPLE.COM/brand/Logo.PNG",
        "hTtPs://Cdn.Sdui.Example.Com/a.png",
        "https://cdn.sdui.example.com:443/a.png",
        "https://cdn.sdui.example.com",
        "https://cdn.sdui.example.com/",
        "https://cdn.sdui.example.com/a.png?w=96&dpr=3",
        "https://cdn.sdui.example.com/a.png#section",
        "https://cdn.sdui.example.com/a.png#@evil.example.org",
        "https://cdn.sdui.example.com/caf%C3%A9%20cr%C3%A8me.png",
        "https://cdn.sdui.example.com/onboarding/welcome-hero@3x.webp",
        "https://a.img.example.net/x.webp",
        "https://eu-1.a.img.example.net/x.webp",
        "https://cdn.sdui.example.com/../../etc/passwd",
    ]

    static let refused: [(String, R)] = [
        // Schemes.
        ("http://cdn.sdui.example.com/a.png", .notHTTPS),
        ("HTTP://cdn.sdui.example.com/a.png", .notHTTPS),
        ("data:image/png;base64,iVBORw0KGgo=", .notHTTPS),
        ("javascript:alert(1)", .notHTTPS),
        ("JaVaScRiPt:alert(1)//https://cdn.sdui.example.com/", .notHTTPS),
        ("ftp://cdn.sdui.example.com/a.png", .notHTTPS),
        ("file:///etc/passwd", .notHTTPS),
        ("wss://cdn.sdui.example.com/a", .notHTTPS),
        ("//cdn.sdui.example.com/a.png", .missingScheme),
        ("/a.png", .missingScheme),
        ("a.png", .missingScheme),
        ("cdn.sdui.example.com/a.png", .missingScheme),
        ("", .missingScheme),
        // Userinfo: the host is after the "@".
        ("https://cdn.sdui.example.com@evil.example.org/a.png", .userinfo),
        ("https://user:pw@cdn.sdui.example.com/a.png", .userinfo),
        ("https://user@cdn.sdui.example.com/a.png", .userinfo),
        ("https://@cdn.sdui.example.com/a.png", .userinfo),
        ("https://cdn.sdui.example.com:443@evil.example.org/", .userinfo),
        // Hosts that are not literal DNS names.
        ("https://cdn.sdui.example.com./a.png", .trailingDot),
        ("https://%63dn.sdui.example.com/a.png", .percentEncodedHost),
        ("https://cdn.sdui.example.com%2Eevil.example.org/a.png", .percentEncodedHost),
        ("https://xn--cdn-sdi-kva.example.com/a.png", .internationalizedHost),
        ("https://cdn.sdui.xn--exmple-cua.com/a.png", .internationalizedHost),
        ("https://cdn.sdui.ex\u{E4}mple.com/a.png", .nonASCII),
        ("https://\u{FF43}dn.sdui.example.com/a.png", .nonASCII),
        ("https://cdn.sdui.example.com\u{3002}evil.example.org/a.png", .nonASCII),
        ("https://cdn.sdui.example.com/\u{E4}pfel.png", .nonASCII),
        ("https://cdn.sdui.example.com\u{200B}/a.png", .nonASCII),
        ("https://127.0.0.1/a.png", .ipLiteral),
        ("https://[::1]/a.png", .ipLiteral),
        ("https://[2001:db8::1]:443/a.png", .ipLiteral),
        ("https://2130706433/a.png", .ipLiteral),
        ("https://0x7f.1/a.png", .ipLiteral),
        ("https://cdn_sdui.example.com/a.png", .invalidHost),
        ("https://-cdn.sdui.example.com/a.png", .invalidHost),
        ("https://cdn..sdui.example.com/a.png", .invalidHost),
        ("https:///a.png", .emptyHost),
        ("https://", .emptyHost),
        ("https:cdn.sdui.example.com/a.png", .emptyHost),
        ("https:/cdn.sdui.example.com/a.png", .emptyHost),
        // Ports: none, or exactly 443.
        ("https://cdn.sdui.example.com:8443/a.png", .port),
        ("https://cdn.sdui.example.com:80/a.png", .port),
        ("https://cdn.sdui.example.com:/a.png", .port),
        ("https://cdn.sdui.example.com:0443/a.png", .port),
        // Foundation refuses it outright.
        ("https://cdn.sdui.example.com:443:443/a.png", .unparsable),
        // Characters that parsers disagree on.
        ("https://cdn.sdui.example.com\\@evil.example.org/", .backslash),
        ("https:\\\\cdn.sdui.example.com\\a.png", .backslash),
        ("https://cdn.sdui.example.com/a\\b.png", .backslash),
        ("https://cdn.sdui.example.com/a b.png", .controlOrSpace),
        (" https://cdn.sdui.example.com/a.png", .controlOrSpace),
        ("https://cdn.sdui.example.com/a.png\n", .controlOrSpace),
        ("https://cdn.sdui.exa\tmple.com/a.png", .controlOrSpace),
        ("https://cdn.sdui.example.com/\u{0}.png", .controlOrSpace),
        ("https://cdn.sdui.example.com/\u{7F}.png", .controlOrSpace),
        // Well-formed, on the wrong host.
        ("https://evil.example.org/a.png", .hostNotAllowed),
        ("https://evilcdn.sdui.example.com/a.png", .hostNotAllowed),
        ("https://cdn.sdui.example.com.evil.net/a.png", .hostNotAllowed),
        ("https://sdui.example.com/a.png", .hostNotAllowed),
        ("https://a.cdn.sdui.example.com/a.png", .hostNotAllowed),
        ("https://img.example.net/a.png", .hostNotAllowed),
        ("https://evilimg.example.net/a.png", .hostNotAllowed),
        ("https://a.img.example.net.evil.org/a.png", .hostNotAllowed),
        ("https://evil.example.org?@cdn.sdui.example.com/", .hostNotAllowed),
        ("https://evil.example.org#@cdn.sdui.example.com", .hostNotAllowed),
        ("https://evil.example.org/cdn.sdui.example.com/a.png", .hostNotAllowed),
    ]

    @Test func theCorpusIsLargeEnough() {
        #expect(Self.accepted.count + Self.refused.count >= 30)
        #expect(Set(Self.refused.map(\.1)).isSuperset(of: R.allCases.filter { $0 != .bindingInHost }))
    }

    @Test(arguments: ImageURLPolicyTests.accepted)
    func acceptsCDNURLs(url: String) throws {
        #expect(Self.policy.rejection(for: url) == nil)
        let u = try Self.policy.check(url)
        #expect(u.scheme?.lowercased() == "https")
        #expect(u.host.map { Self.policy.rejection(for: "https://\($0)/") } == .some(nil))
    }

    @Test(arguments: ImageURLPolicyTests.refused)
    func refusesWithTheRightReason(url: String, reason: R) {
        #expect(Self.policy.rejection(for: url) == reason, "\(url)")
        let e = expectError(.schema) { try Self.policy.check(url) }
        #expect(e?.input == url)
        #expect(e?.message.contains(reason.description) == true)
    }

    @Test func hostsAreComparedWithoutCase() throws {
        let policy = try ImageURLPolicy(allowedHosts: ["CDN.Sdui.Example.COM", "*.IMG.example.NET"])
        #expect(policy.allowedHosts == ["cdn.sdui.example.com", "*.img.example.net"])
        #expect(policy.rejection(for: "https://cdn.sdui.example.com/a.png") == nil)
        #expect(policy.rejection(for: "https://X.Img.Example.Net/a.png") == nil)
    }

    @Test func theAllowListIsCheckedWhenConfigured() {
        let bad = ["", "https://cdn.sdui.example.com", "cdn.sdui.example.com:443", "cdn.sdui.example.com/",
                   "127.0.0.1", "[::1]", "localhost", "*.com", "*", "*.*.example.com", "cdn.sdui.example.com.",
                   "xn--bcher-kva.example", "b\u{FC}cher.example", "cdn sdui.example.com", "user@cdn.example.com",
                   "a.*.example.com", "%63dn.example.com"]
        for entry in bad {
            let e = expectError(.argument) { _ = try ImageURLPolicy(allowedHosts: [entry]) }
            #expect(e?.message.contains("allowed host") == true, "\(entry)")
        }
        expectError(.argument) { _ = try ImageURLPolicy(allowedHosts: []) }
    }

    // MARK: Templates

    @Test func templatesNeedALiteralSchemeAndHost() {
        let p = Self.policy
        for ok in ["https://cdn.sdui.example.com/players/{{player.id}}/avatar-96.jpg",
                   "https://cdn.sdui.example.com/p?id={{item.sku}}",
                   "https://cdn.sdui.example.com/a.png#{{anchor}}",
                   "https://cdn.sdui.example.com/{{path}}",
                   "https://a.img.example.net/{{a}}/{{b}}.png",
                   "https://cdn.sdui.example.com/plain.png"] {
            #expect(p.rejection(forTemplate: ok) == nil, "\(ok)")
        }
        let refused: [(String, R)] = [
            ("https://{{cdn}}/a.png", .bindingInHost),
            ("https://cdn.sdui.example.com{{suffix}}/a.png", .bindingInHost),
            ("https://cdn.sdui.example.com.{{evil}}/a.png", .bindingInHost),
            ("https://cdn.sdui.example.com:{{port}}/a.png", .bindingInHost),
            ("https://{{user}}@cdn.sdui.example.com/a.png", .bindingInHost),
            ("{{product.imageUrl}}", .bindingInHost),
            ("https{{x}}", .bindingInHost),
            ("http://cdn.sdui.example.com/{{x}}.png", .notHTTPS),
            ("http://{{host}}/a.png", .notHTTPS),
            ("javascript:{{code}}", .notHTTPS),
            ("//cdn.sdui.example.com/{{x}}.png", .missingScheme),
            ("https://user@{{host}}/a.png", .userinfo),
            ("https://evil.example.org/{{x}}.png", .hostNotAllowed),
            ("https://cdn.sdui.example.com:8443/{{x}}.png", .port),
            ("https://cdn.sdui.example.com/{{x}}\\.png", .backslash),
            ("https://cdn.sdui.example.com/{{x}} y.png", .controlOrSpace),
        ]
        for (template, reason) in refused {
            #expect(p.rejection(forTemplate: template) == reason, "\(template)")
        }
        let e = expectError(.schema) { try p.checkTemplate("https://{{cdn}}/a.png") }
        #expect(e?.message.contains("{{binding}}") == true)
    }

    // MARK: Tokens

    @Test func theWalkerFindsEveryBadURLInANestedToken() throws {
        let json = """
            {"id":"gallery","version":2,"primitive":"Column","primitiveVersion":1,
             "props":{"spacing":8,"visible":true,"badge":null,
               "children":[
                 {"primitive":"AsyncImage","primitiveVersion":1,"props":{"url":"https://cdn.sdui.example.com/ok.png"}},
                 {"primitive":"AsyncImage","primitiveVersion":1,"props":{"URL":"http://cdn.sdui.example.com/plain.png"}},
                 {"primitive":"AsyncImage","primitiveVersion":1,"props":{"url":"https://cdn.sdui.example.com/p/{{item.id}}.png"}},
                 {"primitive":"Image","primitiveVersion":1,"props":{"src":"logo.png","imageUrl":"https://{{host}}/x.png"}},
                 {"primitive":"Text","primitiveVersion":1,"props":{"text":"see https://evil.example.org",
                   "link":"https://evil.example.org/x","caption":"plain text with http: inside","n":3}},
                 {"primitive":"Row","primitiveVersion":1,"props":{"sources":{"srcset":["//cdn.sdui.example.com/a.png"]},
                   "background":{"url":["https://cdn.sdui.example.com/bg.png","data:image/png;base64,AAAA"]},
                   "imageURL":{"light":"https://a.img.example.net/l.png","dark":"https://b.img.example.net:8443/d.png"}}}
               ],
               "weird key":{"url":"javascript:alert(1)"},
               "Src":7}}
            """
        let token = try DesignToken(json: json)
        let found = Self.policy.violations(in: token)
        let expected: [(String, R)] = [
            ("props.children[1].props.URL", .notHTTPS),
            ("props.children[3].props.imageUrl", .bindingInHost),
            ("props.children[3].props.src", .missingScheme),
            ("props.children[4].props.link", .hostNotAllowed),
            ("props.children[5].props.background.url[1]", .notHTTPS),
            ("props.children[5].props.imageURL.dark", .port),
            ("props.children[5].props.sources.srcset[0]", .missingScheme),
            (#"props["weird key"].url"#, .notHTTPS),
        ]
        #expect(found.map(\.path) == expected.map(\.0))
        #expect(found.map(\.rejection) == expected.map(\.1))
        #expect(found.first?.url == "http://cdn.sdui.example.com/plain.png")
        #expect(found.first?.description == "props.children[1].props.URL: scheme is not https (http://cdn.sdui.example.com/plain.png)")

        let e = expectError(.schema) { try Self.policy.validate(token) }
        #expect(e?.input == "gallery")
        #expect(e?.message.contains("8 image URL(s)") == true)
        #expect(e?.message.contains("and 3 more") == true)

        // A props tree can be walked without a token, under any root name.
        let tree = JSONValue.object(["src": .array([.string("https://cdn.sdui.example.com/a.png"), .string("http://x.example/b")])])
        #expect(Self.policy.violations(in: tree, path: "root").map(\.path) == ["root.src[1]"])

        // An action's URLs are links and endpoints, not images: the action rows check them.
        let withAction = JSONValue.object([
            "action": ["type": "request", "method": "POST", "url": "/cart/items"],
            "children": [["action": ["type": "open_url", "url": "https://shop.example/terms"], "src": "http://x.example/c"]],
        ])
        #expect(Self.policy.violations(in: withAction, path: "props").map(\.path) == ["props.children[0].src"])
    }

    @Test func everyExampleTokenPasses() throws {
        let policy = try ImageURLPolicy(allowedHosts: ["cdn.sdui.example.com"])
        let dir = Fixtures.repositoryRoot.appendingPathComponent("Examples/tokens")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 40)
        var withImages = 0
        for file in files {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            let token = try DesignToken(json: text, source: file)
            #expect(policy.violations(in: token).isEmpty, "\(file): \(policy.violations(in: token))")
            try policy.validate(token)
            // The walker does reach those URLs: moved to another host, each is caught.
            if text.contains("https://cdn.sdui.example.com/") {
                withImages += 1
                let moved = try DesignToken(json: text.replacingOccurrences(
                    of: "https://cdn.sdui.example.com/", with: "https://cdn.sdui.example.com.evil.net/"), source: file)
                let count = text.components(separatedBy: "https://cdn.sdui.example.com/").count - 1
                let found = policy.violations(in: moved)
                #expect(found.count == count, "\(file)")
                #expect(found.allSatisfy { $0.rejection == .hostNotAllowed })
            }
        }
        #expect(withImages >= 10)
    }
}
