// PersistenceTests.swift - the file, userPrefs and session scopes, and the
// version rule, against real files and real UserDefaults suites.
import Foundation
import SDUICore
@testable import SDUIStore
import SDUITestSupport
import Testing

@Suite struct PersistenceTests {
    @Test func theFileScopeSurvivesANewProcessStore() throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("checkout.json")
        do {
            let s = DefaultStore(appID: "app").named(.file(url: url))
            s.set("cart.items", [["title": "Tea", "price": 4.5]])
            s.set("brand", .color("#FF8800"))
            s.set("links", [.url("https://example.com/x"), "plain"])
            s.set("n", 3)
        }
        let again = DefaultStore(appID: "app").store(.file(url: url))
        #expect(again.get("cart.items[0].price") == .number(4.5))
        #expect(again.get("n") == .integer(3))
        #expect(again.get("brand") == .color("#FF8800"), "kinds come back")
        #expect(again.get("links") == [.url("https://example.com/x"), "plain"])
        #expect(again.lastPersistenceError == nil)
    }

    @Test func aTornFileFallsBackToTheLastGoodStateAndSaysSo() throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("s.json")
        do {
            let s = DefaultStore(appID: "app").named(.file(url: url))
            s.set("step", 1)
            s.set("step", 2)
        }
        // Cut the newest file in half, as a crash of a non-atomic writer would.
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count / 2).write(to: url)
        let s = DefaultStore(appID: "app").store(.file(url: url))
        #expect(s.get("step") == 1, "the previous good state")
        let e = try #require(s.lastPersistenceError)
        #expect(e.message.contains("recovered the last good state from \(url.path).prev"), "\(e)")
        // The next write makes a good file again.
        s.set("step", 3)
        #expect(s.lastPersistenceError == nil)
        #expect(DefaultStore(appID: "app").store(.file(url: url)).get("step") == 3)
    }

    @Test func aCorruptFileWithNoGoodGenerationStartsEmptyAndKeepsTheFile() throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("c.json")
        try Data(#"{"values":{"a":1}}"#.utf8).write(to: url)
        let s = DefaultStore(appID: "app").store(.file(url: url))
        #expect(s.snapshot().isEmpty)
        let e = try #require(s.lastPersistenceError)
        #expect(e.category == .corrupt, "\(e)")
        #expect(e.input == url.path)
    }

    /// Saved values meet rules that arrive after they were loaded: they are
    /// repaired (coerced, defaulted, removed) rather than served invalid,
    /// in strict mode too, and the repair is saved.
    @Test func savedValuesAreBroughtInLineWithRulesThatArriveLater() async throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("cached.json")
        DefaultStore(appID: "app").named(.file(url: url)).replaceAll(with: [
            "cart": ["total": "12.5", "level": "high", "code": "abc", "brand": "#FF0000", "keep": "x"],
            "items": [["qty": "2"], ["qty": "many"]],
        ])
        let s = DefaultStore(appID: "app").store(.file(url: url))
        let changes = first(1, of: s.changes(for: "cart"))
        try s.setValidation(ValidationOptions(mode: .strict, schema: [
            "cart.total": Rule(kind: .number, required: true),
            "cart.level": Rule(kind: .integer, required: false, defaultValue: 1),
            "cart.code": Rule(kind: .string, required: false, pattern: "^[A-Z]+$"),
            "cart.brand": Rule(kind: .color, required: false),
            "cart.count": Rule(kind: .integer, required: true, defaultValue: 0),
            "items[*].qty": Rule(kind: .integer, required: false),
        ]))
        #expect(s.get("cart.total") == .number(12.5))       // coerced
        #expect(s.get("cart.level") == .integer(1))         // no form: the default
        #expect(s.get("cart.code") == nil)                  // no form, no default: removed
        #expect(s.get("cart.brand") == .color("#FF0000"))   // normalised
        #expect(s.get("cart.count") == .integer(0))         // required: its default
        #expect(s.get("cart.keep") == "x")                  // no rule: untouched
        #expect(s.get("items[*].qty") == [.integer(2)])     // "many" removed
        // One change holds every repair.
        let got = await changes.value
        #expect(got.count == 1)
        #expect(Set(got.first?.patches.map(\.keyPath) ?? []) == ["cart.total", "cart.level", "cart.code", "cart.brand",
                                                                 "cart.count", "items[0].qty", "items[1].qty"])
        // The repairs are saved: a relaunch reads them without rules.
        let again = DefaultStore(appID: "app").store(.file(url: url))
        #expect(again.get("cart.total") == .number(12.5))
        #expect(again.get("cart.code") == nil)
        #expect(again.get("cart.brand") == .color("#FF0000"))
    }

    /// The backend scope's file (values and the unpushed queue) is kept
    /// aside, like the file scope's, when it cannot be read.
    @Test func anUnreadableBackendFileIsKeptAsideNotOverwritten() throws {
        let dir = Fixtures.temporaryDirectory()
        DefaultStore(appID: "app", directory: dir).store(.backend(namespace: "n")).set("x", 1)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .first { $0.hasPrefix("backend-") && $0.hasSuffix(".json") })
        let file = dir.appendingPathComponent(name)
        try Data("{".utf8).write(to: file)
        try Data("{".utf8).write(to: URL(fileURLWithPath: file.path + ".prev"))
        let s = DefaultStore(appID: "app", directory: dir).store(.backend(namespace: "n"))
        let e = try #require(s.lastPersistenceError)
        #expect(e.message.contains("keeps the unreadable files aside"), "\(e)")
        #expect(s.get("x") == nil)
        s.set("y", 2)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names.contains { $0.hasPrefix(name + ".unreadable-") }, "\(names)")
        #expect(names.contains { $0.hasPrefix(name + ".prev.unreadable-") }, "\(names)")
        #expect(try Data(contentsOf: dir.appendingPathComponent(names.first { $0.hasPrefix(name + ".unreadable-") }!)) == Data("{".utf8))
        #expect(DefaultStore(appID: "app", directory: dir).store(.backend(namespace: "n")).get("y") == 2)
    }

    @Test func aMajorVersionBumpDropsTheSavedData() throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("v.json")
        DefaultStore(appID: "app", version: SemanticVersion(1, 4, 0)).named(.file(url: url)).set("a", 1)
        #expect(DefaultStore(appID: "app", version: SemanticVersion(1, 9, 2)).named(.file(url: url)).get("a") == 1,
                "a minor bump keeps the data")
        let bumped = DefaultStore(appID: "app", version: SemanticVersion("2.0.0")).store(.file(url: url))
        #expect(bumped.get("a") == nil)
        #expect(bumped.lastPersistenceError?.message.contains("dropped the data saved by version 1.4.0: this is 2.0.0") == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(SemanticVersion("1.2") == SemanticVersion(1, 2, 0))
        #expect(SemanticVersion("1.x") == nil && SemanticVersion("") == nil)
        #expect(SemanticVersion(1, 2, 3) < SemanticVersion(1, 10, 0))
    }

    @Test func userPrefsLiveInTheSuite() throws {
        let suite = "sdui.tests.\(UUID().uuidString)"
        defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
        DefaultStore(appID: "app").named(.userPrefs(suite: suite)).set("theme", "dark")
        #expect(UserDefaults(suiteName: suite)?.string(forKey: "sdui.store.app")?.contains("dark") == true)
        #expect(DefaultStore(appID: "app").named(.userPrefs(suite: suite)).get("theme") == "dark")
        #expect(DefaultStore(appID: "other").named(.userPrefs(suite: suite)).get("theme") == nil)
    }

    @Test func endingAScenarioClearsItsSessionStore() async throws {
        let store = DefaultStore(appID: "app")
        let s = store.named(.scenarioSession(id: "checkout"))
        s.set("step", 2)
        let other = store.named(.scenarioSession(id: "onboarding"))
        other.set("step", 1)
        let changes = first(1, of: s.changes(for: ["step"]))
        // A consumer that would wait for more than the clear is not left waiting.
        let values = first(10, of: s.values(for: "step"))
        try await Task.sleep(for: .milliseconds(20))
        store.endScenario(id: "checkout")
        #expect(await changes.value.first?.patches.first?.newValue == nil, "observers see the clear")
        #expect(await values.value == [2, nil], "the sequence ends after the clear")
        #expect((s as? ScenarioStore)?.activeSubscriptions.isEmpty == true)
        #expect(s.get("step") == nil)
        #expect(store.named(.scenarioSession(id: "checkout")) !== s, "a new session starts fresh")
        #expect(store.named(.scenarioSession(id: "checkout")).get("step") == nil)
        #expect(other.get("step") == 1)
    }
}
