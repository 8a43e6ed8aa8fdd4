// RegistryImportTests.swift - what import accepts, what it refuses, and how it says so.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryImportTests {
    let importer = RegistryImporter(imagePolicy: try! ImageURLPolicy(allowedHosts: ["cdn.sdui.example.com"]))

    func folder(_ files: [String: String]) throws -> URL {
        let dir = Fixtures.temporaryDirectory()
        for (name, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        return dir
    }

    @Test(arguments: StoreKind.allCases)
    func examplesImportAndAnewVersionPublishes(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
            let r = try await importer.importInto(store, from: examples)
            #expect(r.added == 48 && r.skipped == 0 && r.screens == 9)
            let again = try await importer.importInto(store, from: examples)
            #expect(again.added == 0 && again.skipped == 48)
            let contents = try await RegistryContents.load(store)
            #expect(contents.screens["checkout"]?.fallbackScreenID == "checkout_offline")
            #expect(contents.screens["team_page"]?.fallbackScreenID == nil)
            // Publishing a new version: a higher version of one token.
            let v2 = Fixtures.token("promo_banner", version: 99, props: #"{"text":"v99"}"#)
            let r2 = try await importer.importInto(store, from: try folder(["p.json": v2]))
            #expect(r2.added == 1)
            #expect(try await RegistryContents.load(store).versions(of: "promo_banner").map(\.version).first == 99)
        }
    }

    @Test func everyBrokenRuleIsNamedWithItsToken() throws {
        let big = Fixtures.token("big", props: #"{"text":"\#(String(repeating: "x", count: 33_000))"}"#)
        let files = [
            "big.json": big,
            "http.json": Fixtures.token("http_img", primitive: "AsyncImage", props: #"{"url":"http://cdn.sdui.example.com/a.png"}"#),
            "off.json": Fixtures.token("off_cdn", primitive: "AsyncImage", props: #"{"url":"https://evil.example.net/a.png"}"#),
            "schema.json": #"{"id":"no_version","primitive":"Text","primitiveVersion":1,"props":{}}"#,
            "id.json": Fixtures.token("../etc", props: #"{"text":"x"}"#),
            "json.json": "{not json",
            "ok.json": Fixtures.token("fine"),
            "dup1.json": Fixtures.token("twice"),
            "dup2.json": Fixtures.token("twice", props: #"{"text":"other"}"#),
        ]
        do {
            _ = try importer.load(try folder(files))
            Issue.record("a bad folder was imported")
        } catch let e as RegistryError {
            #expect(e.code == .invalid)
            let m = e.message
            #expect(m.hasPrefix("7 problem(s)"), "\(m)")
            #expect(m.contains("big (big.json): size: 33"))
            #expect(m.contains("http_img (http.json): image-url: props.url: "))
            #expect(m.contains("off_cdn (off.json): image-url: props.url: "))
            #expect(m.contains("no_version (schema.json): schema: "))
            #expect(m.contains("../etc (id.json): id: "))
            #expect(m.contains("(json.json): schema: "))
            #expect(m.contains("twice (") && m.contains("duplicate: version 1 appears twice"))
            #expect(!m.contains("fine"))
        }
    }

    /// A token whose action can never run is refused at import, named by
    /// its JSON path: one that does not parse, and one whose URL a policy
    /// refuses (inside a sequence too).
    @Test func actionsThatCannotRunAreRefused() throws {
        let files = [
            "unknown.json": Fixtures.token("unknown_action", primitive: "Button",
                                           props: #"{"label":"Go","action":{"type":"teleport"}}"#),
            "nested.json": Fixtures.token("nested_link", primitive: "Column", props: #"""
                {"children":[{"primitive":"Button","primitiveVersion":1,"props":{"label":"Help","action":
                  {"type":"sequence","actions":[{"type":"track","event":"help"},{"type":"open_url","url":"javascript:alert(1)"}]}}}]}
                """#),
            "request.json": Fixtures.token("bad_request", primitive: "Button",
                                           props: #"{"label":"Add","action":{"type":"request","method":"GET","url":"ftp://x.example/"}}"#),
            "fine.json": Fixtures.token("fine_action", primitive: "Button",
                                        props: #"{"label":"Add","action":{"type":"request","method":"POST","url":"/cart/items","into":"cart"}}"#),
        ]
        do {
            _ = try importer.load(try folder(files))
            Issue.record("tokens with broken actions were imported")
        } catch let e as RegistryError {
            let m = e.message
            #expect(m.hasPrefix("3 problem(s)"), "\(m)")
            #expect(m.contains(#"unknown_action (unknown.json): action: props.action: unknown action "teleport""#), "\(m)")
            #expect(m.contains("nested_link (nested.json): action: props.children[0].props.action.actions[1].url: open_url: link refused"), "\(m)")
            #expect(m.contains("bad_request (request.json): action: props.action: request: url refused"), "\(m)")
            #expect(!m.contains("fine_action"))
        }
    }

    @Test func packsImportToo() throws {
        let pack = Fixtures.temporaryDirectory().appendingPathComponent("p.gz")
        try Fixtures.pack(tokens: Fixtures.tokens(3)).write(to: pack)
        let batch = try importer.load(pack)
        #expect(batch.tokens.map(\.id).sorted() == ["t0", "t1", "t2"])
        #expect(batch.screens.isEmpty)
        #expect(throws: RegistryError.self) { try importer.load(pack.deletingLastPathComponent().appendingPathComponent("none")) }
    }

    @Test func badScreensAreRefused() throws {
        let dir = Fixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("tokens"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("screens"), withIntermediateDirectories: true)
        try Data(Fixtures.token("a").utf8).write(to: dir.appendingPathComponent("tokens/a.json"))
        try Data(#"{"id":"s","fallbackScreenId":"../x","tokens":[{"id":"a"}]}"#.utf8).write(to: dir.appendingPathComponent("screens/s.json"))
        try Data(#"{"id":"t","tokens":[{"bind":{}}]}"#.utf8).write(to: dir.appendingPathComponent("screens/t.json"))
        do {
            _ = try importer.load(dir)
            Issue.record("bad screens were imported")
        } catch let e as RegistryError {
            #expect(e.message.contains("s (s.json): schema: fallbackScreenId must be a screen id"), "\(e.message)")
            #expect(e.message.contains("t.json (t.json): schema: missing \"id\""), "\(e.message)")
        }
    }

    /// Screens pass the accessibility lint at import: each error refuses
    /// the import naming the screen's file, node and WCAG criterion;
    /// warnings are reported and do not.
    @Test func screensAreLintedAtImport() async throws {
        let paywall = Fixtures.repositoryRoot.appendingPathComponent("Tests/A11yFixtures/broken_paywall")
        try await withStore(.sqlite) { store in
            let strict = RegistryImporter(imagePolicy: .anyHTTPSHost)
            do {
                _ = try await strict.importInto(store, from: paywall)
                Issue.record("the broken paywall was imported")
            } catch let e as RegistryError {
                let lines = e.message.split(separator: "\n").filter { $0.contains(": a11y: ") }
                #expect(lines.count == 6, "\(e.message)")
                #expect(e.message.contains("paywall (paywall.json): a11y: paywall_hero: image-alt [WCAG 1.1.1]"), "\(e.message)")
                #expect(!e.message.contains("focus-order"), "a warning does not refuse")
            }
            #expect(try await store.generation() == 0)
            // Only the warning left: imported, and the warning reported.
            let dir = Fixtures.temporaryDirectory()
            for sub in ["screens", "tokens"] {
                try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
            try FileManager.default.copyItem(at: paywall.appendingPathComponent("tokens/paywall_plans.json"),
                                             to: dir.appendingPathComponent("tokens/paywall_plans.json"))
            try Data(#"{"id":"plans","tokens":[{"id":"paywall_plans"}]}"#.utf8).write(to: dir.appendingPathComponent("screens/plans.json"))
            let r = try await strict.importInto(store, from: dir)
            #expect(r.screens == 1 && r.warnings.count == 1)
            #expect(r.warnings.first?.contains("plans (plans.json): paywall_plans/1: focus-order [WCAG 2.4.3]") == true, "\(r.warnings)")
            // An importer without the lint takes the broken paywall.
            let lax = RegistryImporter(imagePolicy: .anyHTTPSHost, accessibility: nil)
            #expect(try await lax.importInto(store, from: paywall).screens == 1)
        }
    }
}
#endif
