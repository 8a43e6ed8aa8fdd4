// LocaleVectorsTests.swift - the published locale vectors
// (Tests/LocaleVectors/*.json, the suite another port must pass) run
// through the Swift API, and Foundation's formatters (ICU underneath) as a
// cross-check: every case where both apply is compared, and each
// disagreement must be one Tests/LocaleVectors/icu-differences.json lists
// with its explanation.
import Foundation
import SDUI
import SDUICore
import SDUITestSupport
import Testing

@Suite struct LocaleVectorsTests {
    static let folder = Fixtures.repositoryRoot.appendingPathComponent("Tests/LocaleVectors")

    /// The cases of one vector file.
    static func cases(_ name: String) throws -> [JSONValue] {
        let doc = try JSONValue(json: try Data(contentsOf: folder.appendingPathComponent(name)), source: name)
        return doc["cases"]?.arrayValue ?? []
    }

    /// Every file together holds at least 300 cases.
    @Test func theSuiteHoldsAtLeastThreeHundredCases() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter {
            $0.hasSuffix(".json") && $0 != "icu-differences.json"
        }
        let total = try names.reduce(0) { $0 + (try Self.cases($1).count) }
        #expect(total >= 300, "\(total) cases")
    }

    @Test func pluralCategories() throws {
        let cases = try Self.cases("plural.json")
        #expect(cases.count >= 100)
        for c in cases {
            let locale = try LocaleTag(c["locale"]!.stringValue!)
            let number = c["number"]!.stringValue!
            let ordinal = c["ordinal"]?.boolValue ?? false
            let got = try locale.pluralCategory(of: number, ordinal: ordinal)
            #expect(got.rawValue == c["category"]?.stringValue, "\(locale) \(number) \(ordinal ? "ordinal" : "cardinal")")
            #expect(locale.pluralCategories(ordinal: ordinal).contains(got))
        }
    }

    /// A formatter case: what the core writes, and what Foundation writes.
    struct Formatted {
        var id: String
        var expected: String
        var core: String
        var foundation: String?
    }

    /// The number, percent and currency cases with both answers:
    /// Foundation's `FormatStyle` (ICU's number formatter), rounding half
    /// to even as the core does.
    static func formatted() throws -> [Formatted] {
        var out: [Formatted] = []
        for c in try cases("numbers.json") {
            let tag = c["locale"]!.stringValue!, x = c["x"]!.doubleValue!
            let digits = c["digits"]?.intValue.map(Int.init)
            let style = FloatingPointFormatStyle<Double>(locale: Locale(identifier: tag))
                .rounded(rule: .toNearestOrEven)
                .precision(digits.map { .fractionLength($0) } ?? .fractionLength(0...3))
            out.append(Formatted(id: "numbers \(tag) \(JSONValue.text(x)) \(digits.map(String.init) ?? "-")",
                                 expected: c["expect"]!.stringValue!,
                                 core: try LocaleTag(tag).format(number: x, fractionDigits: digits),
                                 foundation: x.formatted(style)))
        }
        for c in try cases("percent.json") {
            let tag = c["locale"]!.stringValue!, x = c["x"]!.doubleValue!
            let style = FloatingPointFormatStyle<Double>.Percent(locale: Locale(identifier: tag))
                .rounded(rule: .toNearestOrEven).precision(.fractionLength(0))
            out.append(Formatted(id: "percent \(tag) \(JSONValue.text(x))", expected: c["expect"]!.stringValue!,
                                 core: try LocaleTag(tag).format(percent: x), foundation: x.formatted(style)))
        }
        for c in try cases("currency.json") {
            let tag = c["locale"]!.stringValue!, x = c["x"]!.doubleValue!, code = c["code"]!.stringValue!
            let style = FloatingPointFormatStyle<Double>.Currency(code: code, locale: Locale(identifier: tag))
                .rounded(rule: .toNearestOrEven)
            out.append(Formatted(id: "currency \(tag) \(JSONValue.text(x)) \(code)", expected: c["expect"]!.stringValue!,
                                 core: try LocaleTag(tag).format(currency: x, code: code), foundation: x.formatted(style)))
        }
        return out
    }

    @Test func numbersPercentsAndCurrencies() throws {
        let all = try Self.formatted()
        #expect(all.count >= 100)
        for f in all { #expect(f.core == f.expected, "\(f.id)") }
    }

    /// Foundation (ICU) against the vectors: every disagreement is listed,
    /// with why, in icu-differences.json; and every listed one still
    /// happens (a list that outlived its cause is stale).
    @Test func foundationAgreesOrTheDifferenceIsExplained() throws {
        let listed = try JSONValue(json: try Data(contentsOf: Self.folder.appendingPathComponent("icu-differences.json")),
                                   source: "icu-differences.json")
        var explained: [String: String] = [:]
        for d in listed["differences"]?.arrayValue ?? [] {
            explained[d["case"]!.stringValue!] = d["why"]?.stringValue
        }
        var seen = Set<String>()
        var compared = 0
        for f in try Self.formatted() {
            guard let icu = f.foundation else { continue }
            compared += 1
            // Spaces are compared as spaces: ICU's and CLDR's choice of
            // no-break space differ by version, which is not a formatting rule.
            guard Self.normalized(icu) != Self.normalized(f.expected) else { continue }
            seen.insert(f.id)
            #expect(explained[f.id] != nil, "unexplained: \(f.id): vectors \(f.expected.debugDescription), Foundation \(icu.debugDescription)")
        }
        for id in explained.keys { #expect(seen.contains(id), "listed but agrees now: \(id)") }
        #expect(compared >= 100)
    }

    /// `s` with every kind of space as U+0020.
    static func normalized(_ s: String) -> String {
        String(s.unicodeScalars.map { $0.properties.isWhitespace || $0 == "\u{202F}" ? " " : Character($0) })
    }

    @Test func chainsAndDirections() throws {
        for c in try Self.cases("chain.json") {
            let text = c["locale"]!.stringValue!
            if c["error"]?.boolValue == true {
                #expect(throws: SDUIError.self) { try LocaleTag(text) }
                continue
            }
            let tag = try LocaleTag(text)
            if let chain = c["chain"]?.arrayValue { #expect(tag.chain == chain.compactMap(\.stringValue), "\(text)") }
            if let data = c["data"]?.stringValue { #expect(tag.dataLocale == data, "\(text)") }
            if let d = c["direction"]?.stringValue { #expect(tag.direction.rawValue == d, "\(text)") }
        }
    }

    /// catalogs.json: lookups along the chain, plural forms, arguments.
    @Test func catalogLookups() throws {
        let doc = try JSONValue(json: try Data(contentsOf: Self.folder.appendingPathComponent("catalogs.json")), source: "catalogs.json")
        var catalogs: [String: Data] = [:]
        for (tag, value) in doc["catalogs"]?.objectValue ?? [:] { catalogs[tag] = Data(value.jsonText.utf8) }
        let set = try StringCatalog(defaultLocale: doc["default"]!.stringValue!, catalogs: catalogs)
        let cases = doc["cases"]?.arrayValue ?? []
        #expect(cases.count >= 80)
        for c in cases {
            var args: [String: StringArgument] = [:]
            for (name, v) in c["args"]?.objectValue ?? [:] {
                if let s = v.stringValue { args[name] = .text(s) } else if let d = v.doubleValue { args[name] = .number(d) }
            }
            let locale = c["locale"]!.stringValue!, key = c["key"]!.stringValue!
            let r = try set.text(key, locale: locale, arguments: args)
            #expect(r.text == c["expect"]?.stringValue, "\(locale) \(key)")
            if let missing = c["missing"]?.boolValue { #expect(r.isMissing == missing, "\(locale) \(key)") }
            if let from = c["from"] { #expect(r.locale == from.stringValue, "\(locale) \(key)") }
        }
    }
}
