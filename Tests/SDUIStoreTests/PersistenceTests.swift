// PersistenceTests.swift - the file, userPrefs and session scopes, and the
// version rule, against real files and real UserDefaults suites; a file that
// cannot be read (as a user who is not root), two stores of one file, and
// unreadable generations kept aside.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
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

    /// A file that exists but cannot be read (mode 000, for a user who is
    /// not root) is a load error, not an empty state: the store starts
    /// empty, saves nothing over the file or its .prev (bytes and modes
    /// stay), and says so; once the file is readable again the next save
    /// merges the changes made meanwhile into what it holds.
    @Test func aFileThatCannotBeReadIsAnErrorAndIsNeverReplaced() throws {
        let dir = Fixtures.temporaryDirectory()
        let url = dir.appendingPathComponent("locked.json")
        let prev = url.path + ".prev"
        DefaultStore(appID: "app").named(.file(url: url)).set("a", 1)
        DefaultStore(appID: "app").named(.file(url: url)).set("a", 2)
        try Unprivileged.own(dir, url.path, prev, url.path + ".lock", url.path + ".journal")
        #expect(chmod(url.path, 0) == 0)
        let bytes = try Data(contentsOf: url), prevBytes = try Data(contentsOf: URL(fileURLWithPath: prev))

        let store = Unprivileged.run { DefaultStore(appID: "app").store(.file(url: url)) }
        let e = try #require(store.lastPersistenceError)
        #expect(e.category == .io && e.code == Int(EACCES), "\(e)")
        #expect(e.input == url.path && e.message.contains("cannot be read: Permission denied"), "\(e)")
        #expect(e.message.contains("nothing is written over it"), "\(e)")
        #expect(store.loadError?.category == .io)
        #expect(store.snapshot().isEmpty, "prev, older, is not read in its place")
        Unprivileged.run { _ = store.set("b", 1) }
        #expect(store.lastPersistenceError?.category == .io, "\(String(describing: store.lastPersistenceError))")
        #expect(try Data(contentsOf: url) == bytes && Self.mode(url.path) == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: prev)) == prevBytes && Self.mode(prev) == 0o600)

        // Readable again: the next save keeps a, and b from the failed save.
        #expect(chmod(url.path, 0o600) == 0)
        Unprivileged.run { _ = store.set("c", 3) }
        #expect(store.lastPersistenceError == nil)
        #expect(store.snapshot() == ["a": 2, "b": 1, "c": 3], "the store takes what the file held")
        #expect(DefaultStore(appID: "app").store(.file(url: url)).snapshot() == ["a": 2, "b": 1, "c": 3])
        #expect(Self.mode(url.path) == 0o600)
    }

    /// Two stores of one file (two processes, or two `DefaultStore`s of one
    /// app) lose none of each other's changes: each save merges its patches
    /// into what the file holds, and the store takes the result, telling its
    /// observers of what the other wrote.
    @Test func twoStoresOfOneFileMergeTheirChanges() async throws {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("shared.json")
        let one = DefaultStore(appID: "app").store(.file(url: url))
        let two = DefaultStore(appID: "app").store(.file(url: url))
        one.set("cart", ["items": [["t": "Tea"], ["t": "Cake"]], "total": 7])
        let heard = first(1, of: one.changes(for: ["note"]))
        two.set("note", "from two")                                  // two had not seen cart
        #expect(two.get("cart.total") == 7, "two takes what one saved")
        one.merge("cart", ["coupon": "WELCOME"])                     // one had not seen note
        #expect(await heard.value.first?.patches.first?.newValue == "from two", "one's observers hear of note")
        two.set("cart.total", 9)
        two.remove("cart.items[0]")
        one.set("user.name", "Ada")
        let file = DefaultStore(appID: "app").store(.file(url: url)).snapshot()
        #expect(file == ["cart": ["items": [["t": "Cake"]], "total": 9, "coupon": "WELCOME"],
                         "note": "from two", "user": ["name": "Ada"]], "\(file)")
        #expect(one.snapshot() == file && two.get("user.name") == nil, "two has not saved since")
        // A patch whose way another writer changed gives up on its key:
        // one's whole value of that key wins.
        two.set("list", [1, 2])
        one.set("list", "not a list any more")
        two.set("list[2]", 3)
        #expect(DefaultStore(appID: "app").store(.file(url: url)).get("list") == [1, 2, 3])
        #expect(two.get("list") == [1, 2, 3])
    }

    /// Unreadable generations kept aside in quick succession (more in one
    /// second than there are seconds) each keep a name of their own.
    @Test func unreadableGenerationsKeptAsideInOneSecondAllStay() throws {
        let dir = Fixtures.temporaryDirectory()
        let url = dir.appendingPathComponent("bad.json")
        for i in 0..<4 {
            try Data("{\(i)".utf8).write(to: url)
            try Data("[\(i)".utf8).write(to: URL(fileURLWithPath: url.path + ".prev"))
            let s = DefaultStore(appID: "app").store(.file(url: url))
            #expect(s.lastPersistenceError?.category == .corrupt)
            s.set("n", .integer(i))
            #expect(s.lastPersistenceError == nil)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        let aside = names.filter { $0.hasPrefix("bad.json.unreadable-") }
        let prevAside = names.filter { $0.hasPrefix("bad.json.prev.unreadable-") }
        #expect(aside.count == 4 && prevAside.count == 4, "\(names.sorted())")
        let kept = try Set(aside.map { try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8) })
        #expect(kept == ["{0", "{1", "{2", "{3"])
        let keptPrev = try Set(prevAside.map { try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8) })
        #expect(keptPrev == ["[0", "[1", "[2", "[3"])
    }

    /// A file's mode bits, or -1.
    static func mode(_ path: String) -> Int {
        var sb = stat()
        return stat(path, &sb) == 0 ? Int(sb.st_mode & 0o7777) : -1
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
