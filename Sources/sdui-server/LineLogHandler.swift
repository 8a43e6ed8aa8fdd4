// LineLogHandler.swift - the log lines `sdui serve` writes: text or JSON, one line per entry, control characters escaped.
#if Server
import Foundation
import Logging
import SDUIServer

/// How `sdui serve` writes its log (`--log-format`).
enum LogFormat: String, CaseIterable {
    /// `2026-11-27T09:00:00.123Z info sdui.server: key=value message`.
    case text
    /// One JSON object a line: `time`, `level`, `label`, `message`,
    /// `source`, and the metadata under `metadata`.
    case json
}

/// A swift-log handler that writes one line per entry to standard error,
/// as text or JSON.  A log line carries what requests and stores sent
/// (paths, header values, error messages), so every string in it goes
/// through ``EchoedInput``: control, format and separator characters are
/// written as `\u001b`, `\n` and so on, never raw, so a line stays one line
/// and an ESC never reaches the operator's terminal.  In JSON they are the
/// same escapes, so each line is one valid JSON object.
///
/// Lines are written whole, one `write` each, under a process-wide lock.
struct LineLogHandler: LogHandler {
    let label: String
    let format: LogFormat
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    /// Serializes writes: one line at a time.
    private static let lock = NSLock()

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        let all = metadata.merging(extra ?? [:]) { _, new in new }
        let text = Self.line(format: format, time: Date(), level: level, label: label, message: message.description,
                             source: source, metadata: all)
        Self.lock.withLock { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }

    /// The line of one entry, without its line feed.
    static func line(format: LogFormat, time: Date, level: Logger.Level, label: String, message: String,
                     source: String, metadata: Logger.Metadata) -> String {
        let stamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(time)
        switch format {
        case .text:
            let fields = metadata.sorted { $0.key < $1.key }.map { "\(escaped($0.key))=\(text($0.value))" }
            return "\(stamp) \(level) \(escaped(label)):" + (fields.isEmpty ? "" : " " + fields.joined(separator: " "))
                + " [\(escaped(source))] \(escaped(message))"
        case .json:
            var members = [("time", quoted(stamp)), ("level", quoted(level.rawValue)), ("label", quoted(label)),
                           ("message", quoted(message)), ("source", quoted(source))]
            if !metadata.isEmpty { members.append(("metadata", json(.dictionary(metadata)))) }
            return "{" + members.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
        }
    }

    /// A string with every invisible character escaped, uncut.
    static func escaped(_ s: String) -> String { EchoedInput.visible(s, maxBytes: .max) }

    /// A JSON string literal of `s`, every invisible character escaped.
    static func quoted(_ s: String) -> String { EchoedInput.quoted(s, maxBytes: .max) }

    /// A metadata value in a text line: strings as they are (escaped),
    /// lists and dictionaries in brackets.
    static func text(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let s): return escaped(s)
        case .stringConvertible(let c): return escaped(c.description)
        case .array(let a): return "[" + a.map(text).joined(separator: ", ") + "]"
        case .dictionary(let d):
            return "[" + d.sorted { $0.key < $1.key }.map { "\(escaped($0.key)): \(text($0.value))" }.joined(separator: ", ") + "]"
        }
    }

    /// A metadata value as JSON.
    static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let s): return quoted(s)
        case .stringConvertible(let c): return quoted(c.description)
        case .array(let a): return "[" + a.map(json).joined(separator: ",") + "]"
        case .dictionary(let d):
            return "{" + d.sorted { $0.key < $1.key }.map { "\(quoted($0.key)):\(json($0.value))" }.joined(separator: ",") + "}"
        }
    }
}
#endif
