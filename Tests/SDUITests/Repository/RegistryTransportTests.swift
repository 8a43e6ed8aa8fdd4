// RegistryTransportTests.swift - fetchScreen(_ id:), the screen fetch without revalidation every transport gets.
import Foundation
import SDUI
import Testing

@Suite struct RegistryTransportTests {
    /// A transport that answers every screen request with `answer`, and
    /// refuses requests that revalidate.
    struct Fixed: RegistryTransport {
        let answer: ScreenFetchResult

        func fetch(_ request: TokenFetchRequest) async throws -> TokenFetchResponse {
            throw SDUIError(.argument, "no tokens here")
        }

        func fetchScreen(_ request: ScreenFetchRequest) async throws -> ScreenFetchResult {
            guard request.ifNoneMatch == nil else { throw SDUIError(.argument, "asked to revalidate", input: request.id) }
            return answer
        }
    }

    @Test func answersMapOntoTheUnrevalidatedShape() async throws {
        let payload = ScreenPayload(id: "home", tokens: [.init(id: "a")])
        let fetched = Fixed(answer: .fetched(FetchedScreen(payload: payload, json: Data("{}".utf8), etag: "\"e\"")))
        #expect(try await fetched.fetchScreen("home") == .screen(payload))
        let incompatible = Fixed(answer: .incompatible(fallbackScreenId: "old_home", message: "Incompatible-Primitives"))
        #expect(try await incompatible.fetchScreen("home")
                == .incompatible(fallbackScreenId: "old_home", message: "Incompatible-Primitives"))
    }

    /// A 304 for a request that sent no ETag is the registry's mistake.
    @Test func anUnaskedNotModifiedIsAnHTTPError() async {
        let e = await #expect(throws: SDUIError.self) { _ = try await Fixed(answer: .notModified).fetchScreen("home") }
        #expect(e?.category == .http && e?.input == "home")
        #expect(e?.message.contains("304") == true)
    }
}
