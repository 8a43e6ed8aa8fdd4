// ExecutablePath.swift - where the running executable is, and the programs
// installed beside it: the client front finds `sdui-server` there, and
// `sdui bench start-up` finds the front and its floor.
#if Server
import Foundation

/// The running executable's file and the files beside it.
package enum ExecutablePath {
    /// The running executable, symbolic links resolved (Linux:
    /// /proc/self/exe; elsewhere Foundation's, else argv[0]).
    package static func current() -> URL {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path).resolvingSymlinksInPath()
    }

    /// `name` in the running executable's folder (which may not exist).
    package static func beside(_ name: String) -> URL {
        current().deletingLastPathComponent().appendingPathComponent(name)
    }

    /// `name` in the running executable's folder when it is an executable
    /// file there, else nil.
    package static func installedBeside(_ name: String) -> String? {
        let path = beside(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
#endif
