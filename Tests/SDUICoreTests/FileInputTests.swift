// FileInputTests.swift - bounded reads of files and pipes, and errors that name the cause.
import Foundation
import SDUICore
import SDUITestSupport
import Testing

@Suite struct FileInputTests {
    func file(_ bytes: String) throws -> String {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("input.json")
        try Data(bytes.utf8).write(to: url)
        return url.path
    }

    @Test func aRegularFileIsReadUpToItsLimit() throws {
        let path = try file("12345")
        #expect(try FileInput.read(path, limit: 5) == Data("12345".utf8))
        let e = #expect(throws: SDUIError.self) { _ = try FileInput.read(path, limit: 4) }
        #expect(e?.category == .limit && e?.input == path)
        #expect(e?.message == "file is 5 bytes; the limit is 4")
    }

    @Test func directoriesDevicesAndMissingFilesAreIOErrors() {
        let dir = Fixtures.temporaryDirectory().path
        let cases = [(dir, "cannot read: is a directory"),
                     ("/dev/null", "cannot read: not a regular file"),
                     (dir + "/missing.json", "cannot read: no such file or directory")]
        for (path, message) in cases {
            let e = #expect(throws: SDUIError.self, "\(path)") { _ = try FileInput.read(path, limit: 100) }
            #expect(e?.category == .io && e?.message == message && e?.input == path, "\(path)")
        }
    }

    /// A pipe has no size up front: it is refused once it passes the limit.
    @Test func aPipeIsCutAtItsLimit() throws {
        let path = Fixtures.temporaryDirectory().appendingPathComponent("fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        let writer = Thread {
            if let h = FileHandle(forWritingAtPath: path) {
                h.write(Data(repeating: UInt8(ascii: "x"), count: 10))
                try? h.close()
            }
        }
        writer.start()
        let e = #expect(throws: SDUIError.self) { _ = try FileInput.read(path, limit: 5) }
        #expect(e?.category == .limit && e?.message == "input is over the limit of 5 bytes" && e?.input == path)
    }
}
