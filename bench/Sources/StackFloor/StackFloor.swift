// StackFloor.swift - `sdui-stack-floor`, the second floor of `sdui bench
// start-up`: the parser floor's command line (FloorShape) in a program that
// also links what every client command of `sdui` carries: Foundation and
// FoundationNetworking (the client library's HTTP transport is URLSession),
// with libcurl opened on first use as the real executables do
// (CurlLoader).  It touches URLSession's type so the module is linked, then
// parses and does nothing: the least any `sdui` command with render's
// options can take before its own work.
#if Server
import FloorShape
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@main
enum StackFloor {
    /// Names URLSession (so FoundationNetworking is linked and initialized
    /// as in `sdui`), then parses and runs as the parser floor does.
    static func main() {
        let session: AnyClass = URLSession.self
        if ProcessInfo.processInfo.environment["SDUI_STACK_FLOOR_SAY"] != nil {
            FileHandle.standardError.write(Data("\(session)\n".utf8))
        }
        FloorRoot.parseAndRun()
    }
}
#else
@main
enum StackFloor {
    /// Built without the "Server" trait: nothing to measure.
    static func main() {}
}
#endif
