// BenchCommand+A11y.swift - `sdui bench a11y`: the accessibility lint's time
// per screen, beside resolving the screen alone, with and without the
// browser layout pass.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICLI

extension BenchCommand {
    struct A11y: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "a11y",
            abstract: "Accessibility lint time per screen: resolve alone, resolve + lint, and the Chromium layout pass.",
            discussion: """
            Every screen of DIR (default Examples) is resolved as `sdui a11y lint` resolves it, \
            then linted; the layout pass lays each one out in headless Chromium 320 px wide at \
            text scale 3.1 (one browser run per screen).  Medians over rounds, per screen.

            Example: sdui bench a11y Examples --rounds 9 --layout-rounds 3
            """)

        @Argument(help: "A folder in the Examples/ layout.")
        var dir = "Examples"

        @Option(help: "Rounds of resolve and lint.")
        var rounds = 9

        @Option(help: "Rounds of the layout pass (0: leave it out).")
        var layoutRounds = 3

        @Flag(help: "Print one JSON object: the medians in ms per screen.")
        var json = false

        func validate() throws {
            try checkRange(rounds, in: 1...1_000, "--rounds")
            try checkRange(layoutRounds, in: 0...100, "--layout-rounds")
        }

        /// What is timed.
        enum Method: String { case resolve, resolveAndLint, layoutPass }

        func run() async throws {
            let machine = BenchMachine.start()
            try await reportingErrors {
                let clock = ContinuousClock()
                func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15 }
                func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
                var resolve: [Double] = [], lint: [Double] = [], layout: [Double] = []
                var screens = 0, findings = 0
                let linter = AccessibilityLint()
                for _ in 0..<rounds {
                    let t0 = clock.now
                    let trees = try await A11yCommand.Lint.resolve(target: dir, tokens: nil, pack: nil)
                    let t1 = clock.now
                    findings = trees.reduce(0) { $0 + linter.findings(in: $1).count }
                    let t2 = clock.now
                    screens = trees.count
                    resolve.append(ms(t1 - t0) / Double(trees.count))
                    lint.append(ms(t2 - t0) / Double(trees.count))
                }
                if layoutRounds > 0 {
                    let check = try TextLayoutCheck()
                    let large = try await A11yCommand.Lint.resolve(target: dir, tokens: nil, pack: nil,
                                                                   textScale: TextLayoutCheck.textScale)
                    for _ in 0..<layoutRounds {
                        let t0 = clock.now
                        for tree in large { _ = try await check.findings(in: tree) }
                        layout.append(ms(clock.now - t0) / Double(large.count))
                    }
                }
                var medians: [Method: Double] = [.resolve: median(resolve), .resolveAndLint: median(lint)]
                if !layout.isEmpty { medians[.layoutPass] = median(layout) }
                if json {
                    try printJSON(machine.json(medians))
                    return
                }
                print(machine.line())
                print("a11y: \(screens) screens of \(dir), \(findings) finding(s); \(rounds) rounds (\(layoutRounds) of the layout pass); medians per screen")
                print("method".padding(toLength: 40, withPad: " ", startingAt: 0) + "   ms/screen   ratio")
                let base = medians[.resolve]!
                for (label, m) in [("resolve alone", Method.resolve), ("resolve + lint", .resolveAndLint),
                                   ("layout pass (Chromium, 320 px, 3.1×)", .layoutPass)] {
                    guard let v = medians[m] else { continue }
                    print(label.padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%12.3f %7.2f", v, v / base))
                }
            }
        }
    }
}
#endif
