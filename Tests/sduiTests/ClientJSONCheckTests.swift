// ClientJSONCheckTests.swift - scripts/check-client-json.sh finds JSONDecoder
// and JSONSerialization in a client module, by file and line, whatever
// comments and string literals surround them; passes code that only names
// them in comments, other modules, and this tree.
import Foundation
import SDUITestSupport
import Testing

@Suite struct ClientJSONCheckTests {
    /// Runs the check on `root` (this repository when nil); returns its
    /// status and what it printed on standard output.
    func check(_ root: URL?) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["bash", Fixtures.repositoryRoot.appendingPathComponent("scripts/check-client-json.sh").path]
            + (root.map { ["--root", $0.path] } ?? [])
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: out, as: UTF8.self))
    }

    /// A scratch tree with `files` (path → text) written into it.
    func tree(_ files: [String: String]) throws -> URL {
        let root = Fixtures.temporaryDirectory()
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    /// Names only in comments (nested block comments too), the allowed
    /// `JSONValueDecoder`, a longer name, and `//` or quotes inside string
    /// literals that must not be taken for a comment or a string's end.
    static let clean = #"""
        import Foundation
        // JSONDecoder in a line comment
        let a = JSONValueDecoder()
        /* JSONSerialization /* nested JSONDecoder */ still a comment JSONDecoder
           JSONDecoder */ let b = 1
        let u = "http://x" // JSONSerialization after a string
        let s = "a \(f("//", ")")) b"
        let r = #"raw "quoted" \(x) // in the string"#
        let m = """
            text with "quotes" and // slashes \
            continued
            """
        let ok = MyJSONDecoderThing()
        """#

    @Test func usesInClientModulesFailTheCheckByFileAndLine() throws {
        let offending = Self.clean + #"""

            let d = try JSONDecoder().decode(T.self, from: data)
            let s2 = "http://x"; let e = JSONSerialization.self
            let i = "a \(f("//")) b"; let g = Foundation.JSONDecoder()
            let m2 = """
                // not a comment
                """; let h = JSONSerialization.self
            """#
        let root = try tree(["Sources/SDUIFlow/Runtime/Bad.swift": offending,
                             "Sources/SDUICore/Fine.swift": Self.clean,
                             "Sources/SDUIServer/Server.swift": "let d = JSONDecoder()\n"])
        let r = try check(root)
        #expect(r.status == 1)
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines == [
            "Sources/SDUIFlow/Runtime/Bad.swift:14: let d = try JSONDecoder().decode(T.self, from: data)",
            #"Sources/SDUIFlow/Runtime/Bad.swift:15: let s2 = "http://x"; let e = JSONSerialization.self"#,
            #"Sources/SDUIFlow/Runtime/Bad.swift:16: let i = "a \(f("//")) b"; let g = Foundation.JSONDecoder()"#,
            #"Sources/SDUIFlow/Runtime/Bad.swift:19: """; let h = JSONSerialization.self"#,
        ], "\(r.out)")
    }

    @Test func eachClientModuleIsChecked() throws {
        for module in ["SDUICore", "SDUI", "SDUIStore", "SDUIFlow"] {
            let root = try tree(["Sources/\(module)/Deep/Er/X.swift": "import Foundation\nlet x = JSONSerialization.self\n"])
            let r = try check(root)
            #expect(r.status == 1, "\(module)")
            #expect(r.out == "Sources/\(module)/Deep/Er/X.swift:2: let x = JSONSerialization.self\n", "\(module): \(r.out)")
        }
    }

    @Test func commentsAndOtherModulesPass() throws {
        let root = try tree(["Sources/SDUI/Fine.swift": Self.clean,
                             "Sources/SDUIServer/Server.swift": "let d = JSONDecoder()\n",
                             "Sources/sdui/Tool.swift": "let s = JSONSerialization.self\n"])
        let r = try check(root)
        #expect(r.status == 0 && r.out.isEmpty, "\(r.out)")
    }

    /// A root without any client module is a usage error, not a pass.
    @Test func aRootWithoutClientModulesIsAnError() throws {
        let r = try check(try tree(["Sources/SDUIServer/Server.swift": "let x = 1\n"]))
        #expect(r.status == 2)
    }

    @Test func thisTreePasses() throws {
        let r = try check(nil)
        #expect(r.status == 0 && r.out.isEmpty, "\(r.out)")
    }
}
