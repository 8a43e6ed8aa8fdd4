// KeptDocumentTests.swift - the one revalidation rule of the documents an
// app keeps (KeptCopy), on a real SQLite disk cache, with a registry played
// by a closure that records what it was asked.
import Foundation
@testable import SDUI
import SDUICore
import SDUITestSupport
import Testing

@Suite struct KeptDocumentTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A list of one experiment whose key is `key`.
    static func list(_ key: String, etag: String?) throws -> ExperimentList {
        let json = Data(#"{"experiments":[{"key":"\#(key)","variations":[{"id":"a"},{"id":"b"}]}]}"#.utf8)
        return try ExperimentList(json: json, etag: etag, source: "test")
    }

    /// The registry as a closure: answers from `answers` in turn, records
    /// each `If-None-Match`.
    final class Registry: @unchecked Sendable {
        // Serialized: the tests call revalidate one at a time.
        var asked: [String?] = []
        var answers: [Result<ExperimentList?, SDUIError>]

        init(_ answers: [Result<ExperimentList?, SDUIError>]) { self.answers = answers }

        func fetch(_ etag: String?) async throws -> ExperimentList? {
            asked.append(etag)
            return try answers.removeFirst().get()
        }
    }

    func disk() throws -> DiskCache {
        try DiskCache(path: Fixtures.temporaryDirectory().appendingPathComponent("kept.db").path, durable: false)
    }

    @Test func aFetchedDocumentIsKeptAndRevalidatedWithItsETag() async throws {
        let disk = try disk()
        let registry = Registry([.success(try Self.list("one", etag: "\"v1\"")), .success(nil)])
        let copy = KeptCopy<ExperimentList>(key: "/experiments", disk: disk, noun: "list")

        let first = await copy.revalidate(now: t0, fetch: registry.fetch)
        #expect(first.origin == .registry && first.problems.isEmpty, "\(first.problems)")
        #expect(first.document?.experiments.map(\.key) == ["one"])
        // Kept as it came, under its row.
        let row = try #require(try disk.screen("/experiments", now: t0))
        #expect(row.etag == "\"v1\"" && row.payload == first.document?.json)

        // The next asks with the kept ETag; a 304 confirms the kept copy.
        let second = await copy.revalidate(now: t0, fetch: registry.fetch)
        #expect(registry.asked == [nil, "\"v1\""])
        #expect(second.origin == .registry && second.problems.isEmpty)
        #expect(second.document?.experiments.map(\.key) == ["one"])
    }

    @Test func aNewDocumentReplacesTheKeptOne() async throws {
        let disk = try disk()
        let copy = KeptCopy<ExperimentList>(key: "/experiments", disk: disk, noun: "list")
        _ = await copy.revalidate(now: t0, fetch: Registry([.success(try Self.list("one", etag: "\"v1\""))]).fetch)
        let registry = Registry([.success(try Self.list("two", etag: "\"v2\""))])
        let found = await copy.revalidate(now: t0, fetch: registry.fetch)
        #expect(registry.asked == ["\"v1\""])
        #expect(found.document?.experiments.map(\.key) == ["two"])
        // Offline now: the replacement is what is kept.
        let offline = await copy.revalidate(now: t0, fetch: nil)
        #expect(offline.origin == .diskCache && offline.problems.isEmpty)
        #expect(offline.document?.experiments.map(\.key) == ["two"] && offline.document?.etag == "\"v2\"")
    }

    @Test func aRegistryThatCannotAnswerLeavesTheKeptCopy() async throws {
        let disk = try disk()
        let copy = KeptCopy<ExperimentList>(key: "/experiments", disk: disk, noun: "list")
        _ = await copy.revalidate(now: t0, fetch: Registry([.success(try Self.list("one", etag: "\"v1\""))]).fetch)
        let down = Registry([.failure(SDUIError(.network, "connection refused", input: "http://127.0.0.1:1/"))])
        let found = await copy.revalidate(now: t0, fetch: down.fetch)
        #expect(found.origin == .diskCache)
        #expect(found.document?.experiments.map(\.key) == ["one"])
        #expect(found.problems.count == 1 && found.problems[0].hasPrefix("the registry's list cannot be had: "))
        #expect(found.problems[0].contains("connection refused"))
    }

    @Test func a304ForNothingKeptIsAProblemAndNoDocument() async throws {
        let copy = KeptCopy<ExperimentList>(key: "/experiments", disk: try disk(), noun: "list")
        let found = await copy.revalidate(now: t0, fetch: Registry([.success(nil)]).fetch)
        #expect(found.document == nil && found.origin == nil)
        #expect(found.problems == ["the registry answered 304, but nothing is kept"])
    }

    @Test func aBrokenKeptCopyIsNamedAndNotSentAsAnETag() async throws {
        let disk = try disk()
        try disk.putScreen(DiskCache.Screen(id: "/experiments", etag: "\"bad\"", payload: Data("{\"experiments\": 3}".utf8),
                                            fetchedAt: t0), now: t0)
        let copy = KeptCopy<ExperimentList>(key: "/experiments", disk: disk, noun: "list")
        let registry = Registry([.success(try Self.list("one", etag: "\"v1\""))])
        let found = await copy.revalidate(now: t0, fetch: registry.fetch)
        // A copy that cannot be read is not revalidated: the registry sends the whole list.
        #expect(registry.asked == [nil])
        #expect(found.origin == .registry && found.document?.experiments.map(\.key) == ["one"])
        #expect(found.problems.count == 1 && found.problems[0].hasPrefix("the kept list cannot be used: "))
        #expect(found.problems[0].contains("/experiments"))
        // And the good list replaced it.
        let offline = await copy.revalidate(now: t0, fetch: nil)
        #expect(offline.origin == .diskCache && offline.problems.isEmpty)
    }

    @Test func withoutADiskOnlyTheRegistryCounts() async throws {
        let copy = KeptCopy<ExperimentList>(key: "/experiments", disk: nil, noun: "list")
        let found = await copy.revalidate(now: t0, fetch: Registry([.success(try Self.list("one", etag: nil))]).fetch)
        #expect(found.origin == .registry && found.problems.isEmpty)
        let offline = await copy.revalidate(now: t0, fetch: nil)
        #expect(offline.document == nil && offline.origin == nil && offline.problems.isEmpty)
    }

    @Test func aStringBundleIsKeptTheSameWay() async throws {
        let disk = try disk()
        let json = Data(#"{"locale":"de","default":"en","catalogs":{"de":{"hello":"Hallo"},"en":{"hello":"Hello"}}}"#.utf8)
        let bundle = StringBundle(json: json, etag: "\"s1\"", catalog: try StringCatalog(bundle: json, source: "test"))
        let copy = KeptCopy<StringBundle>(key: "/strings/de", disk: disk, noun: "catalogs")
        _ = await copy.revalidate(now: t0) { _ in bundle }
        // Read back from the row, its catalogs built again from the bytes kept.
        let offline = await copy.revalidate(now: t0, fetch: nil)
        #expect(offline.origin == .diskCache && offline.document?.etag == "\"s1\"")
        #expect(offline.document?.json == json)
        #expect(offline.document?.catalog.defaultLocale == "en")
    }
}
