// RegistryServer+Routes.swift - the routes: /screens, /design-tokens, /metrics, /health.
#if Server
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import Prometheus
import SDUI


extension RegistryServer {

    /// The registry's own router, what ``run()`` and ``start()`` serve: the
    /// routes of ``routes(context:)`` at the root, with the middleware on the
    /// whole router, so an unknown path is logged, counted and answered with
    /// the same JSON error body.
    ///
    /// A host that runs its own Hummingbird application mounts
    /// ``routes(context:)`` in its router instead, and runs a
    /// ``RegistryRefresher`` beside it.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        install(on: router)   // on a router the middleware covers unknown paths too
        return router
    }

    /// The registry's routes as a collection a host adds to its own router,
    /// at its root or under a prefix, with its own request context:
    ///
    ///     router.addRoutes(registry.routes(), atPath: "/sdui")
    ///
    /// The collection brings its middleware (request log, metrics, JSON
    /// errors, the header limit, bearer auth on the API when configured); it
    /// applies to these routes only.  Publishes reach the routes while a
    /// ``RegistryRefresher`` for this server runs in the host's
    /// `ServiceGroup`.
    public func routes<Context: RequestContext>(context: Context.Type = BasicRequestContext.self)
        -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        install(on: routes)
        return routes
    }

    /// Adds the middleware and every route to `routes` (a router or a
    /// collection): limits and metrics on everything, auth on the API.
    private func install<Routes: RouterMethods>(on router: Routes) {
        typealias Context = Routes.Context
        _ = router.add(middleware: RequestLogMiddleware(configuration.requestLogLevel,
                                                        headers: [Self.primitivesField, .ifNoneMatch]))
        _ = router.add(middleware: RequestMetricsMiddleware(factory: metricsFactory))
        _ = router.add(middleware: JSONErrorMiddleware())
        _ = router.add(middleware: HeaderLimitMiddleware(maxHeaderBytes: configuration.maxHeaderBytes))
        // Liveness: the process answers.  Readiness: the snapshot is fresh
        // (503 when the store has not answered for a while: the server still
        // serves its last snapshot, but a balancer should send traffic
        // elsewhere; restarting it would not help).  /health is readiness.
        let live: @Sendable (Request, Context) async throws -> Response = { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
        let ready: @Sendable (Request, Context) async throws -> Response = { [self] _, _ in
            let (age, stale) = staleness()
            let body = #"{"status":"\#(stale ? "stale" : "ok")","generation":\#(snapshot().generation),"#
                + #""secondsSinceRefresh":\#(String(format: "%.1f", age))}"#
            return Response(status: stale ? .serviceUnavailable : .ok,
                            headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        let metricsPage: @Sendable (Request, Context) async throws -> Response = { [self, metrics] _, _ in
            recordRefreshAge()
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
        }
        for (path, handler) in [("health/live", live), ("health/ready", ready), ("health", ready), ("metrics", metricsPage)] {
            router.get(RouterPath(path), use: handler)
            router.head(RouterPath(path)) { request, context in Self.head(try await handler(request, context)) }
        }
        // Any other method the HTTP/1 parser passes on is 405 with Allow
        // (RFC 9110 §15.5.6), TRACE and OPTIONS included, whether the routes
        // are at the root or mounted; with a body, the request gate gives
        // the same answer before the body is read (RegistryRoutes).
        for route in RegistryRoutes.all {
            for method in Self.parsedMethods where !route.methods.contains(method) {
                router.on(RouterPath(route.path), method: method) { _, _ in Self.methodNotAllowed(route) }
            }
        }
        let api = router.group()
        if let access = configuration.access { api.add(middleware: BearerAuthMiddleware(verifier: access)) }
        api.get("screens/:id") { [self] request, context in
            await screen(request, id: Self.pathID(context.parameters, kind: "screen"))
        }
        api.get("design-tokens") { [self] request, _ in await designTokens(request) }
        // HEAD: the GET answer's status and headers, without its body.
        api.head("screens/:id") { [self] request, context in
            Self.head(await screen(request, id: Self.pathID(context.parameters, kind: "screen")))
        }
        api.head("design-tokens") { [self] request, _ in Self.head(await designTokens(request)) }
        api.get("flows/:id") { [self] request, context in
            await flow(request, id: Self.pathID(context.parameters, kind: "flow"))
        }
        api.head("flows/:id") { [self] request, context in
            Self.head(await flow(request, id: Self.pathID(context.parameters, kind: "flow")))
        }
        api.get("experiments") { [self] request, _ in experiments(request) }
        api.head("experiments") { [self] request, _ in Self.head(experiments(request)) }
        api.get("strings") { [self] request, _ in strings(request, locale: nil) }
        api.head("strings") { [self] request, _ in Self.head(strings(request, locale: nil)) }
        api.get("strings/:locale") { [self] request, context in
            strings(request, locale: context.parameters.get("locale") ?? "")
        }
        api.head("strings/:locale") { [self] request, context in
            Self.head(strings(request, locale: context.parameters.get("locale") ?? ""))
        }
        api.post("events") { [self] request, _ in await events(request) }
    }

    /// Every request method NIO's HTTP/1 parser (llhttp) accepts, as NIO
    /// names them (`M-SEARCH` arrives as `MSEARCH`); any other is a parse
    /// error, answered 400 before routing.  A route answers 405 to each of
    /// these it does not take.
    static let parsedMethods: [HTTPRequest.Method] = [
        "DELETE", "GET", "HEAD", "POST", "PUT", "CONNECT", "OPTIONS", "TRACE", "COPY", "LOCK", "MKCOL", "MOVE",
        "PROPFIND", "PROPPATCH", "SEARCH", "UNLOCK", "BIND", "REBIND", "UNBIND", "ACL", "REPORT", "MKACTIVITY",
        "CHECKOUT", "MERGE", "MSEARCH", "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE", "PATCH", "PURGE", "MKCALENDAR",
        "LINK", "UNLINK", "SOURCE", "QUERY",
    ].map { HTTPRequest.Method($0)! }

    /// 405 for a method `route` does not take: `Allow` and the JSON error
    /// body every error has.
    static func methodNotAllowed(_ route: RegistryRoutes.Route) -> Response {
        var r = error(.methodNotAllowed, "method-not-allowed", route.notAllowedMessage)
        r.headers[.allow] = route.allow
        return r
    }

    /// `response` for a HEAD request: the same headers, the GET body's
    /// length, no body.
    static func head(_ response: Response) -> Response {
        var r = response
        // A body that announces the GET body's length and writes nothing.
        r.body = ResponseBody(contentLength: response.body.contentLength) { writer in try await writer.finish(nil) }
        return r
    }

    static let primitivesField = HTTPField.Name("X-Primitives")!
    static let primitivesRequired = "the X-Primitives header is required (e.g. Column@3,Text@4)"
    static let missingField = HTTPField.Name("X-SDUI-Missing")!
    /// The user's attributes a screen request may carry (``RequestAttributes``).
    static let attributesField = HTTPField.Name("X-SDUI-Attributes")!
    /// The experiments a screen answer was drawn with (``VariedScreen``).
    static let experimentsField = HTTPField.Name("X-SDUI-Experiments")!
    /// The longest tag `GET /strings/{locale}` takes, extensions included:
    /// a canonical tag's bound (what an app's `LocaleTag` sends), so that
    /// the OpenAPI document can say exactly what the path accepts.
    static let maxPathLocaleBytes = LocaleTag.maxCanonicalBytes

    /// Longest error message: its echoes of the request are cut to
    /// ``EchoedInput/maxBytes`` each, and the whole to this.
    static let maxMessageBytes = 1024

    /// The JSON of an error answer: `{"error": code, "message": …}` plus `extra`.
    static func errorBody(_ code: String, _ message: String, extra: [String: JSONValue] = [:]) -> Data {
        var body: [String: JSONValue] = ["error": .string(code),
                                          "message": .string(EchoedInput.clipped(message, maxBytes: maxMessageBytes))]
        body.merge(extra) { _, new in new }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(body)) ?? Data("{}".utf8)
    }

    /// A JSON error answer: `{"error": code, "message": …}`, never cached.
    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String,
                      extra: [String: JSONValue] = [:], vary: Bool = false) -> Response {
        let data = errorBody(code, message, extra: extra)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if vary { headers[.vary] = "X-Primitives" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The client's primitives, or the 400 to send.
    func primitives(_ request: Request) -> Result<PrimitiveMap, RegistryError> {
        primitives(header: request.headers[Self.primitivesField])
    }

    /// `X-Primitives` parsed (once per distinct value), or the 400 to send.
    func primitives(header: String?) -> Result<PrimitiveMap, RegistryError> {
        guard let header else {
            return .failure(RegistryError(.invalid, Self.primitivesRequired))
        }
        if let hit = headerCache.withLockedValue({ $0[header] }) { return .success(hit) }
        do {
            let map = try PrimitiveMap(parsing: header)
            headerCache.withLockedValue { cache in
                if cache.count >= 256 { cache.removeAll(keepingCapacity: true) }
                cache[header] = map
            }
            return .success(map)
        } catch let e as SDUIError {
            return .failure(RegistryError(.invalid, EchoedInput.clipped(e.description, maxBytes: Self.maxMessageBytes)))
        } catch {
            return .failure(RegistryError(.invalid, EchoedInput.clipped("\(error)", maxBytes: Self.maxMessageBytes)))
        }
    }

    /// Headers of a 200 or 304: ETag, Cache-Control, Vary.  Signed answers
    /// are `private`: their ETag names the token JSON, not the signed bytes,
    /// so a shared cache must not revalidate one across a key rotation.
    func cacheHeaders(etag: String?) -> HTTPFields {
        let control = "max-age=\(configuration.maxAge)" + (configuration.signer == nil ? "" : ", private")
        var h: HTTPFields = [.cacheControl: control, .vary: "X-Primitives"]
        if let etag { h[.eTag] = etag }
        return h
    }

    /// Whether the request's `If-None-Match` names `etag`.  Only a
    /// conditional request may get a 304 (RFC 9110 §15.4.5), so the `v`
    /// hint of `/design-tokens` never does.
    func notModified(_ request: Request, etag: String) -> Bool {
        guard let inm = request.headers[.ifNoneMatch] else { return false }
        return EntityTagMatch.matches(inm, current: etag)
    }

    /// The registry id a path's `:id` names, or why it names none (the
    /// message of a 400 `bad-id`).  The router hands a path component as
    /// it was sent, so it is percent-decoded first (RFC 3986 §2.1): a
    /// client may send `no:such` as `no%3Asuch`.  A `%` not followed by two
    /// hex digits, or bytes that are not UTF-8, name no id.  Every route
    /// with an `{id}` reads it here.
    static func pathID(_ parameters: Parameters, kind: String) -> Result<String, RegistryError> {
        let raw = parameters.get("id") ?? ""
        guard let id = raw.removingPercentEncoding else {
            return .failure(RegistryError(.invalid, "\(EchoedInput.quoted(raw)) is not a \(kind) id: it does not "
                                          + "percent-decode to UTF-8"))
        }
        guard RegistryID.isValid(id) else {
            return .failure(RegistryError(.invalid,
                                          "\(EchoedInput.quoted(id)) is not a \(kind) id (1–128 of A–Z a–z 0–9 _ - . :)"))
        }
        return .success(id)
    }

    /// `GET /screens/{id}`.
    func screen(_ request: Request, id pathID: Result<String, RegistryError>) async -> Response {
        let id: String
        switch pathID {
        case .success(let i): id = i
        case .failure(let e): return Self.error(.badRequest, "bad-id", e.message)
        }
        let map: PrimitiveMap
        switch primitives(request) {
        case .success(let m): map = m
        case .failure(let e): return Self.error(.badRequest, "bad-primitives", e.message)
        }
        let snap = snapshot()
        guard let screen = snap.screens[id] else {
            return Self.error(.notFound, "not-found", "no screen \(EchoedInput.quoted(id))")
        }
        let incompatible = screen.tokenIDs.filter { tid in
            guard let versions = snap.tokens[tid], !versions.isEmpty else { return false }
            return !versions.contains { $0.isSupported(by: map) }
        }
        if !incompatible.isEmpty {
            var extra: [String: JSONValue] = ["tokens": .array(incompatible.map { .string($0) })]
            extra["fallbackScreenId"] = screen.stored.fallbackScreenID.map { .string($0) } ?? .null
            return Self.error(.conflict, "Incompatible-Primitives",
                              "no version of \(EchoedInput.clipped(incompatible.joined(separator: ", "))) fits "
                                  + EchoedInput.clipped(map.headerValue),
                              extra: extra, vary: true)
        }
        // Experiments: the variation of a user whose attributes the request
        // carries (ServedExperiment.swift); the stored screen otherwise.
        let attributes: [String: JSONValue]?
        switch RequestAttributes.parse(request.headers[Self.attributesField]) {
        case .success(let a): attributes = a
        case .failure(let e): return Self.error(.badRequest, "bad-attributes", e.message)
        }
        let varies = snap.hasExperiments(for: screen)
        var payload = (json: screen.stored.payload, etag: screen.etag)
        var served: String?
        if varies, let attributes {
            let varied = snap.varied(screen, attributes: attributes, map: map)
            do {
                payload = try snap.payload(of: varied)
            } catch {
                logger.error("a varied screen could not be drawn; serving the stored one",
                             metadata: ["id": "\(EchoedInput.quoted(id))", "error": "\(error)"])
            }
            served = varied.headerValue
        }
        var headers = cacheHeaders(etag: payload.etag)
        if varies {
            // One user's variation is no one else's answer.
            headers[.vary] = "X-Primitives, X-SDUI-Attributes"
            if attributes != nil { headers[.cacheControl] = "private, max-age=\(configuration.maxAge)" }
        }
        if let served { headers[Self.experimentsField] = served }
        if notModified(request, etag: payload.etag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: payload.json)))
    }

    /// `GET /strings/{locale}` (`locale` given) or `GET /strings` (the best
    /// of the request's `Accept-Language` the registry has a catalog on the
    /// chain of, else the default locale): the bundle of the locale's
    /// catalogs (``ServedStrings``), with `Content-Language`, an ETag and
    /// 304.  400 `bad-locale` for a path that is not a locale tag (or is
    /// one of more than ``maxPathLocaleBytes``, extensions included); 404
    /// `not-found` when the registry has no catalogs.
    func strings(_ request: Request, locale raw: String?) -> Response {
        let served = snapshot().strings
        let locale: String
        if let raw {
            do {
                let text = raw.removingPercentEncoding ?? raw
                guard text.utf8.count <= Self.maxPathLocaleBytes else {
                    throw SDUIError(.argument, "longer than \(Self.maxPathLocaleBytes) bytes", input: "locale")
                }
                locale = try LocaleTag(text).identifier
            } catch {
                return Self.error(.badRequest, "bad-locale",
                                  "\(EchoedInput.quoted(raw)) is not a locale tag: \((error as? SDUIError)?.message ?? "\(error)")")
            }
        } else {
            let wanted = AcceptLanguage(header: request.headers[.acceptLanguage] ?? "")
            locale = wanted.best(among: served.locales) ?? served.defaultLocale ?? served.locales.min() ?? "en"
        }
        guard let body = served.bundle(for: locale) else {
            return Self.error(.notFound, "not-found", "the registry has no string catalogs")
        }
        var headers = cacheHeaders(etag: body.etag)
        headers[.vary] = raw == nil ? "Accept-Language" : nil
        headers[.contentLanguage] = locale
        if notModified(request, etag: body.etag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.json)))
    }

    /// `GET /experiments`: `{"experiments": [...]}`, the running
    /// experiments' definitions as stored, by key, with ETag and 304 as for
    /// screens.  It does not depend on the app's primitives: an app assigns
    /// from it offline (`ExperimentSource`) and judges eligibility itself.
    func experiments(_ request: Request) -> Response {
        let body = snapshot().experimentsBody
        var headers = cacheHeaders(etag: body.etag)
        headers[.vary] = nil
        if notModified(request, etag: body.etag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.json)))
    }

    /// `GET /flows/{id}`: the published definition, with ETag and 304 as
    /// for screens.  A client whose `X-Primitives` lacks a primitive the
    /// flow's blocks draw with gets a 409 naming them.
    func flow(_ request: Request, id pathID: Result<String, RegistryError>) async -> Response {
        let id: String
        switch pathID {
        case .success(let i): id = i
        case .failure(let e): return Self.error(.badRequest, "bad-id", e.message)
        }
        let map: PrimitiveMap
        switch primitives(request) {
        case .success(let m): map = m
        case .failure(let e): return Self.error(.badRequest, "bad-primitives", e.message)
        }
        guard let flow = snapshot().flows[id] else {
            return Self.error(.notFound, "not-found", "no flow \(EchoedInput.quoted(id))")
        }
        let missing = flow.requirements.filter { !map.supports($0.0, version: $0.1) }
        if !missing.isEmpty {
            let names = missing.map { "\($0.0)@\($0.1)" }
            return Self.error(.conflict, "Incompatible-Primitives",
                              "flow \(EchoedInput.quoted(id)) needs \(names.joined(separator: ", ")); the app has "
                                  + EchoedInput.clipped(map.headerValue),
                              extra: ["primitives": .array(names.map { .string($0) })], vary: true)
        }
        var headers = cacheHeaders(etag: flow.etag)
        if notModified(request, etag: flow.etag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: flow.stored.json)))
    }

    /// Most bytes of one `POST /events` body, and most events in it.
    static let maxEventsBodyBytes = 256 << 10
    static let maxEventsPerBatch = 500

    /// `POST /events`: stores a batch `{"events": [...]}` idempotently (an
    /// event id already stored is counted as a duplicate, not stored
    /// again) and answers `{"accepted": n, "duplicates": m}`.
    ///
    /// The body must be `application/json` (415 otherwise).  A body that is
    /// not such a batch is a 400 `bad-events` and nothing of it is stored.
    /// When the fault lies in events (not in the body as a whole), the
    /// answer lists every refused event in `refused`, each as
    /// `{"index", "id", "field", "message"}` (``EventRules``), so a client
    /// can drop exactly those and send the others again.
    func events(_ request: Request) async -> Response {
        guard Self.isJSON(request.headers[.contentType]) else {
            let given = request.headers[.contentType].map { EchoedInput.quoted($0) } ?? "none"
            var r = Self.error(.unsupportedMediaType, "unsupported-media-type",
                               "POST /events takes a body of Content-Type application/json; this one has \(given)")
            r.headers[Self.acceptPostField] = "application/json"
            return r
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maxEventsBodyBytes)
        } catch {
            return Self.error(.contentTooLarge, "too-large", "an event batch is at most \(Self.maxEventsBodyBytes) bytes")
        }
        let data = Data(buffer: buffer)
        let batch: [StoredEvent], reports: [ClientReport]
        switch Self.parseEvents(data) {
        case .success(let b): (batch, reports) = b
        case .failure(let refusal): return refused(refusal)
        }
        let result: EventStoreResult
        do {
            result = try await store.storeEvents(batch)
        } catch let e as RegistryError where e.code == .invalid {
            // A store's own check (EventRules): the client's fault, as above.
            return refused(BatchRefusal(message: e.message, events: []))
        } catch {
            logger.error("storing events failed", metadata: ["error": "\(error)"])
            return Self.error(.serviceUnavailable, "store-unavailable", "the events could not be stored; send them again")
        }
        Counter(label: "sdui_events_received_total", factory: metricsFactory).increment(by: result.accepted)
        Counter(label: "sdui_events_duplicate_total", factory: metricsFactory).increment(by: result.duplicates)
        Counter(label: "sdui_event_batches_total", factory: metricsFactory).increment()
        countClientReports(result.stored.map { reports[$0] })
        let body = #"{"accepted":\#(result.accepted),"duplicates":\#(result.duplicates)}"#
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// What one event reports about its client's token cache, read from
    /// the event while its batch is parsed (nothing is parsed again): a
    /// `cache_stats` event's `lookups` and `hits` (each a non-negative
    /// integer, hits at most lookups, at most ``maxReportedLookups``; an
    /// event outside that reports nothing), and whether it is an
    /// `unknown_primitive` event.
    struct ClientReport {
        var lookups: Int64 = 0
        var hits: Int64 = 0
        var unknownPrimitive = false
        /// An `experiment_exposure`'s experiment key, variation id (each 1
        /// to 128 characters, no control characters: they become metric
        /// labels) and eligibility (true unless said false).
        var exposure: (experiment: String, variation: String, eligible: Bool)?

        /// The report of the event `name` with members `object`.
        init(name: String, object: [String: JSONValue]) {
            switch name {
            case EventKind.cacheStats.name:
                guard let p = object["properties"], let l = p["lookups"].flatMap(EventRules.integer),
                      let h = p["hits"].flatMap(EventRules.integer),
                      l >= 0, h >= 0, h <= l, l <= RegistryServer.maxReportedLookups else { return }
                (lookups, hits) = (l, h)
            case EventKind.unknownPrimitive.name:
                unknownPrimitive = true
            case EventKind.experimentExposure.name:
                guard let p = object["properties"], let key = p["experiment"]?.stringValue,
                      let variation = p["variation"]?.stringValue,
                      [key, variation].allSatisfy({ v in
                          !v.isEmpty && v.unicodeScalars.count <= 128
                              && !v.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
                      }) else { return }
                exposure = (key, variation, p["eligible"]?.boolValue ?? true)
            default:
                return
            }
        }
    }

    /// Adds the reports of newly stored events to the fleet's counters.
    /// Only events stored now are counted, so a batch sent again adds nothing.
    func countClientReports(_ reports: [ClientReport]) {
        let lookups = reports.reduce(0) { $0 + Int($1.lookups) }
        let hits = reports.reduce(0) { $0 + Int($1.hits) }
        let unknown = reports.filter(\.unknownPrimitive).count
        if lookups > 0 { Counter(label: "sdui_client_token_lookups_total", factory: metricsFactory).increment(by: lookups) }
        if hits > 0 { Counter(label: "sdui_client_token_hits_total", factory: metricsFactory).increment(by: hits) }
        if unknown > 0 { Counter(label: "sdui_client_unknown_primitive_total", factory: metricsFactory).increment(by: unknown) }
        var exposures: [String: (experiment: String, variation: String, eligible: Bool, count: Int)] = [:]
        for case let e? in reports.map(\.exposure) {
            let id = "\(e.experiment)\u{0}\(e.variation)\u{0}\(e.eligible)"
            exposures[id, default: (e.experiment, e.variation, e.eligible, 0)].count += 1
        }
        for e in exposures.values.sorted(by: { ($0.experiment, $0.variation) < ($1.experiment, $1.variation) }) {
            let pair = "\(e.experiment)\u{0}\(e.variation)"
            let labeled = exposureSeries.withLockedValue { seen in
                if seen.contains(pair) { return true }
                guard seen.count < Self.maxExposureSeries else { return false }
                seen.insert(pair)
                return true
            }
            if labeled {
                Counter(label: "sdui_experiment_exposures_total",
                        dimensions: [("experiment", e.experiment), ("variation", e.variation), ("eligible", String(e.eligible))],
                        factory: metricsFactory).increment(by: e.count)
            } else {
                Counter(label: "sdui_experiment_exposures_unlabeled_total", factory: metricsFactory).increment(by: e.count)
            }
        }
    }

    /// The most lookups one `cache_stats` event may report and be counted:
    /// a client reports per screen shown, so more is a broken or hostile
    /// client, which must not swing the fleet's ratio.
    static let maxReportedLookups: Int64 = 1_000_000

    static let acceptPostField = HTTPField.Name("Accept-Post")!

    /// Whether a `Content-Type` value is `application/json` (any case,
    /// parameters such as `charset=utf-8` allowed).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return media.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// Why a batch is refused: the message, and each refused event (none
    /// when the body as a whole is at fault).
    struct BatchRefusal: Error {
        var message: String
        var events: [EventRules.Refusal]
    }

    /// The 400 of a refused batch, counted in `sdui_events_refused_total`.
    func refused(_ refusal: BatchRefusal) -> Response {
        Counter(label: "sdui_event_batches_refused_total", factory: metricsFactory).increment()
        guard !refusal.events.isEmpty else { return Self.error(.badRequest, "bad-events", refusal.message) }
        Counter(label: "sdui_events_refused_total", factory: metricsFactory).increment(by: refusal.events.count)
        let listed: [JSONValue] = refusal.events.map { r in
            .object(["index": .int(Int64(r.index)), "id": r.id.map { .string($0) } ?? .null,
                     "field": r.field.map { .string($0) } ?? .null, "message": .string(r.message)])
        }
        return Self.error(.badRequest, "bad-events", refusal.message, extra: ["refused": .array(listed)])
    }

    /// The events of a batch body, each checked, with what each reports
    /// about its client (``ClientReport``), or why the batch is refused:
    /// every event that breaks a rule, or the fault of the whole.
    static func parseEvents(_ data: Data) -> Result<(events: [StoredEvent], reports: [ClientReport]), BatchRefusal> {
        let value: JSONValue
        do {
            value = try JSONValue(json: data, source: "POST /events")
        } catch {
            return .failure(BatchRefusal(message: "\(error)", events: []))
        }
        guard let items = value["events"]?.arrayValue else {
            return .failure(BatchRefusal(message: "the body must be {\"events\": [...]}", events: []))
        }
        guard !items.isEmpty, items.count <= maxEventsPerBatch else {
            return .failure(BatchRefusal(message: "a batch holds 1 to \(maxEventsPerBatch) events, not \(items.count)",
                                         events: []))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out: [StoredEvent] = []
        var reports: [ClientReport] = []
        var refused: [EventRules.Refusal] = []
        var seen = Set<String>()
        for (i, e) in items.enumerated() {
            let id = e["id"]?.stringValue
            func refuse(_ field: String?, _ reason: String) {
                refused.append(EventRules.Refusal(index: i, id: id, field: field,
                                                  message: "\(EventRules.label(i, id)): \(reason)"))
            }
            guard let object = e.objectValue else { refuse(nil, "must be an object"); continue }
            if let (field, reason) = EventRules.typeFault(in: object) { refuse(field, reason); continue }
            guard let id, let name = object["name"]?.stringValue, let flow = object["flowId"]?.stringValue,
                  let user = object["userId"]?.stringValue, let ts = object["timestamp"].flatMap(EventRules.integer) else {
                assertionFailure("EventRules.members checks the types of the indexed members")
                refuse(nil, "cannot be read")
                continue
            }
            guard let json = try? encoder.encode(e) else { refuse(nil, "cannot be stored"); continue }
            let event = StoredEvent(id: id, name: name, flowID: flow, userID: user, timestamp: ts, json: json)
            if let r = EventRules.refusal(of: event, at: i) {
                refused.append(r)
                continue
            }
            guard seen.insert(id).inserted else { continue }   // twice in one batch: kept once
            out.append(event)
            reports.append(ClientReport(name: name, object: object))
        }
        guard refused.isEmpty else {
            let more = refused.count > 1 ? "; \(refused.count) of \(items.count) events refused" : ""
            return .failure(BatchRefusal(message: refused[0].message + more, events: refused))
        }
        return .success((out, reports))
    }

    /// The ids of a `/design-tokens` request, or the 400 message.
    func ids(_ request: Request) -> Result<[String], RegistryError> {
        let given = request.uri.queryParameters.getAll("ids")
        guard given.count <= 1 else {
            return .failure(RegistryError(.invalid, "ids is given \(given.count) times; give one comma-separated list: "
                                          + "/design-tokens?ids=a,b"))
        }
        guard let raw = given.first, !raw.isEmpty else {
            return .failure(RegistryError(.invalid, "ids is required: /design-tokens?ids=a,b"))
        }
        let ids = raw.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard ids.count <= configuration.maxIDs else {
            return .failure(RegistryError(.invalid, "\(ids.count) ids; at most \(configuration.maxIDs) per request"))
        }
        var seen = Set<String>()
        for id in ids {
            guard RegistryID.isValid(id) else {
                return .failure(RegistryError(.invalid,
                                              "\(EchoedInput.quoted(id)) is not a token id (1–128 of A–Z a–z 0–9 _ - . :)",
                                              subject: id))
            }
            guard seen.insert(id).inserted else {
                return .failure(RegistryError(.invalid, "\(EchoedInput.quoted(id)) is asked for twice", subject: id))
            }
        }
        return .success(ids)
    }

    /// `GET /design-tokens?ids=…&v=…`.
    ///
    /// Answers are cached by registry generation, X-Primitives value and raw
    /// query, so a repeated request skips parsing, validation and building;
    /// a query is only cached after it passed validation.
    func designTokens(_ request: Request) async -> Response {
        guard let header = request.headers[Self.primitivesField] else {
            return Self.error(.badRequest, "bad-primitives", Self.primitivesRequired)
        }
        let snap = snapshot()
        let query = request.uri.query ?? ""
        let key = "\(snap.generation)\u{0}\(header)\u{0}\(query)"
        let answer: TokenAnswer
        if let hit = answerCache.withLockedValue({ $0.answers[key] }) {
            answer = hit
        } else {
            let asked: [String]
            switch ids(request) {
            case .success(let a): asked = a
            case .failure(let e): return Self.error(.badRequest, "bad-ids", e.message)
            }
            let map: PrimitiveMap
            switch primitives(header: header) {
            case .success(let m): map = m
            case .failure(let e): return Self.error(.badRequest, "bad-primitives", e.message)
            }
            answer = Self.answer(asked, snap, map)
            answerCache.withLockedValue { cache in
                let size = answer.body.readableBytes + key.utf8.count
                if cache.answers.count >= 4096 || cache.bytes + size > Self.answerCacheBytes {
                    cache = ([:], 0)
                }
                cache.answers[key] = answer
                cache.bytes += size
            }
        }
        guard let etag = answer.etag else {
            return Self.error(.notFound, "not-found",
                              "no version of \(EchoedInput.clipped(answer.missing.joined(separator: ", "))) fits "
                                  + EchoedInput.clipped(header),
                              extra: ["ids": .array(answer.missing.map { .string($0) })], vary: true)
        }
        var headers = cacheHeaders(etag: etag)
        if !answer.missing.isEmpty { headers[Self.missingField] = answer.missing.joined(separator: ",") }
        if notModified(request, etag: etag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: answer.body))
    }

    /// Builds the array of the best versions, its batch ETag and the misses.
    static func answer(_ ids: [String], _ snap: RegistrySnapshot, _ map: PrimitiveMap) -> TokenAnswer {
        var served: [ServedToken] = []
        var missing: [String] = []
        for id in ids {
            if let best = snap.best(id, for: map) { served.append(best) } else { missing.append(id) }
        }
        var body = ByteBuffer()
        body.reserveCapacity(served.reduce(2) { $0 + $1.element.count + 1 })
        body.writeInteger(UInt8(ascii: "["))
        for (i, t) in served.enumerated() {
            if i > 0 { body.writeInteger(UInt8(ascii: ",")) }
            body.writeBytes(t.element)
        }
        body.writeInteger(UInt8(ascii: "]"))
        return TokenAnswer(etag: served.isEmpty ? nil : ETag.batch(served.map(\.etag)), body: body, missing: missing)
    }
}
#endif
