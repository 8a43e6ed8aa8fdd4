// Floor.swift - `sdui-parser-floor`, a floor for `sdui bench start-up`: a
// program that links only the argument parser (no Foundation, no SDUIKit)
// and parses a command line of the same shape as `sdui render`'s
// (FloorShape), then does nothing.  Its wall time is what starting a Swift
// program and parsing that command line cost before any work; it writes the
// parse's milliseconds on stderr as `parse-ms N`.
#if Server
import FloorShape

@main
enum ParserFloor {
    /// Parses and runs, as the real command's runner does.
    static func main() { FloorRoot.parseAndRun() }
}
#else
@main
enum ParserFloor {
    /// Built without the "Server" trait: nothing to measure.
    static func main() {}
}
#endif
