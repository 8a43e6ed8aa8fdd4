// DocsCheckTests.swift - scripts/check-docs.py finds an undocumented public declaration, and passes on this tree.
import Foundation
import SDUITestSupport
import Testing

@Suite struct DocsCheckTests {
    /// Runs the checker with `args`; returns its status and output.
    func check(_ args: [String]) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", Fixtures.repositoryRoot.appendingPathComponent("scripts/check-docs.py").path] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: out, as: UTF8.self))
    }

    @Test func anUndocumentedDeclarationFailsTheCheck() throws {
        let root = Fixtures.temporaryDirectory()
        let dir = root.appendingPathComponent("Sources/SDUI")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("""
            /// Documented.
            public struct Fine {
                /// Documented too.
                @discardableResult
                public func ok() -> Int { 1 }
                public var bare = 0
            }
            """.utf8).write(to: dir.appendingPathComponent("Fine.swift"))
        let r = try check(["--root", root.path])
        #expect(r.status == 1)
        #expect(r.out.contains("Sources/SDUI/Fine.swift:6: public var bare = 0"), "\(r.out)")
        #expect(r.out.contains("SDUI: 1 of 3 public declarations without a doc comment"), "\(r.out)")
    }

    @Test func everyPublicDeclarationOfThisTreeIsDocumented() throws {
        let r = try check([])
        #expect(r.status == 0, "\(r.out)")
    }
}
