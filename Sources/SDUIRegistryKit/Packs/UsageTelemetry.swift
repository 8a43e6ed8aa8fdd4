// UsageTelemetry.swift - how often each token was shown: what ranks tokens for the core pack.
import Foundation
import SDUI

/// Usage telemetry: how often each token was shown in a period.
///
/// File format (`sdui pack build --usage FILE`), either
/// - JSON: `{"format": "sdui-usage/1", "period": "2026-W46", "counts": {"promo_banner": 18234, …}}`
///   (`format` and `period` optional), or
/// - CSV: one `token_id,count` per line; blank lines and lines starting with `#` are skipped.
///
/// Counts are non-negative integers; an id may appear once.
public struct UsageTelemetry: Sendable, Equatable {
    public var counts: [String: Int]
    public var period: String?

    public init(counts: [String: Int], period: String? = nil) {
        self.counts = counts
        self.period = period
    }

    /// Reads a telemetry file; errors name the file and the line or key.
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try FileInput.read(url.path, limit: FileInput.documentLimit) } catch let e as SDUIError {
            throw RegistryError(e.category == .limit ? .invalid : .notFound, "usage telemetry: \(e.message)",
                                subject: url.path)
        }
        try self.init(data: data, source: url.path)
    }

    public init(data: Data, source: String) throws {
        let text = String(decoding: data, as: UTF8.self)
        if text.drop(while: { $0.isWhitespace }).first == "{" {
            guard let root = try? JSONDecoder().decode([String: JSONValue].self, from: data),
                  let counts = root["counts"]?.objectValue else {
                throw RegistryError(.invalid, "expected {\"counts\": {\"token_id\": count, …}}", subject: source)
            }
            var out: [String: Int] = [:]
            for (id, v) in counts {
                guard let n = v.intValue, n >= 0 else {
                    throw RegistryError(.invalid, "counts.\(id) must be an integer ≥ 0", subject: source)
                }
                out[id] = Int(n)
            }
            self.init(counts: out, period: root["period"]?.stringValue)
            return
        }
        var out: [String: Int] = [:]
        // Lines split on LF bytes: "\r\n" is one Character, so a CRLF file
        // would not split on Character "\n".
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (i, rawBytes) in lines.enumerated() {
            let line = String(decoding: rawBytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let n = Int(parts[1].trimmingCharacters(in: .whitespaces)), n >= 0 else {
                throw RegistryError(.invalid, "line \(i + 1): expected token_id,count", subject: source)
            }
            let id = parts[0].trimmingCharacters(in: .whitespaces)
            guard out[id] == nil else { throw RegistryError(.invalid, "line \(i + 1): \(id) appears twice", subject: source) }
            out[id] = n
        }
        self.init(counts: out)
    }
}
