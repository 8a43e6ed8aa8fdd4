import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUITestSupport
import Testing

/// A flow's first run with no network: the Fallback Pack carries the flow
/// and its themes, and the loader starts from it only when nothing is kept.
@Suite struct FlowLoaderFallbackTests {
    static let theme = ##"{"id": "theme_mint_dark", "colors": {"primary": "#10B981"}}"##

    /// A Fallback Pack (no tokens) with `flows` and `themes` members.
    static func pack(flows: String, themes: String = "[\(theme)]") throws -> FallbackPack {
        let url = Fixtures.temporaryDirectory().appendingPathComponent("fallback.json.gz")
        try Fixtures.pack(tokens: [], extra: #""screens":[],"flows":\#(flows),"themes":\#(themes)"#).write(to: url)
        return try FallbackPack(contentsOf: url)
    }

    /// A registry address nothing answers on.
    static let unreachable = URL(string: "http://127.0.0.1:9/")!

    @Test func thePackCarriesFlowsAndThemes() throws {
        let p = try Self.pack(flows: "[\(FlowFixtures.onboarding)]")
        #expect(p.flows.keys.sorted() == ["onboarding"])
        #expect(p.themes.map(\.id) == ["theme_mint_dark"])
        #expect(throws: SDUIError.self) { try Self.pack(flows: #"[{"version": 1}]"#) }
        #expect(throws: SDUIError.self) { try Self.pack(flows: "[\(FlowFixtures.onboarding),\(FlowFixtures.onboarding)]") }
        #expect(throws: SDUIError.self) { try Self.pack(flows: #"{"id": "x"}"#) }
        #expect(throws: SDUIError.self) { try Self.pack(flows: "[]", themes: #"[{"colors": 1}]"#) }
    }

    @Test func aFirstRunOfflineStartsFromThePack() async throws {
        let journal = try FlowFixtures.journal()
        let pack = try Self.pack(flows: "[\(FlowFixtures.onboarding)]")
        let loader = FlowLoader(registry: Self.unreachable, journal: journal, client: HTTPClient(timeout: 5, maxBodyBytes: 1 << 20),
                                fallbackPack: pack)
        let (flow, source) = try await loader.load("onboarding")
        #expect(source == .fallbackPack && flow.id == "onboarding")
        let session = try FlowSession(definition: flow, journal: journal, configuration: .init(userID: "u"))
        #expect(try session.start() == .screen("welcome"))
        // A flow the pack lacks, with nothing kept: the network error, naming both.
        do {
            _ = try await loader.load("checkout")
            Issue.record("loaded")
        } catch let e as SDUIError {
            #expect(e.category == .network && e.message.contains("not in a Fallback Pack"))
        }
    }

    /// A definition kept from an earlier online run is newer than the
    /// pack's: it wins.
    @Test func aKeptDefinitionWinsOverThePack() async throws {
        let journal = try FlowFixtures.journal()
        let kept = FlowFixtures.onboarding.replacingOccurrences(of: #""version": 1"#, with: #""version": 7"#)
        let record: JSONValue = ["json": try JSONValue(json: Data(kept.utf8)), "etag": "\"v7\""]
        _ = try journal.commit(states: [("definition/onboarding", try JSONEncoder().encode(record))])
        let loader = FlowLoader(registry: Self.unreachable, journal: journal, client: HTTPClient(timeout: 5, maxBodyBytes: 1 << 20),
                                fallbackPack: try Self.pack(flows: "[\(FlowFixtures.onboarding)]"))
        let (flow, source) = try await loader.load("onboarding")
        #expect(source == .offline && flow.version == "7")
    }

    /// A pack's flow that does not validate is refused, naming the pack.
    @Test func aBrokenPackedFlowIsRefused() async throws {
        let broken = #"{"id": "bad", "version": 1, "start": "a", "screens": [{"id": "a", "blocks": [], "next": [{"to": "zz"}]}]}"#
        let loader = FlowLoader(registry: Self.unreachable, journal: try FlowFixtures.journal(),
                                client: HTTPClient(timeout: 5, maxBodyBytes: 1 << 20), fallbackPack: try Self.pack(flows: "[\(broken)]"))
        do {
            _ = try await loader.load("bad")
            Issue.record("loaded")
        } catch let e as SDUIError {
            #expect(e.category == .schema && e.message.contains("the Fallback Pack's flow \"bad\" does not validate"), "\(e.message)")
        }
    }
}
