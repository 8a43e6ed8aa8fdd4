// UsagePeriod.swift - the span of time a usage telemetry file covers: an
// ISO week (`2026-W48`) or a range of days, in UTC.
import Foundation

/// The span the usage job aggregates: `[from, to)` in UTC, and its name in
/// the `sdui-usage/1` file's `period`.
public struct UsagePeriod: Sendable, Equatable {
    /// `2026-W48`, or `2026-11-01..2026-11-30` for a range of days.
    public var name: String
    /// The first instant in the period (a Monday 00:00 UTC for a week).
    public var from: Date
    /// The first instant after it.
    public var to: Date

    /// The ISO week calendar in UTC: weeks start on Monday, week 1 holds the
    /// year's first Thursday.
    static let calendar: Calendar = {
        var c = Calendar(identifier: .iso8601)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()

    /// The ISO 8601 week `text` (`YYYY-Www`, weeks 01 to 52, or 53 in a
    /// year that has one), Monday 00:00 UTC to the next Monday.
    ///
    /// - Throws: ``RegistryError`` `.invalid` naming the text and what is wrong.
    public init(isoWeek text: String) throws {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, let year = Int(parts[0]), (1970...9999).contains(year),
              parts[1].count == 3, parts[1].first == "W", let week = Int(parts[1].dropFirst()),
              parts[1].dropFirst().allSatisfy(\.isASCII) else {
            throw RegistryError(.invalid, "a period is an ISO week such as 2026-W48", subject: text)
        }
        var c = DateComponents()
        c.yearForWeekOfYear = year
        c.weekOfYear = week
        c.weekday = 2
        c.hour = 0
        guard (1...53).contains(week), let monday = Self.calendar.date(from: c),
              Self.calendar.component(.weekOfYear, from: monday) == week,
              Self.calendar.component(.yearForWeekOfYear, from: monday) == year,
              let next = Self.calendar.date(byAdding: .day, value: 7, to: monday) else {
            throw RegistryError(.invalid, "\(year) has no ISO week \(week)", subject: text)
        }
        self.name = text
        self.from = monday
        self.to = next
    }

    /// The days `first` to `last` (`YYYY-MM-DD`, both included), UTC.
    ///
    /// - Throws: ``RegistryError`` `.invalid` for a malformed day, or a
    ///   `last` before `first`.
    public init(fromDay first: String, toDay last: String) throws {
        let start = try Self.day(first)
        let end = try Self.day(last)
        guard end >= start, let after = Self.calendar.date(byAdding: .day, value: 1, to: end) else {
            throw RegistryError(.invalid, "the period's last day \(last) is before its first, \(first)", subject: last)
        }
        self.name = "\(first)..\(last)"
        self.from = start
        self.to = after
    }

    /// The start of day `text` (`YYYY-MM-DD`) in UTC.
    static func day(_ text: String) throws -> Date {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), y >= 1970 else {
            throw RegistryError(.invalid, "a day is written YYYY-MM-DD, such as 2026-11-23", subject: text)
        }
        let c = DateComponents(year: y, month: m, day: d, hour: 0)
        guard let date = calendar.date(from: c), calendar.dateComponents([.year, .month, .day], from: date)
            == DateComponents(year: y, month: m, day: d) else {
            throw RegistryError(.invalid, "there is no day \(text)", subject: text)
        }
        return date
    }

    /// ``from`` in milliseconds since the Unix epoch.
    public var fromMilliseconds: Int64 { Int64((from.timeIntervalSince1970 * 1000).rounded()) }
    /// ``to`` in milliseconds since the Unix epoch.
    public var toMilliseconds: Int64 { Int64((to.timeIntervalSince1970 * 1000).rounded()) }
}
