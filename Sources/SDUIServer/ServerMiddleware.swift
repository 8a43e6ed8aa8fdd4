// ServerMiddleware.swift - what runs around every registry request: the request log, metrics, limits, auth.
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Prometheus

/// Logs one line per request at `level`: method, target and the
/// `headers` asked for.  The target and header values are the client's
/// bytes, so they are logged through ``EchoedInput``: control characters
/// as `\u001b`, each value cut after ``maxBytes``.
/// Authorization is never among the headers.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let level: Logger.Level
    let headers: [HTTPField.Name]
    static var maxBytes: Int { 1024 }

    init(_ level: Logger.Level, headers: [HTTPField.Name]) {
        precondition(!headers.contains(.authorization))
        self.level = level
        self.headers = headers
    }

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        context.logger.log(level: level, "Request", metadata: metadata(request))
        return try await next(request, context)
    }

    /// The log line's fields: `hb.request.method`, `hb.request.path` and
    /// `hb.request.headers`, as Hummingbird's own request log names them;
    /// header values quoted, as `[X-Primitives: "Text@4"]`.
    func metadata(_ request: Request) -> Logger.Metadata {
        let fields = headers.compactMap { name -> String? in
            let values = request.headers[values: name]
            guard !values.isEmpty else { return nil }
            return "\(name.rawName): " + EchoedInput.quoted(values.joined(separator: ", "), maxBytes: Self.maxBytes)
        }
        return ["hb.request.method": .string(request.method.rawValue),
                "hb.request.path": .string(EchoedInput.visible(request.uri.description, maxBytes: Self.maxBytes)),
                "hb.request.headers": .string("[" + fields.joined(separator: ", ") + "]")]
    }
}

/// Records every request in Prometheus: latency histograms per route
/// (`sdui_http_request_duration_seconds{route,method}`, so the p95 of
/// `/design-tokens` can be read, seed 000 §9), counts per route and status
/// (`sdui_http_requests_total`), and errors (`sdui_http_errors_total`, for
/// statuses of 400 and above, and thrown errors).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let registry: PrometheusCollectorRegistry
    /// The metric objects by label values, so a request does one lookup.
    let instruments = NIOLockedValueBox<[String: (DurationHistogram, Counter, Counter?)]>([:])

    init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    static var duration: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "sdui", subsystem: "http", metricName: "request_duration",
                             unitName: "seconds", helpText: "Time to answer a request, by route")
    }
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "sdui", subsystem: "http", metricName: "requests",
                             unitName: "total", helpText: "Requests answered, by route and status")
    }
    static var errors: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "sdui", subsystem: "http", metricName: "errors",
                             unitName: "total", helpText: "Requests answered with a status of 400 or more")
    }

    static var buckets: [Duration] {
        [.microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
         .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
         .milliseconds(500), .seconds(1), .seconds(2.5)]
    }

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: Int(response.status.code), start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError).map { Int($0.status.code) } ?? 500
            record(request, context, status: status, start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, _ start: ContinuousClock.Instant) {
        let route = context.endpointPath ?? "NotFound"
        let method = request.method.rawValue
        let key = "\(route) \(method) \(status)"
        let (histogram, counter, errors) = instruments.withLockedValue { cache in
            if let hit = cache[key] { return hit }
            let made = (registry.makeDurationHistogram(descriptor: Self.duration, labels: [("route", route), ("method", method)],
                                                       buckets: Self.buckets),
                        registry.makeCounter(descriptor: Self.requests,
                                             labels: [("route", route), ("method", method), ("status", String(status))]),
                        status >= 400 ? registry.makeCounter(descriptor: Self.errors,
                                                             labels: [("route", route), ("status", String(status))]) : nil)
            if cache.count < 10_000 { cache[key] = made }
            return made
        }
        histogram.record(ContinuousClock.now - start)
        counter.increment()
        errors?.increment()
    }
}

/// Refuses a request whose request line and header fields add up to more
/// than `maxHeaderBytes` (431) before any work.  Bodies are refused earlier,
/// in the channel pipeline (``RequestHeadGate``).
struct HeaderLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxHeaderBytes: Int

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        var bytes = request.uri.description.utf8.count
        for field in request.headers { bytes += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        if bytes > maxHeaderBytes {
            return RegistryServer.error(.init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                                        "headers-too-large", "request line and headers are \(bytes) bytes; "
                                        + "the limit is \(maxHeaderBytes)")
        }
        return try await next(request, context)
    }
}

/// Requires a valid bearer token (seed 000 §10): 401 with
/// `WWW-Authenticate: Bearer error="invalid_token"` otherwise.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let verifier: AccessTokenVerifier

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        switch verifier.check(authorization: request.headers[.authorization]) {
        case .success:
            return try await next(request, context)
        case .failure(let f):
            var r = RegistryServer.error(.unauthorized, "unauthorized", f.reason)
            let description = f.reason.replacingOccurrences(of: "\"", with: "'")
            r.headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\", error_description=\"\(description)\""
            return r
        }
    }
}
