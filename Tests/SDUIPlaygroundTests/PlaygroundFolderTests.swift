// PlaygroundFolderTests.swift - the folder keeps every file's last good
// value and a problem for each file that breaks, naming the file, the place
// and the rule; a fix clears it.
#if Server
import Foundation
import SDUI
import SDUICore
@testable import SDUIPlayground
import Testing

@Suite struct PlaygroundFolderTests {
    @Test func readsTheExamples() throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        let folder = try fixture.folder()
        #expect(folder.problemList.isEmpty, "\(folder.problemList)")
        let ids = folder.screenIDs.map(\.id)
        #expect(ids.contains("checkout") && ids.contains("screen_goal") && ids.contains("home_normalized"))
        #expect(folder.flowIDs == ["onboarding"])
        #expect(!folder.themeList.isEmpty)
        guard case .found(let token, _) = folder.lookup("checkout_header") else {
            Issue.record("checkout_header not found")
            return
        }
        #expect(token.id == "checkout_header")
    }

    @Test func aBrokenTokenKeepsItsLastGoodValueUntilFixed() throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        let folder = try fixture.folder()
        let good = try fixture.read("tokens/checkout_header.json")
        try fixture.write("tokens/checkout_header.json", "{\n  \"id\": \"checkout_header\",\n  \"version\": ")
        #expect(folder.reload("tokens/checkout_header.json"))
        let problem = try #require(folder.problemList.first)
        #expect(problem.file == "tokens/checkout_header.json")
        #expect(problem.rule == "json")
        #expect(problem.place.hasPrefix("line 3, column"), "\(problem.place)")
        guard case .found(let kept, _) = folder.lookup("checkout_header") else {
            Issue.record("the last good token was dropped")
            return
        }
        #expect(kept.version >= 1)
        // A rule broken in valid JSON: the version is text.
        try fixture.write("tokens/checkout_header.json", good.replacingOccurrences(of: "\"version\": 2", with: "\"version\": \"two\""))
        folder.reload("tokens/checkout_header.json")
        #expect(folder.problemList.first?.rule == "schema", "\(folder.problemList)")
        #expect(folder.problemList.first?.place == "$.version", "\(folder.problemList)")
        #expect(folder.problemList.first?.message.contains("version") == true)
        // A nested node's member: its path.
        try fixture.write("tokens/checkout_header.json", good.replacingOccurrences(of: "\"primitive\": \"Text\"", with: "\"primitive\": 7"))
        folder.reload("tokens/checkout_header.json")
        #expect(folder.problemList.first?.place.hasPrefix("$.props.children[") == true, "\(folder.problemList)")
        #expect(folder.problemList.first?.place.hasSuffix("].primitive") == true, "\(folder.problemList)")
        try fixture.write("tokens/checkout_header.json", good)
        folder.reload("tokens/checkout_header.json")
        #expect(folder.problemList.isEmpty)
    }

    @Test func aFlowThatBreaksARuleIsAProblemWithItsJSONPath() throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        let folder = try fixture.folder()
        try fixture.replace("flows/onboarding.json", #""next": [{ "to": "screen_goal" }]"#,
                            with: #""next": [{ "to": "screen_nowhere" }]"#)
        folder.reload("flows/onboarding.json")
        let problem = try #require(folder.problemList.first)
        #expect(problem.file == "flows/onboarding.json")
        #expect(problem.rule == "unknown_target")
        #expect(problem.place.hasPrefix("$.screens[0].next[0]"), "\(problem.place)")
        // The last good flow is still the one run.
        #expect(folder.flow("onboarding")?.screens.first?.next.first?.to == "screen_goal")
    }

    @Test func aRemovedFileIsForgottenWithItsProblem() throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        let folder = try fixture.folder()
        try fixture.write("tokens/promo_banner.json", "not json")
        folder.reload("tokens/promo_banner.json")
        #expect(folder.problemList.count == 1)
        try FileManager.default.removeItem(at: fixture.dir.appendingPathComponent("tokens/promo_banner.json"))
        #expect(folder.reload("tokens/promo_banner.json"))
        #expect(folder.problemList.isEmpty)
        guard case .unavailable(let e) = folder.lookup("promo_banner") else {
            Issue.record("a removed token is still found")
            return
        }
        #expect(e.category == .notFound)
    }

    @Test(arguments: ["README.md", "tokens/notes.txt", "other/x.json", "../tokens/a.json", "tokens/.x.json", "tokens"])
    func ignoresFilesItDoesNotRead(_ path: String) throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        #expect(try fixture.folder().reload(path) == false)
    }
    @Test func aSubfolderLinkedOutOfTheFolderIsNeitherReadNorWatched() async throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        // payloads/ becomes a link to a folder outside, holding a screen.
        let outside = fixture.dir.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside) }
        try Data(#"{"id": "stolen", "tokens": [{"id": "promo_banner"}]}"#.utf8).write(to: outside.appendingPathComponent("stolen.json"))
        try FileManager.default.removeItem(at: fixture.dir.appendingPathComponent("payloads"))
        try FileManager.default.createSymbolicLink(at: fixture.dir.appendingPathComponent("payloads"), withDestinationURL: outside)
        let folder = try fixture.folder()
        #expect(!folder.screenIDs.map(\.id).contains("stolen"))
        #expect(folder.reload("payloads/stolen.json"))   // a name it reads, but not found inside
        #expect(folder.screen("stolen") == nil)
        #expect(folder.root.subfolder("payloads") == nil && folder.root.subfolder("tokens") != nil)

        let watcher = FolderWatcher(root: folder.root, folders: PlaygroundFolder.folders, mode: .native)
        defer { watcher.stop() }
        var changes = watcher.changes().makeAsyncIterator()
        try await Task.sleep(for: .milliseconds(200))
        try Data("{}".utf8).write(to: outside.appendingPathComponent("stolen.json"))
        try fixture.write("tokens/promo_banner.json", "{}")
        let batch = await changes.next() ?? []
        #expect(batch == ["tokens/promo_banner.json"], "\(batch)")
    }

    @Test func readingEverythingAgainForgetsFilesThatWent() throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        let folder = try fixture.folder()
        try FileManager.default.removeItem(at: fixture.dir.appendingPathComponent("screens/login.json"))
        try fixture.write("tokens/new_one.json", "[")
        folder.reloadAll()
        #expect(folder.screen("login") == nil)
        #expect(folder.problemList.map(\.file) == ["tokens/new_one.json"])
    }
}
#endif
