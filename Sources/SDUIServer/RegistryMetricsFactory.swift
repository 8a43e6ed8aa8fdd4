// RegistryMetricsFactory.swift - the server's metrics into a Prometheus registry, each family with its HELP text.
#if Server
import Metrics
import Prometheus

/// Records the server's swift-metrics into a `PrometheusCollectorRegistry`
/// with each family's help text, so `/metrics` has a `# HELP` and a
/// `# TYPE` line for every family (`promtool check metrics` passes).
/// swift-prometheus' own `PrometheusMetricsFactory` registers everything
/// with an empty help text, which the exposition then leaves out.
///
/// The help text comes from ``RegistryMetrics/help``; a label it does not
/// know gets the label itself.  Latency histograms take their buckets from
/// `durationBuckets` by label (``RequestMetrics/buckets`` for the request
/// latency), value histograms from `valueBuckets`.
struct RegistryMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    var durationBuckets: [String: [Duration]] = [RequestMetrics.durationLabel: RequestMetrics.buckets]
    var defaultDurationBuckets: [Duration] = RequestMetrics.buckets
    var valueBuckets: [Double] = [0.001, 0.01, 0.1, 1, 10, 100, 1000, 10_000]

    /// The registry's name for `label`, with its help text.
    func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: RegistryMetrics.help[label] ?? label)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions, buckets: valueBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions,
                                       buckets: durationBuckets[label] ?? defaultDurationBuckets)
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let c = handler as? Prometheus.Counter { registry.unregisterCounter(c) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let c = handler as? Prometheus.Counter { registry.unregisterCounter(c) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        if let g = handler as? Prometheus.Gauge { registry.unregisterGauge(g) }
        if let h = handler as? ValueHistogram { registry.unregisterValueHistogram(h) }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let g = handler as? Prometheus.Gauge { registry.unregisterGauge(g) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let h = handler as? DurationHistogram { registry.unregisterDurationHistogram(h) }
    }
}

/// The metric families the server records, and what each means: the
/// `# HELP` text `/metrics` shows (and the list the dashboard and the
/// OpenAPI document name).
public enum RegistryMetrics {
    /// Help text by metric name.
    public static let help: [String: String] = [
        RequestMetrics.durationLabel: "Time to answer a request, by registry route (without any mount prefix) and method.",
        RequestMetrics.requestsLabel: "Requests answered, by registry route (without any mount prefix), method and status.",
        RequestMetrics.errorsLabel: "Requests answered with a status of 500 or more, or that failed, by registry route and status.",
        "sdui_build_info": "The SDUIKit version serving (always 1; the version is the label).",
        "sdui_registry_generation": "The registry sequence number the served snapshot has reached.",
        "sdui_registry_token_ids": "Token ids in the served snapshot.",
        "sdui_registry_refresh_failures_total": "Refreshes of the snapshot from the store that failed.",
        "sdui_registry_refresh_age_seconds": "Seconds since the store last answered a refresh of the snapshot.",
        "sdui_events_received_total": "Analytics events stored by POST /events.",
        "sdui_events_duplicate_total": "Analytics events POST /events received again after they were stored (kept once).",
        "sdui_event_batches_total": "Event batches POST /events stored.",
        "sdui_event_batches_refused_total": "Event batches POST /events refused as bad (400 bad-events); nothing of them is stored.",
        "sdui_events_refused_total": "Events POST /events refused by name in a bad batch (a NUL in an indexed field, a missing member).",
        "sdui_client_token_lookups_total": "Token lookups the clients reported in cache_stats events (newly stored ones).",
        "sdui_client_token_hits_total": "Token lookups the clients reported served from their pack, memory or disk cache (cache_stats hits).",
        "sdui_client_unknown_primitive_total": "unknown_primitive events the clients reported (newly stored ones).",
        "sdui_experiment_exposures_total":
            "experiment_exposure events the clients reported (newly stored ones), by experiment, variation and eligible.",
        "sdui_experiment_exposures_unlabeled_total":
            "experiment_exposure events counted without labels: beyond the registry's bound on experiment and variation pairs.",
        "sdui_experiment_weight":
            "Each running experiment's share of assignment per variation (the effective weights, summing to 1).",
        "sdui_experiment_srm_critical":
            "The chi-square above which a running experiment's split is a sample-ratio mismatch (p < 0.001).",
        "sdui_events_pruned_total": "Analytics events deleted by the retention (too old, or beyond the most kept).",
    ]
}
#endif
