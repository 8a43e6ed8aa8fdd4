// HTTPRegistryTransport.swift - RegistryTransport over HTTP, a thin client on HTTPClient.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
internal import CSDUI
import SDUICore

/// Fetches token batches and screens from a registry: `GET {base}/design-tokens?ids=…`
/// and `GET {base}/screens/{id}`,
/// with `Accept: application/json`, `X-Primitives`, a bearer
/// token when one is set, `If-None-Match` when revalidating, and a timeout.
///
/// A 200 body is a JSON array (schemas/openapi.json) of token objects or
/// compact JWS strings; each element's exact bytes are kept, so ETags and signatures
/// are checked on what the registry sent.  `Cache-Control: max-age` is
/// passed on as the TTL.
public struct HTTPRegistryTransport: RegistryTransport {
    /// The registry's base URL; `design-tokens` and `screens/{id}` are resolved
    /// against it.
    public var baseURL: URL
    /// Sent as `X-Primitives`, e.g. `Column@3,Text@4`.
    public var primitives: String?
    /// Sent as `Authorization: Bearer …`.
    public var bearerToken: String?
    /// The user's attributes, sent with screen requests as
    /// `X-SDUI-Attributes` (a JSON object) so the registry assigns the user
    /// to the experiments a screen takes part in and serves the variation;
    /// nil sends none (an app that assigns itself, `ExperimentScreens`).
    public var attributes: [String: JSONValue]?
    /// Seconds allowed for a whole request, from sending it to the last
    /// byte (then reported as `.network`).
    public var timeout: TimeInterval { client.timeout }
    /// Largest body accepted: 50 tokens of 32 KB, plus framing.  Enforced
    /// as bytes arrive (`HTTPClient`).
    public var maxBodyBytes: Int { client.maxBodyBytes }
    let client: HTTPClient

    /// A transport to the registry at `baseURL`.  `timeout` is in seconds (default
    /// 10); `maxBodyBytes` defaults to 50 tokens of 32 KB, doubled for framing.
    public init(baseURL: URL, primitives: String? = nil, bearerToken: String? = nil,
                timeout: TimeInterval = 10, maxBodyBytes: Int = 50 * 32_768 * 2,
                attributes: [String: JSONValue]? = nil) {
        self.baseURL = baseURL
        self.primitives = primitives
        self.bearerToken = bearerToken
        self.attributes = attributes
        self.client = HTTPClient(timeout: timeout, maxBodyBytes: maxBodyBytes)
    }

    /// The request URL for `ids` (ids are percent-encoded as query values).
    func url(for request: TokenFetchRequest) -> URL? {
        var c = URLComponents(url: baseURL.appendingPathComponent("design-tokens"),
                              resolvingAgainstBaseURL: false)
        var items = [URLQueryItem(name: "ids", value: request.ids.joined(separator: ","))]
        if let v = request.ifNoneMatch { items.append(URLQueryItem(name: "v", value: v)) }
        c?.queryItems = items
        return c?.url
    }

    /// Sends one GET with the headers every call carries.
    private func get(_ url: URL, ifNoneMatch: String? = nil, extra: [String: String] = [:]) async throws -> HTTPClientResponse {
        var headers = extra
        headers["Accept"] = "application/json"
        if let primitives { headers["X-Primitives"] = primitives }
        if let bearerToken { headers["Authorization"] = "Bearer \(bearerToken)" }
        if let ifNoneMatch { headers["If-None-Match"] = ifNoneMatch }
        return try await client.get(url, headers: headers)
    }

    /// `GET {base}/screens/{id}`: 200 is decoded, 304 is ``ScreenFetchResult/notModified``
    /// (only when the request had an ETag) and 409 is ``ScreenFetchResult/incompatible(fallbackScreenId:message:)``.
    /// Throws an `SDUIError`: `.network` when the registry cannot be reached, `.limit` for a
    /// body over ``maxBodyBytes``, `.http` for any other status, `.json` or `.schema` for a bad payload.
    public func fetchScreen(_ request: ScreenFetchRequest) async throws -> ScreenFetchResult {
        let id = request.id
        guard let url = URL(string: "screens/" + (id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? id),
                            relativeTo: baseURL)?.absoluteURL else {
            throw SDUIError(.argument, "cannot build a screen URL for \(id)", input: baseURL.absoluteString)
        }
        let http = try await get(url, ifNoneMatch: request.ifNoneMatch,
                                 extra: attributes.map { ["X-SDUI-Attributes": JSONValue.object($0).jsonText] } ?? [:])
        let data = http.body
        switch http.status {
        case 200:
            let payload = try ScreenPayload(json: data, source: url.absoluteString)
            let experiments = try http.header(ServedVariation.headerName).map { try ServedVariation.parse(header: $0) } ?? []
            return .fetched(FetchedScreen(payload: payload, json: data, etag: http.header("ETag"), experiments: experiments))
        case 304 where request.ifNoneMatch != nil:
            return .notModified
        case 409:
            let body = (try? JSONValue(json: data))?.objectValue
            return .incompatible(fallbackScreenId: body?["fallbackScreenId"]?.stringValue,
                                 message: body?["error"]?.stringValue ?? "Incompatible-Primitives")
        default:
            let snippet = String(decoding: data.prefix(200), as: UTF8.self)
            throw SDUIError(.http, "HTTP \(http.status): \(snippet)", input: url.absoluteString)
        }
    }

    /// `GET {base}/experiments`: the running experiments' definitions.  A
    /// 200 is parsed (each definition by `Experiment(value:)`), a 304 (only
    /// when the request had an ETag) is ``ExperimentsFetchResult/notModified``.
    /// Throws an `SDUIError`: `.network` when the registry cannot be
    /// reached, `.http` for another status, `.json` or `.schema` for a bad body.
    public func fetchExperiments(ifNoneMatch: String?) async throws -> ExperimentsFetchResult {
        let url = baseURL.appendingPathComponent("experiments")
        let http = try await get(url, ifNoneMatch: ifNoneMatch)
        switch http.status {
        case 200:
            return .fetched(try ExperimentList(json: http.body, etag: http.header("ETag"), source: url.absoluteString))
        case 304 where ifNoneMatch != nil:
            return .notModified
        default:
            let snippet = String(decoding: http.body.prefix(200), as: UTF8.self)
            throw SDUIError(.http, "HTTP \(http.status): \(snippet)", input: url.absoluteString)
        }
    }

    /// `GET {base}/strings` with `Accept-Language`: a 200 is the bundle of
    /// catalogs (checked whole by the C core), a 304 (only when the request
    /// had an ETag) is ``StringsFetchResult/notModified``.  Throws an
    /// `SDUIError`: `.network` when the registry cannot be reached, `.http`
    /// for another status, `.json` or `.schema` for a bad body.
    public func fetchStrings(acceptLanguage: String, ifNoneMatch: String?) async throws -> StringsFetchResult {
        let url = baseURL.appendingPathComponent("strings")
        let http = try await get(url, ifNoneMatch: ifNoneMatch, extra: ["Accept-Language": acceptLanguage])
        switch http.status {
        case 200:
            let catalog = try StringCatalog(bundle: http.body, source: url.absoluteString)
            return .fetched(StringBundle(json: http.body, etag: http.header("ETag"), catalog: catalog))
        case 304 where ifNoneMatch != nil:
            return .notModified
        default:
            let snippet = String(decoding: http.body.prefix(200), as: UTF8.self)
            throw SDUIError(.http, "HTTP \(http.status): \(snippet)", input: url.absoluteString)
        }
    }

    /// `GET {base}/design-tokens?ids=…`: a 200 is split into its elements (see
    /// ``split(_:source:limits:)``), a 304 is ``TokenFetchResponse/notModified(maxAge:)``.
    /// Throws an `SDUIError`: `.network` when the registry cannot be reached, `.limit` for a
    /// body over ``maxBodyBytes``, `.http` for any other status, `.json` or `.schema` for a body
    /// that is not a JSON array.
    public func fetch(_ request: TokenFetchRequest) async throws -> TokenFetchResponse {
        guard let url = url(for: request) else {
            throw SDUIError(.argument, "cannot build a request URL", input: baseURL.absoluteString)
        }
        let http = try await get(url, ifNoneMatch: request.ifNoneMatch)
        let data = http.body
        let maxAge = Self.maxAge(http.header("Cache-Control"))
        switch http.status {
        case 304:
            return .notModified(maxAge: maxAge)
        case 200:
            let split = try Self.split(data, source: url.absoluteString)
            return .tokens(split.elements, maxAge: maxAge, refused: split.refused)
        default:
            let snippet = String(decoding: data.prefix(200), as: UTF8.self)
            throw SDUIError(.http, "HTTP \(http.status): \(snippet)", input: url.absoluteString)
        }
    }

    /// `max-age` of a Cache-Control value, in seconds; nil when absent.
    static func maxAge(_ header: String?) -> TimeInterval? {
        guard let header else { return nil }
        for part in header.split(separator: ",") {
            let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0].lowercased() == "max-age",
               let n = Int(kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))), n >= 0 {
                return TimeInterval(n)
            }
        }
        return nil
    }

    /// The exact bytes of each good element of a JSON array; a string
    /// element (a compact JWS) is returned without its quotes.  Elements
    /// that cannot be kept are left out (see ``split(_:source:limits:)``).
    public static func elements(of body: Data, source: String) throws -> [Data] {
        try split(body, source: source).elements
    }

    /// Splits a batch answer so that a bad element fails alone: the exact
    /// bytes of each good element, and an error for each element refused
    /// (nested deeper than the token depth limit, counted from the element,
    /// as a token alone is counted).  The whole answer fails only when it
    /// cannot be split: not JSON, not an array, more than 4,096 elements.
    public static func split(_ body: Data, source: String,
                             limits: PackLimits = .default) throws -> (elements: [Data], refused: [SDUIError]) {
        let found = try JSONArrayElements.split(body, maxDepth: limits.maxDepth, source: source)
        var elements: [Data] = []
        var refused: [SDUIError] = []
        for (i, e) in found.enumerated() {
            if let refusal = e.refusal {
                // No size bound is asked for, so a refusal is the depth.
                refused.append(SDUIError(refusal.category, "element \(i) of the answer (byte \(e.range.lowerBound)) is "
                                         + "nested deeper than \(limits.maxDepth) levels, counted from the element",
                                         input: source, offset: refusal.offset))
                continue
            }
            let range = body.startIndex + e.range.lowerBound ..< body.startIndex + e.range.upperBound
            // Slices share the body's storage: no element is copied here.
            guard body[range.lowerBound] == UInt8(ascii: "\"") else { elements.append(body[range]); continue }
            // A string (a compact JWS): its text without the quotes.  A JWS
            // is base64url and dots, so it holds no escape; one that does is
            // unescaped by the JSON value parser (the scan proved it valid).
            let inner = range.lowerBound + 1 ..< range.upperBound - 1
            if !body[inner].contains(UInt8(ascii: "\\")) {
                elements.append(body[inner])
            } else if case .string(let s) = try JSONValue(json: body.subdata(in: range), source: source) {
                elements.append(Data(s.utf8))
            }
        }
        return (elements, refused)
    }
}
