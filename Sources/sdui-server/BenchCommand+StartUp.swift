// BenchCommand+StartUp.swift - `sdui bench start-up`: what starting this
// binary costs, against the floor of starting any process.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUIBench
import SDUICLI

extension BenchCommand {
    struct StartUp: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start-up",
            abstract: "Start-up: `sdui --version` and `sdui render` of an example screen in fresh processes, vs /bin/true and the render's own work.",
            discussion: """
            Each launch is a fresh process (posix_spawn, timed from the spawn to the exit), the \
            methods taking turns; medians. `sdui` is the client front beside this executable \
            (it runs render and --version itself); `sdui-server --version` is the whole command set's \
            start-up; sdui-parser-floor (beside this executable, built by scripts/build-release.sh) parses \
            render's command line with the argument parser alone and does nothing: the floor of a \
            Swift command line with those options; sdui-stack-floor does the same in a program that also \
            links Foundation and FoundationNetworking, as every `sdui` command does: the floor of any \
            client command with render's options. `sdui render` reports its own work (from its run to its output written) and the rest of \
            its wall time is start-up: the loader, the runtime, the argument parser. Build with \
            scripts/build-release.sh for real figures.

            Example: sdui bench start-up --launches 200 --examples Examples
            """)

        @Option(help: "Launches per method.")
        var launches = 100

        @Option(help: "The examples folder (its screens/checkout.json and core-pack.json.gz are rendered).")
        var examples = "Examples"

        @Flag(help: "Print one JSON object: the medians in milliseconds.")
        var json = false

        /// The floors, by sample key: the argument parser alone, and with
        /// Foundation and FoundationNetworking linked.
        static let floors = [("floor", "sdui-parser-floor"), ("stackFloor", "sdui-stack-floor")]

        /// The number a launch reported on stderr as `KEY N` (its last
        /// such line), or nil.
        static func reported(_ key: String, in stderr: String) -> Double? {
            stderr.split(separator: "\n").last(where: { $0.hasPrefix(key + " ") })
                .flatMap { Double($0.dropFirst(key.count + 1)) }
        }

        /// Launches in range before anything runs.
        func validate() throws {
            try checkRange(launches, in: 1...100_000, "--launches")
        }

        func run() throws {
            try reportingErrors {
                // The `sdui` a user starts is the client front beside this
                // executable (`sdui-server`); this one when there is none.
                let server = ExecutablePath.current().path
                let me = ExecutablePath.installedBeside("sdui") ?? server
                // The floors (sample key, executable): each parses render's
                // command line and does nothing (bench/Sources/FloorShape).
                let floors = Self.floors.compactMap { key, name in ExecutablePath.installedBeside(name).map { (key, $0) } }
                let screen = URL(fileURLWithPath: examples).appendingPathComponent("screens/checkout.json").path
                let pack = URL(fileURLWithPath: examples).appendingPathComponent("core-pack.json.gz").path
                let render = ["render", screen, "--pack", pack, "--out", "/dev/null", "--report-work"]
                let loadBefore = BenchMachine.load1()
                var samples: [String: [Double]] = [:]
                for _ in 0..<launches {
                    samples["true", default: []].append(try StartUpBenchmark.launch("/bin/true", []).ms)
                    samples["version", default: []].append(try StartUpBenchmark.launch(me, ["--version"]).ms)
                    samples["serverVersion", default: []].append(try StartUpBenchmark.launch(server, ["--version"]).ms)
                    let r = try StartUpBenchmark.launch(me, render)
                    guard let work = Self.reported("work-ms", in: r.stderr) else {
                        throw SDUIError(.schema, "sdui render reported no work-ms: \(r.stderr)")
                    }
                    for (key, path) in floors {
                        let f = try StartUpBenchmark.launch(path, render)
                        samples[key, default: []].append(f.ms)
                        if let parse = Self.reported("parse-ms", in: f.stderr) {
                            samples[key + "Parse", default: []].append(parse)
                        }
                    }
                    samples["render", default: []].append(r.ms)
                    samples["renderWork", default: []].append(work)
                    if let parse = Self.reported("parse-ms", in: r.stderr) {
                        samples["renderParse", default: []].append(parse)
                    }
                }
                let m = samples.mapValues { FirstPaintBenchmark.median($0) }
                let machine = BenchMachine(loadBefore: loadBefore, cores: FirstPaintBenchmark.usableCores)
                let size = (try? FileManager.default.attributesOfItem(atPath: me)[.size] as? Int) ?? 0
                let serverSize = (try? FileManager.default.attributesOfItem(atPath: server)[.size] as? Int) ?? 0
                if json {
                    var out = m
                    out["binaryBytes"] = Double(size)
                    out["serverBinaryBytes"] = Double(serverSize)
                    out["load1Before"] = machine.loadBefore
                    out["load1After"] = BenchMachine.load1()
                    out["cores"] = Double(machine.cores)
                    try printJSON(out)
                    return
                }
                print(machine.line())
                print("start-up: \(launches) launches per method round-robin, medians")
                print("  sdui: \(me), \(size) bytes; sdui-server: \(server), \(serverSize) bytes")
                print("launch                                           median ms")
                for (key, label) in [("true", "/bin/true (the floor of any process)"), ("version", "sdui --version"),
                                     ("serverVersion", "sdui-server --version (the whole command set)"),
                                     ("render", "sdui render checkout.json (wall)"),
                                     ("renderWork", "  its own work (reported by the process)"),
                                     ("renderParse", "  before it: parsing the command line"),
                                     ("floor", "argument parser alone, render's options (wall)"),
                                     ("floorParse", "  its parse"),
                                     ("stackFloor", "the same with Foundation linked (wall)"),
                                     ("stackFloorParse", "  its parse")] {
                    guard let v = m[key] else { continue }
                    print(label.padding(toLength: 48, withPad: " ", startingAt: 0) + String(format: "%10.2f", v))
                }
                print(String(format: "render: wall / own work %.2f; start-up (wall - work) %.2f ms", m["render"]! / m["renderWork"]!,
                             m["render"]! - m["renderWork"]!))
                for (key, what) in [("floor", "the argument parser's floor"), ("stackFloor", "the floor with Foundation")] {
                    guard let f = m[key] else { continue }
                    print(String(format: "render's start-up above %@: %.2f ms; the best wall / own work with that floor: %.2f",
                                 what, m["render"]! - m["renderWork"]! - f, (f + m["renderWork"]!) / m["renderWork"]!))
                }
            }
        }
    }
}
#endif
