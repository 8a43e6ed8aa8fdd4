// BenchCommand.swift - `sdui bench first-paint|disk|resolve|network`.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUIBench

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks (build with -c release for real figures).",
        subcommands: [FirstPaint.self, Disk.self, Resolve.self, Network.self, Store.self]
    )

    struct FirstPaint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "first-paint",
            abstract: "Open + 20 tokens vs zlib inflate, jansson, JSONDecoder and JSONSerialization.",
            discussion: """
                With PACK, measures that pack.  Without, generates a pack at the \
                600 KB budget and one five times larger, and measures both in one run.
                """)

        @Argument(help: "Pack files to measure (default: two generated packs).")
        var packs: [String] = []

        @Flag(help: "Print one JSON object per pack: median ms per method.")
        var json = false

        @Option(help: "Rounds per method.")
        var iterations = 15

        @Option(help: "Budget in bytes of the generated pack.")
        var budget = 600_000

        @Option(help: .hidden)
        var probe: String?

        /// Numbers in range before anything is generated or measured.
        func validate() throws {
            try checkRange(iterations, in: 1...10_000, "--iterations")
            try checkRange(budget, in: 1...(1 << 30), "--budget", unit: "bytes")
        }

        func run() throws {
            try reportingErrors {
                if let probe {
                    // Child mode: one method, once, in a fresh process; print the peak growth.
                    guard let method = FirstPaintBenchmark.Method(rawValue: probe),
                          let path = packs.first else {
                        throw SDUIError(.argument, "--probe needs a method and a pack")
                    }
                    let bench = try FirstPaintBenchmark(packBytes: try readFile(path, limit: PackLimits.default.maxCompressedBytes))
                    print(try bench.peakGrowth(method).map(String.init) ?? "-1")
                    return
                }
                var inputs: [(name: String, path: String)] = packs.map { ($0, $0) }
                if inputs.isEmpty {
                    let dir = FileManager.default.temporaryDirectory
                        .appendingPathComponent("sdui-bench-\(getpid())")
                    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                    for (name, b) in [("budget", budget), ("5x budget", budget * 5)] {
                        let (data, n) = try PackGenerator().pack(budget: b)
                        let url = dir.appendingPathComponent("generated-\(b).gz")
                        try data.write(to: url)
                        if !json { print("generated \(name) pack: \(n) tokens, \(data.count) bytes gzipped") }
                        inputs.append(("generated \(name)", url.path))
                    }
                }
                for input in inputs {
                    try measure(name: input.name, path: input.path)
                }
            }
        }

        /// Peak memory of one method, measured in a child process of this binary.
        private func childPeak(_ m: FirstPaintBenchmark.Method, path: String) -> Int? {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            if !FileManager.default.fileExists(atPath: "/proc/self/exe") {
                p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            }
            p.arguments = ["bench", "first-paint", "--probe", m.rawValue, path]
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = FileHandle.nullDevice
            guard (try? p.run()) != nil else { return nil }
            let out = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            let v = Int(String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            return p.terminationStatus == 0 && (v ?? -1) >= 0 ? v : nil
        }

        struct Report: Encodable {
            var pack: String
            var tokens: Int
            var compressedBytes: Int
            var rawBytes: Int
            var floor: Double
            var libdeflate: Double
            var sdui: Double
            var sduiOneThread: Double
            var jansson: Double
            var jsondecoder: Double
            var jsonserialization: Double
            var peakBytes: [String: Int]

            enum CodingKeys: String, CodingKey {
                case pack, tokens, compressedBytes, rawBytes, floor, libdeflate, sdui
                case sduiOneThread
                case jansson, jsondecoder, jsonserialization, peakBytes
            }
        }

        private func measure(name: String, path: String) throws {
            let bench = try FirstPaintBenchmark(packBytes: try readFile(path, limit: PackLimits.default.maxCompressedBytes))
            let medians = try bench.measure(iterations: iterations)
            var peaks: [String: Int] = [:]
            for m in FirstPaintBenchmark.Method.allCases {
                peaks[m.rawValue] = childPeak(m, path: path)
            }
            let info = bench.info
            let r = Report(pack: name, tokens: info.tokens, compressedBytes: info.compressedBytes,
                           rawBytes: info.rawBytes, floor: medians[.floor]!,
                           libdeflate: medians[.libdeflate]!, sdui: medians[.sdui]!,
                           sduiOneThread: medians[.sduiOneThread]!,
                           jansson: medians[.jansson]!, jsondecoder: medians[.jsondecoder]!,
                           jsonserialization: medians[.jsonserialization]!, peakBytes: peaks)
            if json { try printJSON(r); return }
            print("\n\(name): \(info.tokens) tokens, \(info.compressedBytes) bytes gzipped, \(info.rawBytes) bytes of JSON")
            print("method                        median ms   x floor   peak MiB")
            let labels: [(FirstPaintBenchmark.Method, String)] = [
                (.floor, "zlib inflate (floor)"), (.libdeflate, "libdeflate inflate"),
                (.sdui, "sdui open + 20 tokens"), (.sduiOneThread, "  same, scan on one thread"),
                (.jansson, "jansson whole document"),
                (.jsondecoder, "JSONDecoder (Codable)"), (.jsonserialization, "JSONSerialization"),
            ]
            let floor = medians[.floor]!
            for (m, label) in labels {
                let ms = medians[m]!
                let peak = peaks[m.rawValue].map { String(format: "%8.1f", Double($0) / 1_048_576) } ?? "       -"
                print(label.padding(toLength: 28, withPad: " ", startingAt: 0)
                      + String(format: "%11.2f %9.2f", ms, ms / floor) + "   " + peak)
            }
        }
    }

    struct Disk: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disk cache: a 50-token batch write and a 50-id read vs one row at a time.")

        @Option(help: "Folder for the temporary database (default: the system temp folder).")
        var directory: String?

        @Option(help: "Rounds.")
        var rounds = 30

        /// Rounds in range before anything is measured.
        func validate() throws { try checkRange(rounds, in: 1...1_000_000, "--rounds") }

        @Flag(help: "Sync each commit only as far as the OS (survives a process crash, not a power cut).")
        var noSync = false

        @Flag(help: "Print one JSON object: median ms per method.")
        var json = false

        func run() async throws {
            let dir = directory.map { URL(fileURLWithPath: $0) }
                    ?? FileManager.default.temporaryDirectory
            let medians = try await reportingErrors {
                try await DiskBenchmark(directory: dir, durable: !noSync).measure(rounds: rounds)
            }
            try report(medians)
        }

        private func report(_ medians: [DiskBenchmark.Method: Double]) throws {
            if json {
                try printJSON(Dictionary(uniqueKeysWithValues: medians.map { ($0.key.rawValue, $0.value) }))
                return
            }
            print("disk cache, \(noSync ? "synchronous=NORMAL" : "durable (synchronous=FULL)"), \(rounds) rounds")
            print("work                              median ms   ratio")
            let pairs: [(DiskBenchmark.Method, DiskBenchmark.Method, String, String)] = [
                (.batchWrite, .rowWrites, "write 50 tokens, one batch", "  same, 50 single-row writes"),
                (.batchRead, .rowReads, "read 50 ids, one query", "  same, 50 single-id reads"),
            ]
            for (batch, rows, l1, l2) in pairs {
                let b = medians[batch]!, r = medians[rows]!
                print(l1.padding(toLength: 32, withPad: " ", startingAt: 0) + String(format: "%11.3f %7.2f", b, 1.0))
                print(l2.padding(toLength: 32, withPad: " ", startingAt: 0) + String(format: "%11.3f %7.2f", r, r / b))
            }
            let g = medians[.warmGet]!, gb = medians[.warmGetBatch]!
            print(String(format: "repository get, warm (memory)   %8.3f us per id (50 calls)", g * 1000 / 50))
            print(String(format: "repository get(50 ids), warm    %8.3f us per id", gb * 1000 / 50))
            let dg = medians[.diskGetBatch]!
            print(String(format: "repository get(50 ids), disk    %8.3f us per id (memory empty)", dg * 1000 / 50))
        }
    }

    struct Resolve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve a 50-token screen from a warm cache vs JSONDecoder decoding the resolved tree.")

        @Option(help: "The Examples folder (tokens, screens, themes).")
        var examples = "Examples"

        @Option(help: "Rounds.")
        var rounds = 200

        /// Rounds in range before anything is measured.
        func validate() throws { try checkRange(rounds, in: 1...1_000_000, "--rounds") }

        @Flag(help: "Print one JSON object: median ms per method.")
        var json = false

        func run() throws {
            let result = try reportingErrors {
                try ResolveBenchmark(examples: URL(fileURLWithPath: examples)).measure(rounds: rounds)
            }
            let m = result.medians
            if json {
                try printJSON(Dictionary(uniqueKeysWithValues: m.map { ($0.key.rawValue, $0.value) }))
                return
            }
            let base = m[.resolve]!
            print("resolve: \(result.tokens) tokens, \(result.nodes) render nodes, tree JSON \(result.treeBytes) bytes, \(rounds) rounds")
            print("method                                   median ms   × resolve")
            for (method, label) in [(ResolveBenchmark.Method.resolve, "resolve from warm memory cache"),
                                    (.jsonDecoder, "JSONDecoder: decode the resolved tree"),
                                    (.jsonSerialization, "JSONSerialization: parse the tree")] {
                let v = m[method]!
                print(label.padding(toLength: 40, withPad: " ", startingAt: 0)
                      + String(format: "%10.4f   %8.2f", v, v / base))
            }
        }
    }

    struct Store: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The scenario-data store: set with observers, re-resolve after one change, expressions.",
            discussion: """
            set: 100,000 set calls with 10 observers on the written path and 0, 1,000 or \
            10,000 on unrelated paths (flat is the goal).  re-resolve: a 1,001-node screen \
            bound to the store, one value changed, ScreenResolver.update against a whole \
            resolve.  expression: a typical condition evaluated by the C core against the \
            same condition as a Swift closure over JSONValue.  Medians over rounds.
            """)

        @Option(help: "Rounds.")
        var rounds = 7

        @Option(help: "set calls per round and configuration.")
        var sets = 100_000

        @Option(help: "Expression evaluations per round and method.")
        var evaluations = 100_000

        @Flag(help: "Print one JSON object: the medians by method.")
        var json = false

        func validate() throws {
            try checkRange(rounds, in: 1...1_000, "--rounds")
            try checkRange(sets, in: 1...10_000_000, "--sets")
            try checkRange(evaluations, in: 1...10_000_000, "--evaluations")
        }

        func run() throws {
            let r = try reportingErrors { try StoreBenchmark().measure(rounds: rounds, sets: sets, evaluations: evaluations) }
            let m = r.medians
            if json {
                try printJSON(Dictionary(uniqueKeysWithValues: m.map { ($0.key.rawValue, $0.value) }))
                return
            }
            func row(_ label: String, _ v: Double, _ unit: String, _ ratio: Double) {
                print(label.padding(toLength: 52, withPad: " ", startingAt: 0)
                      + String(format: "%12.3f %-3@ %8.2f", v, unit, ratio))
            }
            print("store: \(r.sets) sets per configuration, \(rounds) rounds (medians)")
            print("method".padding(toLength: 52, withPad: " ", startingAt: 0) + "      median       ratio")
            let s0 = m[.set0]!
            row("set, 10 observers, 0 unrelated", s0, "ns", 1)
            row("set, 10 observers, 1,000 unrelated", m[.set1k]!, "ns", m[.set1k]! / s0)
            row("set, 10 observers, 10,000 unrelated", m[.set10k]!, "ns", m[.set10k]! / s0)
            let w = m[.resolve]!
            row("resolve the whole \(r.nodes)-node screen", w, "ms", 1)
            row("update after one change (\(r.changedNodes) node changed)", m[.update]!, "ms", m[.update]! / w)
            let f = m[.exprSwift]!
            row("condition, Swift closure over JSONValue", f, "ns", 1)
            row("condition, C core (CompiledExpression)", m[.exprC]!, "ns", m[.exprC]! / f)
            print(String(format: "evaluations per second: C core %.0f, Swift closure %.0f", 1e9 / m[.exprC]!, 1e9 / f))
        }
    }

    struct Network: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "50 tokens through a loopback registry, cold, vs the bare GET and JSONSerialization.")

        @Option(help: "Folder for the temporary registry and caches (default: the system temp folder).")
        var directory: String?

        @Option(help: "Rounds.")
        var rounds = 30

        /// Rounds in range before anything is measured.
        func validate() throws { try checkRange(rounds, in: 1...1_000_000, "--rounds") }

        @Flag(help: "Sync each commit only as far as the OS.")
        var noSync = false

        @Flag(help: "Print one JSON object: median ms per method.")
        var json = false

        func run() async throws {
            let dir = directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
            let m = try await reportingErrors {
                try await NetworkBenchmark(directory: dir, durable: !noSync).measure(rounds: rounds)
            }
            if json {
                try printJSON(Dictionary(uniqueKeysWithValues: m.map { ($0.key.rawValue, $0.value) }))
                return
            }
            print("network path, 50 tokens from a registry on 127.0.0.1, \(rounds) rounds, "
                  + (noSync ? "disk synchronous=NORMAL" : "durable disk"))
            print("work                                          median ms   × GET")
            let floor = m[.httpGet]!
            for (method, label) in [(NetworkBenchmark.Method.httpGet, "HTTP GET of the batch alone (floor)"),
                                    (.jsonSerialization, "JSONSerialization of the answer"),
                                    (.coldNoDisk, "repository get(50), cold, no disk cache"),
                                    (.cold, "repository get(50), cold, disk cache"),
                                    (.coldSigned, "  same, HS256-signed and verified")] {
                let v = m[method]!
                print(label.padding(toLength: 44, withPad: " ", startingAt: 0)
                      + String(format: "%10.3f   %6.2f", v, v / floor))
            }
        }
    }
}
#endif
