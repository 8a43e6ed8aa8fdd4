// BenchMachine.swift - what every `sdui bench` report says about the machine
// it ran on: the cores the run could use and the 1-minute load before and after.
#if Server
import Foundation
import SDUIBench

/// The machine around one benchmark run: taken when the run starts, read
/// again when it reports, so a figure measured under load says so.
struct BenchMachine {
    /// The 1-minute load when the run started (-1 where /proc/loadavg is missing).
    let loadBefore: Double
    /// The cores the run may use (fewer after `--threads`).
    let cores: Int

    /// The machine now, at the start of a run.
    static func start() -> BenchMachine {
        BenchMachine(loadBefore: load1(), cores: FirstPaintBenchmark.usableCores)
    }

    /// The 1-minute load average now (-1 where there is none).
    static func load1() -> Double {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.flatMap { Double($0) } ?? -1
    }

    /// The report's first line: cores and the load before and after.
    func line() -> String {
        String(format: "machine: %d core(s) usable; 1-minute load %.2f before, %.2f after", cores, loadBefore, Self.load1())
    }

    /// `medians` keyed by method, with `load1Before`, `load1After` and
    /// `cores` beside them: a benchmark's `--json` object.
    func json<M: RawRepresentable>(_ medians: [M: Double]) -> [String: Double] where M.RawValue == String {
        var out = Dictionary(uniqueKeysWithValues: medians.map { ($0.key.rawValue, $0.value) })
        out["load1Before"] = loadBefore
        out["load1After"] = Self.load1()
        out["cores"] = Double(cores)
        return out
    }
}
#endif
