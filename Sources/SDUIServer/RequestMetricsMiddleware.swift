// RequestMetricsMiddleware.swift - request counts and durations for /metrics.
#if Server
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Metrics

/// Records every request through swift-metrics (Prometheus by default): latency histograms per route
/// (`sdui_http_request_duration_seconds{route,method}`, so the p95 of
/// `/design-tokens` can be read), counts per route and status
/// (`sdui_http_requests_total`), and server errors (`sdui_http_errors_total`,
/// statuses of 500 and above, and thrown errors): the documented 4xx answers
/// (a 404 for an unknown id, a 409 for an incompatible screen) are normal
/// traffic, split by the `status` label of the request counter.
///
/// The latency buckets run from 50 µs to 5 s: a warm answer takes well under
/// a millisecond, and p50 and p95 must fall between bucket bounds that tell
/// them apart, not all in the lowest one.
///
/// The `route` label is the registry's own route (`/design-tokens`,
/// `/screens/{id}`), also when a host mounts the routes under a prefix
/// (``RegistryServer/routes(context:)``): the prefix is the host's, so the
/// same dashboard queries work for every mount.  A path no route matches is
/// `NotFound`.  The error counter has a series of 0 for every route from
/// the start, so an error rate reads 0 rather than nothing.
/// The names and latency buckets of the request metrics.
enum RequestMetrics {
    static let durationLabel = "sdui_http_request_duration_seconds"
    static let requestsLabel = "sdui_http_requests_total"
    static let errorsLabel = "sdui_http_errors_total"

    /// The registry's routes (``RegistryRoutes/all``) as Hummingbird writes
    /// them, longest first, so `/health/ready` is matched before `/health`.
    static let routes = RegistryRoutes.all.map(\.templatePath)
        .sorted { ($0.count, $0) > ($1.count, $1) }

    /// The `route` label of a request Hummingbird routed to `endpoint`:
    /// the registry route it ends with, without the mount prefix.
    static func route(_ endpoint: String?) -> String {
        guard let endpoint else { return "NotFound" }
        return routes.first { endpoint == $0 || endpoint.hasSuffix($0) } ?? endpoint
    }

    static var buckets: [Duration] {
        [.microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
         .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
         .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5)]
    }
}

struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let factory: any MetricsFactory
    /// The metric objects by label values, so a request does one lookup.
    let instruments = NIOLockedValueBox<[String: (Metrics.Timer, Counter, Counter?)]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
        for route in RequestMetrics.routes {   // each route's error series, at 0
            _ = Counter(label: RequestMetrics.errorsLabel, dimensions: [("route", route), ("status", "500")], factory: factory)
        }
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
        let route = RequestMetrics.route(context.endpointPath)
        let method = request.method.rawValue
        let key = "\(route) \(method) \(status)"
        let (timer, counter, errors) = instruments.withLockedValue { cache in
            if let hit = cache[key] { return hit }
            let made = (Metrics.Timer(label: RequestMetrics.durationLabel, dimensions: [("route", route), ("method", method)],
                                      factory: factory),
                        Counter(label: RequestMetrics.requestsLabel,
                                dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory),
                        status >= 500 ? Counter(label: RequestMetrics.errorsLabel,
                                                dimensions: [("route", route), ("status", String(status))], factory: factory) : nil)
            if cache.count < 10_000 { cache[key] = made }
            return made
        }
        timer.record(duration: ContinuousClock.now - start)
        counter.increment()
        errors?.increment()
    }
}
#endif
