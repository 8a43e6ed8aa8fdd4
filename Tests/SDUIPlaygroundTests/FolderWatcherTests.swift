// FolderWatcherTests.swift - the watcher reports a file written in place, a
// file renamed into a folder (how editors save), a file removed, and the
// files of a subfolder that appears later, with inotify and with polling.
#if Server
import Foundation
@testable import SDUIPlayground
import Testing

@Suite struct FolderWatcherTests {
    /// Waits up to 10 s for a batch from `iterator` that contains `path`.
    static func next(_ iterator: inout AsyncStream<[String]>.Iterator, contains path: String) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard let batch = await iterator.next() else { return false }
            if batch.contains(path) { return true }
        }
        return false
    }

    @Test(arguments: FolderWatcher.Mode.allCases)
    func reportsWritesRenamesRemovalsAndNewFolders(_ mode: FolderWatcher.Mode) async throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        try FileManager.default.removeItem(at: fixture.dir.appendingPathComponent("themes"))
        let watcher = FolderWatcher(root: try FolderPath(fixture.dir.path), folders: PlaygroundFolder.folders, mode: mode,
                                    interval: .milliseconds(100))
        defer { watcher.stop() }
        var changes = watcher.changes().makeAsyncIterator()
        #if os(Linux)
        #expect(watcher.mode == mode)
        #endif
        try await Task.sleep(for: .milliseconds(300))   // the poller's first listing

        try fixture.replace("tokens/checkout_header.json", "@string.checkout.title", with: "Kasse")
        #expect(await Self.next(&changes, contains: "tokens/checkout_header.json"))

        // Saved as editors do: a temporary file renamed over the old one.
        let temp = fixture.dir.appendingPathComponent("screens/.checkout.json.swp")
        try Data(try fixture.read("screens/checkout.json").utf8).write(to: temp)
        _ = rename(temp.path, fixture.dir.appendingPathComponent("screens/checkout.json").path)
        #expect(await Self.next(&changes, contains: "screens/checkout.json"))

        try FileManager.default.removeItem(at: fixture.dir.appendingPathComponent("tokens/promo_banner.json"))
        #expect(await Self.next(&changes, contains: "tokens/promo_banner.json"))

        // A subfolder that was not there: watched from when it appears.
        try FileManager.default.createDirectory(at: fixture.dir.appendingPathComponent("themes"), withIntermediateDirectories: true)
        try fixture.write("themes/late.json", #"{"id": "late"}"#)
        #expect(await Self.next(&changes, contains: "themes/late.json"))
        try fixture.write("themes/late.json", #"{"id": "later"}"#)
        #expect(await Self.next(&changes, contains: "themes/late.json"))
    }

    @Test func ignoresFoldersItWasNotAskedFor() async throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        let watcher = FolderWatcher(root: try FolderPath(fixture.dir.path), folders: ["tokens"], mode: .native)
        defer { watcher.stop() }
        var changes = watcher.changes().makeAsyncIterator()
        try await Task.sleep(for: .milliseconds(200))
        try fixture.write("screens/checkout.json", "{}")
        try fixture.write("tokens/promo_banner.json", "{}")
        let batch = await changes.next() ?? []
        #expect(batch == ["tokens/promo_banner.json"], "\(batch)")
    }
}
#endif
