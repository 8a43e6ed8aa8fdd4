// RegistryServer+StringsTests.swift - string catalogs from import to the
// app: import checks them and reports what is missing, each change is a
// new version, GET /strings answers the bundle of a locale's chain (by path
// or Accept-Language) with ETag and 304, and an app gets the same text
// from the registry, from its disk cache and from a pack built with
// --locales.
#if Server
import Foundation
import SDUI
import SDUICore
import SDUIRegistryKit
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryServerStringsTests: RegistryServerFixtures {
    let importer = RegistryImporter(imagePolicy: .anyHTTPSHost)

    /// A copy of Examples' tokens, screens and strings, with `edit`
    /// applied to the strings folder.
    func layout(_ edit: (URL) throws -> Void = { _ in }) throws -> URL {
        let dir = Fixtures.temporaryDirectory()
        let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
        for sub in ["tokens", "screens", "strings"] {
            try FileManager.default.copyItem(at: examples.appendingPathComponent(sub), to: dir.appendingPathComponent(sub))
        }
        try edit(dir.appendingPathComponent("strings"))
        return dir
    }

    @Test(arguments: StoreKind.allCases)
    func catalogsImportWithTheirReportAndAreServedAlongTheChain(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let r = try await importer.importInto(store, from: try layout())
            // ja lacks keys of the default catalog: the report names them.
            let report = r.warnings.filter { $0.hasPrefix("strings: ") }
            #expect(report.contains { $0.hasPrefix("strings: missing:") && $0.contains("ja") && $0.contains("checkout.delivery") })
            #expect(!report.contains { $0.contains("missing") && $0.contains("de-CH") }, "de-CH falls back to de: nothing is missing")
            let contents = try await RegistryContents.load(store)
            #expect(contents.defaultLocale == "en")
            #expect(Set(contents.catalogs.keys) == ["ar", "de", "de-CH", "en", "fr", "ja", "pl"])

            let server = try await startServer(store)
            let swiss = try await get(server, "strings/de_ch", [:])
            #expect(swiss.status == 200)
            #expect(swiss.header("Content-Language") == "de-CH")
            let bundle = try #require(try JSONValue(json: swiss.body).objectValue)
            #expect(bundle["locale"] == "de-CH")
            #expect(bundle["default"] == "en")
            #expect(bundle["catalogs"]?.objectValue.map { Set($0.keys) } == ["de-CH", "de", "en"])
            let catalog = try StringCatalog(bundle: swiss.body, source: "GET /strings/de-CH")
            #expect(try catalog.text("checkout.pay", locale: "de-CH", arguments: ["total": .text("CHF 9.00")]).text == "CHF 9.00 zahlen")
            #expect(try catalog.text("checkout.totals.subtotal", locale: "de-CH").locale == "de")
            // Revalidation.
            let etag = try #require(swiss.header("ETag"))
            #expect(try await get(server, "strings/de-CH", ["If-None-Match": etag]).status == 304)
            // Negotiated: the first preferred locale the registry has a chain for.
            let negotiated = try await get(server, "strings", ["Accept-Language": "xx-YY, pl;q=0.8, de;q=0.5"])
            #expect(negotiated.status == 200)
            #expect(negotiated.header("Content-Language") == "pl")
            #expect(negotiated.header("Vary") == "Accept-Language")
            let none = try await get(server, "strings", [:])
            #expect(none.header("Content-Language") == "en")
            // A path that is not a locale tag.
            let bad = try await get(server, "strings/not%20a%20tag", [:])
            #expect(bad.status == 400)
            #expect(bad.json?["error"] as? String == "bad-locale")
            // Extensions are read past: the bundle is the tag's without them.
            let extended = try await get(server, "strings/de-CH-u-nu-latn", [:])
            #expect(extended.status == 200 && extended.header("Content-Language") == "de-CH")
            #expect(extended.header("ETag") == etag)
            let android = try await get(server, "strings", ["Accept-Language": "pl-PL-u-fw-mon-mu-celsius, de;q=0.5"])
            #expect(android.header("Content-Language") == "pl-PL")
            // A path tag is at most 35 bytes in all, as the OpenAPI document says.
            let long = try await get(server, "strings/de-CH-u-ca-gregory-fw-mon-mu-celsius", [:])
            #expect(long.status == 400 && long.json?["error"] as? String == "bad-locale")
            #expect((long.json?["message"] as? String)?.contains("longer than 35 bytes") == true)
            await server.stop()
        }
    }

    /// A changed catalog is the next version; an unchanged one is skipped.
    @Test(arguments: StoreKind.allCases)
    func aChangedCatalogIsANewVersion(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            #expect(try await store.putCatalogs([StoredCatalog(locale: "en", json: Data(#"{"a":"A"}"#.utf8), isDefault: true)]) == 1)
            #expect(try await store.putCatalogs([StoredCatalog(locale: "en", json: Data(#"{"a":"A"}"#.utf8), isDefault: true)]) == 0)
            #expect(try await store.putCatalogs([StoredCatalog(locale: "en", json: Data(#"{"a":"B"}"#.utf8), isDefault: true)]) == 1)
            let changes = try await store.changes(after: 0)
            #expect(changes.catalogs.map(\.version) == [1, 2])
            let contents = try await RegistryContents.load(store)
            #expect(contents.catalogs["en"] == Data(#"{"a":"B"}"#.utf8))
        }
    }

    /// The registry has no catalogs: 404.
    @Test func noCatalogsIsNotFound() async throws {
        try await withStore(.sqlite) { store in
            let server = try await startServer(store)
            let r = try await get(server, "strings/en", [:])
            #expect(r.status == 404)
            await server.stop()
        }
    }

    /// A broken catalog refuses the import, naming the file and the JSON
    /// path; a file named by a tag that is not canonical, too.  Nothing is written.
    @Test func brokenCatalogsAreRefusedWithTheirPlaces() async throws {
        try await withStore(.sqlite) { store in
            let dir = try layout { strings in
                try Data(#"{"checkout.pay": {"one": "x"}}"#.utf8).write(to: strings.appendingPathComponent("it.json"))
                try Data(#"{"a": "b"}"#.utf8).write(to: strings.appendingPathComponent("pt_br.json"))
            }
            do {
                _ = try await importer.importInto(store, from: dir)
                Issue.record("broken catalogs were imported")
            } catch let e as RegistryError {
                #expect(e.message.contains("strings/it.json"))
                #expect(e.message.contains("other"))
                #expect(e.message.contains("pt-BR.json"))
            }
            #expect(try await RegistryContents.load(store).catalogs.isEmpty)
        }
    }

    /// The app gets the same text from the registry, from its disk cache
    /// with the registry gone, and from a pack built with --locales.
    @Test func theAppFindsItsStringsOnlineOfflineAndInThePack() async throws {
        try await withStore(.sqlite) { store in
            _ = try await importer.importInto(store, from: try layout())
            let server = try await startServer(store)
            let disk = try DiskCache(path: Fixtures.temporaryDirectory().appendingPathComponent("cache.sqlite").path)
            let preferred = AcceptLanguage(["ar-EG", "en"])
            let transport = HTTPRegistryTransport(baseURL: server.baseURL)
            let online = await StringSource(preferred: preferred, transport: transport, disk: disk).load()
            #expect(online.origin == .registry)
            #expect(online.locale == "ar-EG")
            let total = try #require(online.catalog).text("checkout.totals.total", locale: "ar-EG")
            #expect(total.text == "الإجمالي")
            #expect(total.locale == "ar")
            await server.stop()
            let offline = await StringSource(preferred: preferred, transport: transport, disk: disk).load()
            #expect(offline.origin == .diskCache)
            #expect(try offline.catalog?.text("checkout.totals.total", locale: "ar-EG").text == total.text)
            // A pack with the catalogs of ar and its fallbacks.
            let contents = try await RegistryContents.load(store)
            var planner = CorePackPlanner()
            planner.strings = StringBundleWriter.bundle(catalogs: contents.catalogs, defaultLocale: "en", for: ["ar"])
            let build = try planner.build(contents.packCandidates(for: .builtIn), usage: nil)
            let pack = try CorePack(data: build.pack, name: "pack")
            let shipped = await StringSource(preferred: preferred, transport: nil, pack: pack).load()
            #expect(shipped.origin == .pack)
            #expect(shipped.catalog?.locales == ["ar", "en"])
            #expect(try shipped.catalog?.text("checkout.totals.total", locale: "ar-EG").text == total.text)
        }
    }
}
#endif
