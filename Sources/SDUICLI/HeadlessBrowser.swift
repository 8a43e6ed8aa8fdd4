// HeadlessBrowser.swift - runs headless Chromium on a local HTML file, so the
// accessibility lint (and the tests) can check a page as a real browser lays it out.
import Foundation

/// Headless Chromium, run once per call with a fresh profile: load an HTML
/// file and return its DOM after scripts ran, or write a PNG screenshot.
///
/// Found on `PATH` as `chromium`, `chromium-browser` or `google-chrome`;
/// when none is there, ``init(executable:searchPath:)`` throws a
/// ``Failure`` that says to run `bash scripts/setup.sh`.  Unless
/// ``blocksNetwork`` is off, host names do not resolve, so a page never
/// reaches the network and a remote image simply fails to load.
package struct HeadlessBrowser: Sendable {
    /// Why the browser could not be found, started or finished.
    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var message: String
        package var description: String { message }
    }

    /// The names looked up on `PATH`, in order.
    package static let candidates = ["chromium", "chromium-browser", "google-chrome"]

    /// The browser binary.
    package let executable: URL
    /// How long one run may take before the browser is killed.
    package var timeout: Duration = .seconds(60)
    /// When true (the default) no host name resolves, so pages stay offline.
    package var blocksNetwork = true

    /// Uses `executable`, or the first of ``candidates`` on `searchPath`
    /// (default: the `PATH` environment variable).
    package init(executable: URL? = nil, searchPath: String? = nil) throws {
        if let executable {
            self.executable = executable
        } else {
            let path = searchPath ?? ProcessInfo.processInfo.environment["PATH"] ?? ""
            self.executable = try Self.locate(searchPath: path)
        }
    }

    /// The first executable of ``candidates`` in the `:`-separated `searchPath`.
    package static func locate(searchPath: String) throws -> URL {
        let dirs = searchPath.split(separator: ":").map(String.init)
        for name in candidates {
            for dir in dirs where FileManager.default.isExecutableFile(atPath: dir + "/" + name) {
                return URL(fileURLWithPath: dir).appendingPathComponent(name)
            }
        }
        throw Failure(message: "no headless browser found (looked for \(candidates.joined(separator: ", ")) on PATH); "
            + "run `bash scripts/setup.sh`, which installs Debian's chromium")
    }

    /// The DOM of `file` serialized after its scripts ran (`--dump-dom`).
    package func dumpDOM(of file: URL, width: Int = 390, height: Int = 844,
                        virtualTimeBudget: Int = 5000, extraArguments: [String] = []) async throws -> String {
        let args = arguments(width: width, height: height, budget: virtualTimeBudget)
            + extraArguments + ["--dump-dom", file.absoluteString]
        let out = try await run(args)
        guard !out.isEmpty else { throw Failure(message: "chromium printed no DOM for \(file.path)") }
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes a PNG of `file` at the given window size to `png`.
    package func screenshot(of file: URL, to png: URL, width: Int = 390, height: Int = 844,
                           virtualTimeBudget: Int = 5000, extraArguments: [String] = []) async throws {
        try? FileManager.default.removeItem(at: png)
        let args = arguments(width: width, height: height, budget: virtualTimeBudget)
            + extraArguments + ["--screenshot=\(png.path)", file.absoluteString]
        _ = try await run(args)
        guard FileManager.default.fileExists(atPath: png.path) else {
            throw Failure(message: "chromium wrote no screenshot to \(png.path)")
        }
    }

    /// The flags every run uses (the profile directory is added by ``run(_:)``).
    func arguments(width: Int, height: Int, budget: Int) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--no-default-browser-check", "--mute-audio",
         "--window-size=\(width),\(height)", "--virtual-time-budget=\(budget)"]
            + (blocksNetwork ? ["--host-resolver-rules=MAP * ~NOTFOUND"] : [])
    }

    /// Runs the browser with `args` and a temporary profile; returns stdout.
    /// Throws with the end of stderr if it fails or outlives ``timeout``.
    func run(_ args: [String]) async throws -> Data {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("sdui-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let stdout = scratch.appendingPathComponent("stdout"), stderr = scratch.appendingPathComponent("stderr")
        let process = try start(args + ["--user-data-dir=\(scratch.appendingPathComponent("profile").path)"],
                                stdout: stdout, stderr: stderr)
        let finished = await wait(for: process)
        for handle in [process.standardOutput, process.standardError] { try? (handle as? FileHandle)?.close() }
        let errors = Self.tail(of: stderr)
        guard finished else {
            throw Failure(message: "chromium did not finish within \(timeout) and was stopped\(errors)")
        }
        guard process.terminationStatus == 0 else {
            throw Failure(message: "chromium exited with status \(process.terminationStatus)\(errors)")
        }
        return (try? Data(contentsOf: stdout)) ?? Data()
    }

    /// Starts the browser with stdout and stderr going to files (no pipe to fill up).
    func start(_ args: [String], stdout: URL, stderr: URL) throws -> Process {
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = args
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        do { try process.run() } catch {
            throw Failure(message: "cannot start \(executable.path): \(error)")
        }
        return process
    }

    /// Polls until `process` exits (true), or until ``timeout`` passes or the
    /// task is cancelled; then stops it and returns false.
    func wait(for process: Process) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline || Task.isCancelled {
                await stop(process)
                return false
            }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return true
    }

    /// Terminates `process`, and kills it if it is still there 2 s later.
    func stop(_ process: Process) async {
        process.terminate()
        for _ in 0..<80 where process.isRunning { try? await Task.sleep(for: .milliseconds(25)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The last lines of the browser's stderr, without its D-Bus chatter,
    /// ready to append to an error message.
    static func tail(of stderr: URL) -> String {
        let text = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").filter { !$0.contains("dbus") && !$0.contains("unexpected operator") }
        return lines.isEmpty ? "" : "; stderr:\n" + lines.suffix(20).joined(separator: "\n")
    }
}
