// DocsCheckTests.swift - scripts/check-docs.py finds an undocumented public declaration and a comment or schema
// description that cites a requirement document, and passes on this tree.
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

    /// A doc comment, a C comment or a schema description that cites a
    /// requirement document fails the check, named by file and line; an
    /// RFC's section and text in a string literal do not.
    @Test func aCitationOfARequirementDocumentFailsTheCheck() throws {
        let root = Fixtures.temporaryDirectory()
        for dir in ["Sources/SDUI", "include/sdui", "csrc", "schemas"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        try Data("""
            /// Documented; a 304 needs If-None-Match (RFC 9110 §15.4.5).
            public struct Cited {
                /// Most ids in one request (seed 000 §5.2).
                public var batch = "https://cdn.example.com//seed 1"   // §5.2 again
            }
            """.utf8).write(to: root.appendingPathComponent("Sources/SDUI/Cited.swift"))
        try Data("""
            /* cited.h - a header. */
            /* Schema (Seed 000): an object. */
            int sdui_cited(void);
            """.utf8).write(to: root.appendingPathComponent("include/sdui/cited.h"))
        try Data("const char *sdui_url = \"http://x/seed 1\"; /* fine */\n".utf8)
            .write(to: root.appendingPathComponent("csrc/cited.c"))
        try Data("""
            {
              "title": "Cited",
              "description": "One token (seed 000 §6.1)."
            }
            """.utf8).write(to: root.appendingPathComponent("schemas/cited.json"))
        let r = try check(["--root", root.path])
        #expect(r.status == 1)
        #expect(r.out.contains("Sources/SDUI/Cited.swift:3: cites a requirement document: /// Most ids in one request (seed 000 §5.2)."), "\(r.out)")
        #expect(r.out.contains("Sources/SDUI/Cited.swift:4: cites a requirement document: // §5.2 again"), "\(r.out)")
        #expect(r.out.contains("include/sdui/cited.h:2: cites a requirement document: /* Schema (Seed 000): an object. */"), "\(r.out)")
        #expect(r.out.contains("schemas/cited.json:3: cites a requirement document: \"description\": One token (seed 000 §6.1)."), "\(r.out)")
        #expect(!r.out.contains("Cited.swift:1:") && !r.out.contains("csrc/cited.c"), "\(r.out)")
        #expect(r.out.contains("SDUI: 0 of 2 public declarations without a doc comment"), "\(r.out)")
        #expect(r.out.contains("4 citations of a requirement document"), "\(r.out)")
    }

    /// This tree passes both checks: every public declaration documented, no citation.
    @Test func everyPublicDeclarationOfThisTreeIsDocumented() throws {
        let r = try check([])
        #expect(r.status == 0, "\(r.out)")
    }

    /// No text a user sees (messages, help, the OpenAPI document) cites the
    /// requirement documents, which a user does not have.
    @Test func userFacingTextCitesNoRequirementDocument() throws {
        let root = Fixtures.repositoryRoot
        var found: [String] = []
        let sources = FileManager.default.enumerator(at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)!
        for case let url as URL in sources where url.pathExtension == "swift" {
            for (n, line) in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                // Text in quotes on a code line, or a multi-line help string.
                let quoted = code.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
                    .filter { $0.offset % 2 == 1 }.map(\.element).joined(separator: " ")
                if quoted.range(of: #"seed 0\d\d|seed \d{3}"#, options: .regularExpression) != nil {
                    found.append("\(url.lastPathComponent):\(n + 1)")
                }
            }
        }
        let openapi = try String(contentsOf: root.appendingPathComponent("schemas/openapi.json"), encoding: .utf8)
        if openapi.contains("seed 0") { found.append("schemas/openapi.json") }
        #expect(found.isEmpty, "\(found)")
    }
}
