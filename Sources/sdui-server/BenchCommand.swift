// BenchCommand.swift - `sdui bench first-paint|disk|resolve|network|store|screen`
// (and start-up, in BenchCommand+StartUp.swift).
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUIBench
import SDUICLI
import SDUIRegistryKit

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks (build with -c release for real figures).",
        discussion: """
        Example:
          swift build -c release --traits Server && .build/release/sdui bench first-paint --json
        """,
        subcommands: [FirstPaint.self, Disk.self, Resolve.self, Network.self, Store.self, Screen.self, StartUp.self,
                      ExperimentAssign.self, A11y.self]
    )

    struct FirstPaint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "first-paint",
            abstract: "Open + the first screen's 20 tokens, plain, one-member and seekable, vs the inflate floors and the peers.",
            discussion: """
                Each pack is measured in three encodings: plain as `sdui pack build` writes it (several \
                growing gzip members past 2 MiB of JSON, scanned while the next inflates), the same JSON \
                as one member (as other writers make it; the floors and the engine's open only), and \
                seekable (several members, inflated on first use): the engine's open + the first 20 ids in pack order, the \
                same open + the first screen resolved to a render tree, libdeflate inflate alone (the \
                floor), zlib inflate alone (the reference), and the peers jansson and simdjson. Warm: \
                in this process, the methods taking turns, each timed run after an untimed one of the \
                same method; medians. Fresh: --launches child processes per method, each timing its \
                first run (and counting its minor page faults and peak memory); medians. Without PACK, \
                generates a pack at --budget and one five times larger. Build with -c release for real \
                figures.

                Examples:
                  sdui bench first-paint
                  sdui bench first-paint core.json.gz --rounds 50 --launches 10 --json
                """)

        @Argument(help: "Pack files to measure, plain or seekable (default: two generated packs).")
        var packs: [String] = []

        @Flag(help: "Print one JSON object per pack: medians per encoding and method.")
        var json = false

        @Option(help: "Warm rounds per method.")
        var iterations = 15

        @Option(help: "Fresh processes per method (0: no fresh-process table and no peak memory).")
        var launches = 30

        @Option(help: "Budget in bytes of the generated pack.")
        var budget = 600_000

        @Option(name: .customLong("member-bytes"), help: "JSON bytes of the seekable encoding's first member (default: the core's).")
        var memberBytes = 0

        @Option(name: .customLong("max-member-bytes"), help: "Most JSON bytes of a later member (default: the core's).")
        var maxMemberBytes = 0

        @Flag(help: "Also measure JSONDecoder and JSONSerialization (seconds per run on large packs).")
        var foundation = false

        @Option(help: "Also write the generated packs to this folder (budget.gz, budget.seekable.gz, 5x-budget.gz, …), to measure again as PACK.")
        var save: String?

        @Option(help: "Cores the benchmark may use (0: all it is allowed).  --threads 1 pins it, the children too, to one core: the plain open's split scan then finds no free core, as on a phone whose other cores are busy.")
        var threads = 0

        @Option(name: .customLong("open-limit"), help: .hidden)
        var openLimit = 0

        @Option(help: .hidden)
        var probe: String?

        @Option(help: .hidden)
        var variant: String?

        @Option(help: .hidden)
        var screen: String?

        @Option(name: .customLong("raw-bytes"), help: .hidden)
        var rawBytes = 0

        /// Numbers in range before anything is generated or measured.
        func validate() throws {
            try checkRange(iterations, in: 1...10_000, "--iterations")
            try checkRange(launches, in: 0...10_000, "--launches")
            try checkRange(budget, in: 1...(1 << 30), "--budget", unit: "bytes")
            try checkRange(memberBytes, in: 0...(64 << 20), "--member-bytes", unit: "bytes")
            try checkRange(maxMemberBytes, in: 0...(64 << 20), "--max-member-bytes", unit: "bytes")
            try checkRange(threads, in: 0...1024, "--threads")
        }

        func run() throws {
            try reportingErrors {
                if let probe {
                    try runProbe(probe)
                    return
                }
                if threads > 0 { try FirstPaintBenchmark.pin(cores: threads) }
                let work = FileManager.default.temporaryDirectory.appendingPathComponent("sdui-bench-\(getpid())")
                try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: work) }
                let writer = SeekablePackWriter(memberBytes: memberBytes, maxMemberBytes: maxMemberBytes)
                var inputs: [(name: String, plain: Data, seekable: Data)] = []
                var limits: [PackLimits] = packs.map { _ in .default }
                for path in packs {
                    let both = try FirstPaintBenchmark.encodings(of: try readFile(path, limit: PackLimits.default.maxCompressedBytes),
                                                                 name: path, writer: writer)
                    inputs.append((path, both.plain, both.seekable))
                }
                if packs.isEmpty {
                    for (name, b) in [("budget", budget), ("5x budget", budget * 5)] {
                        let generated = try PackGenerator().pack(budget: b)
                        // A generated pack is measured whatever its size: the
                        // writer and the open take limits raised to fit it.
                        let fitted = FirstPaintBenchmark.fitting(rawBytes: generated.json.count,
                                                                 compressedBytes: generated.json.count,
                                                                 tokens: generated.tokens)
                        var fittedWriter = writer
                        fittedWriter.limits = fitted
                        let seekable = try PackGenerator().seekable(generated, writer: fittedWriter)
                        if let save {
                            let dir = URL(fileURLWithPath: save)
                            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                            let file = name.replacingOccurrences(of: " ", with: "-")
                            try writeFile(generated.plain, to: dir.appendingPathComponent(file + ".gz").path)
                            try writeFile(seekable, to: dir.appendingPathComponent(file + ".seekable.gz").path)
                        }
                        if !json {
                            print("generated \(name) pack: \(generated.tokens) tokens, \(generated.plain.count) bytes gzipped, "
                                  + "\(seekable.count) bytes seekable")
                        }
                        inputs.append(("generated \(name)", generated.plain, seekable))
                        limits.append(fitted)
                    }
                }
                for (i, input) in inputs.enumerated() {
                    try measure(name: input.name, plain: input.plain, seekable: input.seekable,
                                folder: work.appendingPathComponent("\(i)"), limits: i < limits.count ? limits[i] : .default)
                }
            }
        }

        /// Child mode: one case, once, as the first thing this process does
        /// with the pack; prints its `Probe` as JSON.
        private func runProbe(_ probe: String) throws {
            guard let method = FirstPaintBenchmark.Method(rawValue: probe),
                  let variant = FirstPaintBenchmark.Variant(rawValue: variant ?? "plain"),
                  let path = packs.first, let screen else {
                throw SDUIError(.argument, "--probe needs a method, --variant, --screen and a pack")
            }
            let payload = try ScreenPayload(json: try readFile(screen, limit: 1 << 20), source: screen)
            var limits = PackLimits.default
            if openLimit > 0 { limits = FirstPaintBenchmark.fitting(rawBytes: openLimit, compressedBytes: openLimit, tokens: openLimit) }
            let bytes = try readFile(path, limit: limits.maxCompressedBytes)
            var bench = FirstPaintBenchmark(packs: [variant: bytes], screen: payload, rawBytes: rawBytes)
            bench.limits = limits
            bench.files = [variant: URL(fileURLWithPath: path)]
            try printJSON(try bench.probe(.init(variant, method)))
        }

        /// One case's first run in `launches` fresh processes of this binary.
        private func fresh(_ c: FirstPaintBenchmark.Case, pack: URL, screen: URL, rawBytes: Int,
                           limits: PackLimits) throws -> FirstPaintBenchmark.Probe {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/proc/self/exe")
                                  ? "/proc/self/exe" : CommandLine.arguments[0])
            p.arguments = ["bench", "first-paint", "--probe", c.method.rawValue, "--variant", c.variant.rawValue,
                           "--screen", screen.path, "--raw-bytes", String(rawBytes), pack.path]
            if limits != .default {
                p.arguments! += ["--open-limit", String(max(limits.maxInflatedBytes, limits.maxCompressedBytes, limits.maxTokens))]
            }
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            let errData = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else {
                throw SDUIError(.unknown, "the child measuring \(c.method.rawValue) on the \(c.variant.rawValue) pack failed: "
                                + String(decoding: errData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return try JSONDecoder().decode(FirstPaintBenchmark.Probe.self, from: data)
        }

        /// Medians of the fresh-process figures of one case.
        struct Fresh: Encodable {
            var ms: Double
            var minorFaults: Double
            var peakBytes: Double
            var growthBytes: Double
        }

        struct Report: Encodable {
            var pack: String
            var tokens: Int
            var rawBytes: Int
            var plainBytes: Int
            var singleBytes: Int
            var seekableBytes: Int
            var plainMembers: Int
            var seekableMembers: Int
            var seekableMembersTouched: Int
            var firstScreenIds: [String]
            var screenNodes: Int
            var screenIssues: Int
            var rounds: Int
            var launches: Int
            /// The machine while it ran: the 1-minute load before and after,
            /// the cores the benchmark could use (--threads), and the plain
            /// open's process CPU time over its wall time (above 1: the
            /// split scan's second thread ran on a free core).
            var load1Before: Double
            var load1After: Double
            var cores: Int
            var plainOpenCPUPerWall: Double
            var singleOpenCPUPerWall: Double
            /// Median ms by encoding, then method.
            var warm: [String: [String: Double]]
            var fresh: [String: [String: Fresh]]
        }

        private func measure(name: String, plain: Data, seekable: Data, folder: URL, limits: PackLimits) throws {
            let loadBefore = BenchMachine.load1()
            let cores = FirstPaintBenchmark.usableCores
            var (bench, facts) = try FirstPaintBenchmark.prepare(plain: plain, seekable: seekable, name: name, limits: limits)
            let cases = FirstPaintBenchmark.cases(foundation: foundation)
            // The fresh processes read the packs and the screen from files;
            // the engine opens the seekable pack from its file (warm too).
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let files: [FirstPaintBenchmark.Variant: URL] = [.plain: folder.appendingPathComponent("plain.gz"),
                                                            .single: folder.appendingPathComponent("single.gz"),
                                                            .seekable: folder.appendingPathComponent("seekable.gz")]
            for (variant, file) in files { try bench.packs[variant]!.write(to: file) }
            bench.files = [.seekable: files[.seekable]!]
            let timings = try bench.measureWithCPU(rounds: iterations, cases: cases)
            let warm = timings.mapValues(\.ms)
            let screenFile = folder.appendingPathComponent("screen.json")
            try JSONEncoder().encode(bench.screen).write(to: screenFile)
            var probes: [FirstPaintBenchmark.Case: [FirstPaintBenchmark.Probe]] = [:]
            for _ in 0..<launches {
                for c in cases {
                    probes[c, default: []].append(try fresh(c, pack: files[c.variant]!, screen: screenFile, rawBytes: facts.rawBytes,
                                                            limits: limits))
                }
            }
            let fresh = probes.mapValues { ps in
                Fresh(ms: FirstPaintBenchmark.median(ps.map(\.ms)), minorFaults: FirstPaintBenchmark.median(ps.map(\.minorFaults)),
                      peakBytes: FirstPaintBenchmark.median(ps.map(\.peakBytes)),
                      growthBytes: FirstPaintBenchmark.median(ps.map(\.growthBytes)))
            }
            let loadAfter = BenchMachine.load1()
            let plainCPU = timings[.init(.plain, .sdui)]?.cpuPerWall ?? .nan
            let singleCPU = timings[.init(.single, .sdui)]?.cpuPerWall ?? .nan
            if json {
                var w: [String: [String: Double]] = [:], f: [String: [String: Fresh]] = [:]
                for (c, ms) in warm { w[c.variant.rawValue, default: [:]][c.method.rawValue] = ms }
                for (c, v) in fresh { f[c.variant.rawValue, default: [:]][c.method.rawValue] = v }
                try printJSON(Report(pack: name, tokens: facts.tokens, rawBytes: facts.rawBytes, plainBytes: facts.plainBytes,
                                     singleBytes: facts.singleBytes, seekableBytes: facts.seekableBytes, plainMembers: facts.plainMembers,
                                     seekableMembers: facts.seekableMembers, seekableMembersTouched: facts.seekableMembersTouched,
                                     firstScreenIds: bench.ids, screenNodes: facts.screenNodes, screenIssues: facts.screenIssues,
                                     rounds: iterations, launches: launches, load1Before: loadBefore, load1After: loadAfter,
                                     cores: cores, plainOpenCPUPerWall: plainCPU, singleOpenCPUPerWall: singleCPU,
                                     warm: w, fresh: f))
                return
            }
            print("\n\(name): \(facts.tokens) tokens, \(facts.rawBytes) bytes of JSON; plain \(facts.plainBytes) bytes gzipped "
                  + "(\(facts.plainMembers) member\(facts.plainMembers == 1 ? "" : "s")), single \(facts.singleBytes) bytes (1 member), seekable \(facts.seekableBytes) bytes "
                  + "(\(facts.seekableMembers) members; the first screen's 20 tokens in \(facts.seekableMembersTouched))")
            print("first screen: the first 20 ids (\(bench.ids.first!) … \(bench.ids.last!)), resolved: "
                  + "\(facts.screenNodes) render nodes, \(facts.screenIssues) issues")
            print("the engine opens the seekable pack from its file (headers and the members it needs); "
                  + "the plain pack and every peer start from the gzip bytes in memory")
            print(String(format: "machine: %d core(s) usable%@; 1-minute load %.2f before, %.2f after", cores,
                         threads > 0 ? " (--threads \(threads))" : "", loadBefore, loadAfter))
            let second = { (ratio: Double) -> String in
                ratio >= 1.15 ? String(format: "ran on a free core (CPU/wall %.2f)", ratio)
                    : String(format: "found no free core (CPU/wall %.2f): the open paid its one-thread price", ratio)
            }
            print("the split scan's second thread: plain " + second(plainCPU) + "; single " + second(singleCPU))
            if limits != .default {
                print("open limits raised to fit this generated pack: \(limits.maxInflatedBytes) bytes of JSON, "
                      + "\(limits.maxCompressedBytes) gzipped, \(limits.maxTokens) tokens")
            }
            func pad(_ s: String, _ n: Int) -> String { s.padding(toLength: n, withPad: " ", startingAt: 0) }
            func mib(_ bytes: Double?) -> String { bytes.map { String(format: "%8.1f", $0 / 1_048_576) } ?? "       -" }
            print("\nwarm, \(iterations) rounds round-robin, a warm-up run before each timed run; medians"
                  + (launches > 0 ? "; peak = resident growth of one run in a fresh process (median)" : ""))
            print(pad("method", 42) + pad("pack", 10) + "median ms  x libdeflate  x zlib   peak MiB")
            for c in cases {
                let ms = warm[c]!
                let floor = warm[.init(c.variant, .libdeflate)]!, zlib = warm[.init(c.variant, .zlib)]!
                print(pad(c.method.label, 42) + pad(c.variant.rawValue, 10)
                      + String(format: "%9.2f %12.2f %7.2f", ms, ms / floor, ms / zlib) + "   " + mib(fresh[c]?.growthBytes))
            }
            guard launches > 0 else { return }
            print("\nfresh process, \(launches) launches per method round-robin, the child's first run; medians")
            print(pad("method", 42) + pad("pack", 10) + "median ms  x libdeflate  minor faults  peak RSS MiB")
            for c in cases {
                let f = fresh[c]!
                let floor = fresh[.init(c.variant, .libdeflate)]!.ms
                print(pad(c.method.label, 42) + pad(c.variant.rawValue, 10)
                      + String(format: "%9.2f %12.2f %13.0f", f.ms, f.ms / floor, f.minorFaults) + "      " + mib(f.peakBytes))
            }
        }
    }

    struct Disk: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disk",
            abstract: "Disk cache: a 50-token batch write and a 50-id read vs one row at a time.",
            discussion: "Example: sdui bench disk --rounds 50 --json")

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
            let machine = BenchMachine.start()
            let dir = directory.map { URL(fileURLWithPath: $0) }
                    ?? FileManager.default.temporaryDirectory
            let medians = try await reportingErrors {
                try await DiskBenchmark(directory: dir, durable: !noSync).measure(rounds: rounds)
            }
            try report(medians, machine)
        }

        private func report(_ medians: [DiskBenchmark.Method: Double], _ machine: BenchMachine) throws {
            if json {
                try printJSON(machine.json(medians))
                return
            }
            print(machine.line())
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
            commandName: "resolve",
            abstract: "Resolve a 50-token screen from a warm cache vs JSONDecoder decoding the resolved tree.",
            discussion: "Example: sdui bench resolve --examples Examples --rounds 200")

        @Option(help: "The Examples folder (tokens, screens, themes).")
        var examples = "Examples"

        @Option(help: "Rounds.")
        var rounds = 200

        /// Rounds in range before anything is measured.
        func validate() throws { try checkRange(rounds, in: 1...1_000_000, "--rounds") }

        @Flag(help: "Print one JSON object: median ms per method.")
        var json = false

        func run() throws {
            let machine = BenchMachine.start()
            let result = try reportingErrors {
                try ResolveBenchmark(examples: URL(fileURLWithPath: examples)).measure(rounds: rounds)
            }
            let m = result.medians
            if json {
                try printJSON(machine.json(m))
                return
            }
            let base = m[.resolve]!
            print(machine.line())
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

    struct ExperimentAssign: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "experiment",
            abstract: "Experiment assignments per second: the C core, the Swift API over it, a Swift closure.",
            discussion: """
            Users user-0 … user-N assigned to a three-variation experiment (weights 0.2/0.3/0.5, \
            hash version 2) by sdui_experiment_run in a loop, by ExperimentAssigner.assign, and by \
            a Swift closure doing the same FNV-1a over UTF-16 and range walk; every method must \
            assign the same counts.  One thread; medians over rounds.

            Example: sdui bench experiment --rounds 9 --users 1000000
            """)

        @Option(help: "Rounds.")
        var rounds = 7

        @Option(help: "Users per round and method.")
        var users = 1_000_000

        @Flag(help: "Print one JSON object: the medians by method.")
        var json = false

        func validate() throws {
            try checkRange(rounds, in: 1...1_000, "--rounds")
            try checkRange(users, in: 1...50_000_000, "--users")
        }

        func run() throws {
            let machine = BenchMachine.start()
            let r = try reportingErrors { try ExperimentBenchmark().measure(rounds: rounds, users: users) }
            let m = r.medians
            if json {
                try printJSON(machine.json(m))
                return
            }
            print(machine.line())
            print("experiment: \(r.users) users per round and method, \(rounds) rounds (medians); counts \(r.counts)")
            print("method".padding(toLength: 44, withPad: " ", startingAt: 0) + "  ns/user   users/s      ratio")
            let peer = m[.swiftClosure]!
            for (label, method) in [("Swift closure (same hash and walk)", ExperimentBenchmark.Method.swiftClosure),
                                    ("C core, sdui_experiment_run", .c), ("Swift API, ExperimentAssigner.assign", .swiftAPI)] {
                let v = m[method]!
                print(label.padding(toLength: 44, withPad: " ", startingAt: 0)
                      + String(format: "%9.1f %9.2fM %10.2f", v, 1e3 / v, v / peer))
            }
        }
    }

    struct Store: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "store",
            abstract: "The scenario-data store: set with observers, re-resolve after one change, expressions.",
            discussion: """
            set: 100,000 set calls with 10 observers on the written path and 0, 1,000 or \
            10,000 on unrelated paths (flat is the goal).  re-resolve: a 1,001-node screen \
            bound to the store, one value changed, ScreenResolver.update against a whole \
            resolve.  expression: a typical condition evaluated by the C core against the \
            same condition as a Swift closure over JSONValue.  Medians over rounds.

            Example: sdui bench store --rounds 9 --json
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
            let machine = BenchMachine.start()
            let r = try reportingErrors { try StoreBenchmark().measure(rounds: rounds, sets: sets, evaluations: evaluations) }
            let m = r.medians
            if json {
                try printJSON(machine.json(m))
                return
            }
            func row(_ label: String, _ v: Double, _ unit: String, _ ratio: Double) {
                print(label.padding(toLength: 52, withPad: " ", startingAt: 0)
                      + String(format: "%12.3f %-3@ %8.2f", v, unit, ratio))
            }
            print(machine.line())
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
            row("set on a file-scope store of 10,000 keys (saved)", m[.fileSet10k]!, "ns", 1)
            print(String(format: "evaluations per second: C core %.0f, Swift closure %.0f", 1e9 / m[.exprC]!, 1e9 / f))
        }
    }

    struct Network: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "network",
            abstract: "50 tokens through a loopback registry, cold, vs the bare GET and JSONSerialization.",
            discussion: "Example: sdui bench network --rounds 20")

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
            let machine = BenchMachine.start()
            let dir = directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
            let m = try await reportingErrors {
                try await NetworkBenchmark(directory: dir, durable: !noSync).measure(rounds: rounds)
            }
            if json {
                try printJSON(machine.json(m))
                return
            }
            print(machine.line())
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

    struct Screen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "screen",
            abstract: "A screen session: a tap on the 1,001-node screen vs a whole resolve; events through the outbox, the uploader and the registry vs plain SQLite inserts.",
            discussion: "Example: sdui bench screen --rounds 20")

        @Option(help: "Rounds.")
        var rounds = 20

        @Option(help: "Events per round in the event benchmarks.")
        var events = 2_000

        /// Rounds and events in range before anything is measured.
        func validate() throws {
            try checkRange(rounds, in: 1...1_000_000, "--rounds")
            try checkRange(events, in: 100...1_000_000, "--events")
        }

        @Flag(help: "Print one JSON object: the medians (ms for taps and resolves, events/s for the rest).")
        var json = false

        func run() async throws {
            let machine = BenchMachine.start()
            let r = try await reportingErrors { try await ScreenBenchmark().measure(rounds: rounds, events: events) }
            let m = r.medians
            if json {
                try printJSON(machine.json(m))
                return
            }
            print(machine.line())
            print("screen session: \(r.nodes) render nodes, \(r.changedNodes) node(s) changed per tap, \(rounds) rounds, "
                  + "\(r.events) events per round")
            print("work                                             median ms   × whole resolve")
            let whole = m[.resolve]!
            for (method, label) in [(ScreenBenchmark.Method.resolve, "resolve the whole screen"),
                                    (.tapMemory, "tap → updated tree, no outbox"),
                                    (.tapOutbox, "tap → updated tree, action event to the outbox")] {
                print(label.padding(toLength: 48, withPad: " ", startingAt: 0) + String(format: "%10.4f   %6.3f", m[method]!, m[method]! / whole))
            }
            // The floor the issue names: a plain insert loop, one row per
            // transaction (with the outbox's WAL and sync setting); the
            // batched loop is the stricter floor for what sends batches.
            print("events                                            events/s   × 1-per-tx floor   × 100-per-tx floor")
            let plain = m[.floorSingleNormal]!, batched = m[.floorBatch]!
            for (method, label) in [(ScreenBenchmark.Method.floorSingle, "SQLite insert loop, 1 per tx, FULL"),
                                    (.outboxCommit, "outbox commit, 1 event per step, FULL"),
                                    (.floorSingleNormal, "SQLite insert loop, 1 per tx, NORMAL (floor)"),
                                    (.outboxCommitNormal, "outbox commit, 1 event per step, NORMAL"),
                                    (.floorBatch, "SQLite insert loop, 100 per tx, NORMAL"),
                                    (.ingest, "registry ingest (storeEvents, 100 a batch)"),
                                    (.uploader, "uploader → POST /events → stored (loopback)")] {
                let v = m[method]!
                let floor = method == .outboxCommit || method == .floorSingle ? m[.floorSingle]! : plain
                let batch = [.ingest, .uploader, .floorBatch].contains(method) ? String(format: "%18.2f", v / batched) : ""
                print(label.padding(toLength: 48, withPad: " ", startingAt: 0) + String(format: "%10.0f   %15.2f", v, v / floor) + batch)
            }
            // A flow step: the progress row and its event in one durable
            // commit, against the same bytes written by plain SQLite.
            print("durable flow step (\(r.progressBytes)-byte progress row + \(r.eventBytes)-byte event, FULL)"
                  + "       µs   × floor   WAL pages")
            let stepFloor = m[.floorStep]!
            for (method, label, pages) in [(ScreenBenchmark.Method.floorStep, "SQLite: row replaced + row appended (floor)", r.floorStepPages),
                                           (.flowStep, "FlowSession next/back (journal commit)", r.stepPages)] {
                print(label.padding(toLength: 48, withPad: " ", startingAt: 0)
                      + String(format: "%10.1f   %7.2f   %9.1f", m[method]!, m[method]! / stepFloor, pages))
            }
        }
    }
}
#endif
