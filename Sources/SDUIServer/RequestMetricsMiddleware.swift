// RequestMetricsMiddleware.swift - request counts and durations for /metrics.
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Prometheus

/// Records every request in Prometheus: latency histograms per route
/// (`sdui_http_request_duration_seconds{route,method}`, so the p95 of
/// `/design-tokens` can be read, seed 000 §9), counts per route and status
/// (`sdui_http_requests_total`), and server errors (`sdui_http_errors_total`,
/// statuses of 500 and above, and thrown errors): the documented 4xx answers
/// (a 404 for an unknown id, a 409 for an incompatible screen) are normal
/// traffic, split by the `status` label of the request counter.
///
/// The latency buckets run from 50 µs to 5 s: a warm answer takes well under
/// a millisecond, and p50 and p95 must fall between bucket bounds that tell
/// them apart, not all in the lowest one.
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
                             unitName: "total", helpText: "Requests answered with a status of 500 or more")
    }

    static var buckets: [Duration] {
        [.microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
         .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
         .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5)]
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
                        status >= 500 ? registry.makeCounter(descriptor: Self.errors,
                                                             labels: [("route", route), ("status", String(status))]) : nil)
            if cache.count < 10_000 { cache[key] = made }
            return made
        }
        histogram.record(ContinuousClock.now - start)
        counter.increment()
        errors?.increment()
    }
}
