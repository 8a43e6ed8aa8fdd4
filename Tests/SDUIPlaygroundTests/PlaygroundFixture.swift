// PlaygroundFixture.swift - a scratch copy of Examples/ for the playground's
// tests: edits never touch the repository, and each test has its own.
#if Server
import Foundation
import SDUITestSupport
@testable import SDUIPlayground

/// A copy of the example folders under a fresh temporary directory.
struct PlaygroundFixture {
    let dir: URL

    /// Copies every folder the playground reads (``PlaygroundFolder/folders``).
    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sdui-dev-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
        for folder in PlaygroundFolder.folders {
            try FileManager.default.copyItem(at: examples.appendingPathComponent(folder), to: dir.appendingPathComponent(folder))
        }
    }

    /// Writes `text` to `relative` (replacing it).
    func write(_ relative: String, _ text: String) throws {
        try Data(text.utf8).write(to: dir.appendingPathComponent(relative))
    }

    /// The text of `relative`.
    func read(_ relative: String) throws -> String {
        try String(contentsOf: dir.appendingPathComponent(relative), encoding: .utf8)
    }

    /// Replaces the first `old` in `relative` with `new`; fails when absent.
    func replace(_ relative: String, _ old: String, with new: String) throws {
        let text = try read(relative)
        guard let range = text.range(of: old) else { throw FixtureError(message: "no \(old) in \(relative)") }
        try write(relative, text.replacingCharacters(in: range, with: new))
    }

    /// The folder as the playground reads it.
    func folder() throws -> PlaygroundFolder { PlaygroundFolder(root: try FolderPath(dir.path)) }

    /// Removes the copy.
    func remove() { try? FileManager.default.removeItem(at: dir) }
}

struct FixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
#endif
