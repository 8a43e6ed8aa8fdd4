// RegistryTransport.swift - how the client fetches tokens and screens from the registry.
import Foundation
import SDUICore

/// Fetches token batches and screens.  ``HTTPRegistryTransport`` talks to a registry over
/// HTTP; tests and apps may supply their own.
///
/// Errors: an `SDUIError` of category `.network` means the registry could
/// not be reached (the repository treats it as offline); any other failure
/// (`.http` for a bad status, `.json` for a bad body, …) means it answered
/// but not usefully.
public protocol RegistryTransport: Sendable {
    func fetch(_ request: TokenFetchRequest) async throws -> TokenFetchResponse
    /// `GET /screens/{id}`, sending the client's `X-Primitives`
    /// and `If-None-Match` when the request has an ETag.
    func fetchScreen(_ request: ScreenFetchRequest) async throws -> ScreenFetchResult
    /// `GET /experiments`, sending `If-None-Match` when given.  A transport
    /// that does not implement it throws `.notFound` (the default), and
    /// ``ExperimentSource`` uses what it keeps.
    func fetchExperiments(ifNoneMatch: String?) async throws -> ExperimentsFetchResult
    /// `GET /strings` with `Accept-Language: acceptLanguage`, sending
    /// `If-None-Match` when given: the string catalogs of the best locale
    /// the registry has for it.  A transport that does not implement it
    /// throws `.notFound` (the default), and ``StringSource`` uses what it
    /// keeps.
    func fetchStrings(acceptLanguage: String, ifNoneMatch: String?) async throws -> StringsFetchResult
}

extension RegistryTransport {
    /// No experiments from this transport: `.notFound`.
    public func fetchExperiments(ifNoneMatch: String?) async throws -> ExperimentsFetchResult {
        throw SDUIError(.notFound, "this transport does not fetch experiments", input: "GET /experiments")
    }

    /// No catalogs from this transport: `.notFound`.
    public func fetchStrings(acceptLanguage: String, ifNoneMatch: String?) async throws -> StringsFetchResult {
        throw SDUIError(.notFound, "this transport does not fetch string catalogs", input: "GET /strings")
    }

    /// `GET /screens/{id}` without revalidation.
    public func fetchScreen(_ id: String) async throws -> ScreenFetchResponse {
        switch try await fetchScreen(ScreenFetchRequest(id: id)) {
        case .fetched(let f): return .screen(f.payload)
        case .incompatible(let fallback, let message): return .incompatible(fallbackScreenId: fallback, message: message)
        case .notModified:
            throw SDUIError(.http, "HTTP 304 for a screen the client did not ask to revalidate", input: id)
        }
    }
}

/// The protocol's name before it also fetched screens.
@available(*, deprecated, renamed: "RegistryTransport")
public typealias TokenTransport = RegistryTransport
