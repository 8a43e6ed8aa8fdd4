// UsageTelemetry.swift - how often each token was shown: what ranks tokens for the core pack.
import Foundation
import SDUI

/// Usage telemetry: how often each token was shown in a period.
///
/// File format (`sdui pack build --usage FILE`), either
/// - JSON: `{"format": "sdui-usage/1", "period": "2026-W46", "counts": {"promo_banner": 18234, …}}`
///   (`format` and `period` optional), or
/// - CSV: one `token_id,count` per line, quoted as CSV quotes (`"a,b",3`;
///   `""` inside quotes is one `"`); blank lines and lines starting with `#`
///   are skipped; a first row `token_id,count` (or `id,count`) is a header
///   and skipped; a UTF-8 byte-order mark is skipped.
///
/// Counts are non-negative integers; an id may appear once.  Any other line
/// is an error naming its number and what was expected.
public struct UsageTelemetry: Sendable, Equatable {
    /// How often each token was shown, by token id; every count is ≥ 0.
    public var counts: [String: Int]
    /// The period the counts cover (`2026-W46`, say); nil when the file names
    /// none, and always nil for CSV.
    public var period: String?

    /// Telemetry from counts already in hand (not checked).
    public init(counts: [String: Int], period: String? = nil) {
        self.counts = counts
        self.period = period
    }

    /// The file form `{"counts", "format": "sdui-usage/1", "period"}`
    /// (members and counts sorted, `period` left out when nil, pretty-printed):
    /// what the usage job writes and ``init(data:source:)`` reads.
    public var json: Data {
        struct File: Encodable {
            var format = "sdui-usage/1"
            var period: String?
            var counts: [String: Int]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // A struct of strings and integers always encodes.
        return ((try? encoder.encode(File(period: period, counts: counts))) ?? Data()) + Data("\n".utf8)
    }

    /// Reads a telemetry file; errors name the file and the line or key.
    ///
    /// The file is read with a 16 MiB bound (`FileInput.documentLimit`).
    ///
    /// - Throws: ``RegistryError`` `.notFound` when the file cannot be read,
    ///   `.invalid` when it is over the bound or its content breaks the format.
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try FileInput.read(url.path, limit: FileInput.documentLimit) } catch let e as SDUIError {
            throw RegistryError(e.category == .limit ? .invalid : .notFound, "usage telemetry: \(e.message)",
                                subject: url.path)
        }
        try self.init(data: data, source: url.path)
    }

    /// Parses telemetry in either format: JSON when the first character that
    /// is not white space is `{`, CSV otherwise.  A leading UTF-8 byte-order
    /// mark is skipped.  `source` names the input in errors.
    ///
    /// - Throws: ``RegistryError`` `.invalid` naming `source` and the line (CSV)
    ///   or the member (JSON) at fault.
    public init(data: Data, source: String) throws {
        // A byte-order mark is not part of the text.
        let data = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
        let text = String(decoding: data, as: UTF8.self)
        if text.drop(while: { $0.isWhitespace }).first == "{" {
            guard let root = (try? JSONValue(json: data))?.objectValue,
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
        var sawRow = false
        // Lines split on LF bytes: "\r\n" is one Character, so a CRLF file
        // would not split on Character "\n".
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (i, rawBytes) in lines.enumerated() {
            let line = String(decoding: rawBytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields: [String]
            do {
                fields = try Self.csvFields(line)
            } catch let why as CSVFault {
                throw RegistryError(.invalid, "line \(i + 1): \(why.message)", subject: source)
            }
            defer { sawRow = true }
            if !sawRow, fields.count == 2, ["token_id", "id"].contains(fields[0].lowercased()),
               fields[1].lowercased() == "count" {
                continue   // the header row
            }
            guard fields.count == 2, let n = Int(fields[1]), n >= 0 else {
                throw RegistryError(.invalid, "line \(i + 1): expected token_id,count", subject: source)
            }
            let id = fields[0]
            guard out[id] == nil else { throw RegistryError(.invalid, "line \(i + 1): \(id) appears twice", subject: source) }
            out[id] = n
        }
        self.init(counts: out)
    }

    /// Why a CSV line could not be split.
    struct CSVFault: Error {
        var message: String
    }

    /// The fields of one CSV line (RFC 4180 quoting): a field is text up to
    /// the next comma, or `"…"` in which `""` is one quote; spaces around a
    /// field are dropped.
    static func csvFields(_ line: String) throws -> [String] {
        var fields: [String] = []
        var chars = Substring(line)
        while true {
            chars = chars.drop { $0 == " " || $0 == "\t" }
            var field = ""
            if chars.first == "\"" {
                chars = chars.dropFirst()
                var closed = false
                while let c = chars.first {
                    chars = chars.dropFirst()
                    if c == "\"" {
                        if chars.first == "\"" { field.append("\""); chars = chars.dropFirst(); continue }
                        closed = true
                        break
                    }
                    field.append(c)
                }
                guard closed else { throw CSVFault(message: "a quoted field is not closed") }
                chars = chars.drop { $0 == " " || $0 == "\t" }
                guard chars.isEmpty || chars.first == "," else {
                    throw CSVFault(message: "text after a closing quote; expected , or the end of the line")
                }
            } else {
                let end = chars.firstIndex(of: ",") ?? chars.endIndex
                field = String(chars[..<end]).trimmingCharacters(in: .whitespaces)
                if field.contains("\"") { throw CSVFault(message: "a quote inside an unquoted field") }
                chars = chars[end...]
            }
            fields.append(field)
            guard chars.first == "," else { return fields }
            chars = chars.dropFirst()
        }
    }
}
