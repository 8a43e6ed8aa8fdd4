// FolderPathTests.swift - the gate between outside names and the
// playground's files: traversal, absolute paths, hidden names and symbolic
// links out of the folder are refused; files inside are found.
#if Server
import Foundation
import SDUICore
@testable import SDUIPlayground
import Testing

@Suite struct FolderPathTests {
    /// A scratch folder with `tokens/a.json`, a secret beside it, and links.
    static func scratch() throws -> (URL, FolderPath) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("sdui-folderpath-\(UUID().uuidString)")
        let dir = base.appendingPathComponent("dir")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("tokens"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: dir.appendingPathComponent("tokens/a.json"))
        try Data("secret".utf8).write(to: base.appendingPathComponent("secret.json"))
        try Data("hidden".utf8).write(to: dir.appendingPathComponent("tokens/.hidden.json"))
        // A link out of the folder, a link inside it, and a folder link out.
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("tokens/out.json").path,
                                                   withDestinationPath: base.appendingPathComponent("secret.json").path)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("tokens/in.json").path,
                                                   withDestinationPath: "a.json")
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("screens").path,
                                                   withDestinationPath: base.path)
        return (base, try FolderPath(dir.path))
    }

    @Test func findsFilesInside() throws {
        let (base, root) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: base) }
        #expect(try root.file("tokens/a.json").lastPathComponent == "a.json")
        // A link that stays inside is followed.
        #expect(try root.file("tokens/in.json").lastPathComponent == "a.json")
    }

    @Test(arguments: ["../secret.json", "tokens/../../secret.json", "/etc/passwd", "tokens/./a.json", "tokens//a.json",
                      "tokens/.hidden.json", ".sdui-dev/dev.sqlite", "", "tokens\\a.json", "tokens/a.json\u{0}x"])
    func refusesNamesThatLeaveOrHide(_ path: String) throws {
        let (base, root) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: base) }
        let error = #expect(throws: SDUIError.self) { try root.file(path) }
        #expect(error?.category == .argument)
    }

    @Test(arguments: ["tokens/out.json", "screens/secret.json", "tokens/missing.json", "tokens"])
    func treatsLinksOutAndNonFilesAsAbsent(_ path: String) throws {
        let (base, root) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: base) }
        let error = #expect(throws: SDUIError.self) { try root.file(path) }
        #expect(error?.category == .notFound)
    }

    @Test func refusesAFolderThatIsNotThere() {
        #expect(throws: SDUIError.self) { try FolderPath("/nonexistent-\(UUID().uuidString)") }
    }
}
#endif
