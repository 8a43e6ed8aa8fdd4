// StartUpBenchmark.swift - fresh processes, timed from the spawn to the exit.
#if Server
import CSDUIBenchPeers
import Foundation
import SDUICore

/// Starts programs as a shell would (posix_spawn, no Foundation `Process`,
/// whose own set-up costs more than the processes measured) and times each
/// from the spawn to its exit: what `sdui bench start-up` compares.
public enum StartUpBenchmark {
    /// One launch of `path` with `args`: its wall time in milliseconds and
    /// what it wrote on stderr (the first 64 KiB).
    ///
    /// - Throws: ``SDUIError`` when it cannot start or exits with a status
    ///   other than 0.
    public static func launch(_ path: String, _ args: [String]) throws -> (ms: Double, stderr: String) {
        let argv = ([path] + args).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var status: Int32 = 0
        var err = [CChar](repeating: 0, count: 1 << 16)
        let ns = (argv + [nil]).withUnsafeBufferPointer { av in
            sdui_bench_spawn(path, av.baseAddress, &status, &err, err.count)
        }
        let text = err.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard ns >= 0 else { throw SDUIError(.io, "cannot start \(path): \(String(cString: strerror(errno)))", input: path) }
        guard status == 0 else {
            throw SDUIError(.unknown, "\(path) \(args.joined(separator: " ")) exited with \(status): \(text)", input: path)
        }
        return (Double(ns) / 1e6, text)
    }
}
#endif
