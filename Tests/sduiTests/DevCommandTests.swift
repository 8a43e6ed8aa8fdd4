// DevCommandTests.swift - `sdui dev` as a user starts it: through the client
// front, the line that says where it serves, the warning of a wider bind,
// SIGTERM, and the errors of a folder or port that cannot be.
#if Server
import Foundation
import SDUITestSupport
import Testing

@Suite(.serialized) struct DevCommandTests {
    /// Starts `sdui dev ARGS` and reads standard error up to its "serving" line.
    static func start(_ args: [String]) throws -> (Process, Pipe, String) {
        let process = Process()
        process.executableURL = sduiExecutable()
        process.arguments = ["dev"] + args
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var seen = ""
        while !(seen.contains("sdui dev: serving") && seen.hasSuffix("\n")) {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        return (process, err, seen)
    }

    /// A scratch copy of Examples/ (the playground writes its journal under it).
    static func examples() throws -> URL {
        let dir = Fixtures.temporaryDirectory().appendingPathComponent("Examples")
        try FileManager.default.copyItem(at: Fixtures.repositoryRoot.appendingPathComponent("Examples"), to: dir)
        return dir
    }

    @Test func servesOnLoopbackAndStopsOnSIGTERM() async throws {
        let dir = try Self.examples()
        let (process, err, seen) = try Self.start([dir.path, "--port", "0"])
        #expect(seen.contains("sdui dev: serving \(dir.path) at http://127.0.0.1:"), "\(seen)")
        #expect(!seen.contains("warning"))
        let port = try #require(seen.components(separatedBy: "http://127.0.0.1:").last.flatMap { Int($0.prefix { $0.isNumber }) })
        let index = try await HTTPProbe.get(URL(string: "http://127.0.0.1:\(port)/")!)
        #expect(index.status == 200 && index.text.contains("/view/screen/checkout"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(".sdui-dev/dev.sqlite").path))
        process.terminate()
        _ = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func aWiderBindSaysSo() throws {
        let dir = try Self.examples()
        let (process, err, seen) = try Self.start([dir.path, "--port", "0", "--host", "0.0.0.0"])
        defer {
            process.terminate()
            _ = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
        }
        #expect(seen.contains("sdui dev: warning: bound to 0.0.0.0, not loopback"), "\(seen)")
        #expect(seen.contains("sdui dev: serving \(dir.path) at http://0.0.0.0:"), "\(seen)")
    }

    @Test func aMissingFolderOrABadPortIsAnError() async throws {
        let missing = try await sdui(["dev", "/nonexistent-\(UUID().uuidString)", "--port", "0"])
        #expect(missing.status == 1 && missing.err.contains("no such folder"), "\(missing.err)")
        let port = try await sdui(["dev", try Self.examples().path, "--port", "70000", "--json"])
        #expect(port.status == 1 && port.err.contains("--port 70000") && port.err.contains("\"error\""), "\(port.err)")
    }
}
#endif
