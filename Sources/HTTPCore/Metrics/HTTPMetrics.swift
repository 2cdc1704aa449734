import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// Request counts by route template, method and status, and latency histograms by route
/// template and method, for `/metrics`. Fed by `HTTPMetricsMiddleware`.
///
/// Recording is cheap on the hot path: each thread records into its own shard (found through
/// a thread-local key), whose lock is contended only while a scrape reads it; there is no
/// process-wide lock per request. A scrape merges the shards.
public final class HTTPMetrics: @unchecked Sendable {
    /// Latency bucket upper bounds, in seconds.
    public static let latencyBounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    static let latencyBoundsNanos: [UInt64] = latencyBounds.map { UInt64(($0 * 1e9).rounded()) }

    private let key: pthread_key_t
    private let registryLock = NSLock()
    private var shards: [Shard] = []  // guarded by registryLock; retains every shard

    public init() {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        self.key = key
    }

    deinit {
        pthread_key_delete(key)
    }

    /// Records one answered request.
    /// - Parameters:
    ///   - route: the route template, e.g. "/v1/users/{user}", or "unmatched".
    ///   - method: the request method.
    ///   - status: the response status code.
    ///   - nanoseconds: time from the request reaching the middleware to its response.
    public func record(route: String, method: HTTPMethod, status: Int, nanoseconds: UInt64) {
        shard().record(route: route, method: method.rawValue, status: status, nanoseconds: nanoseconds)
    }

    /// This thread's shard, created on first use.
    private func shard() -> Shard {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Shard>.fromOpaque(pointer).takeUnretainedValue()
        }
        let shard = Shard()
        registryLock.lock()
        shards.append(shard)
        registryLock.unlock()
        // Unretained: `shards` keeps it alive as long as this registry.
        pthread_setspecific(key, Unmanaged.passUnretained(shard).toOpaque())
        return shard
    }

    /// The merged counters of every shard.
    public func snapshot() -> Snapshot {
        registryLock.lock()
        let all = shards
        registryLock.unlock()
        var merged = Snapshot()
        for shard in all { shard.merge(into: &merged) }
        return merged
    }

    /// Appends `http_requests_total` and `http_request_duration_seconds`.
    public func render(into text: inout PrometheusText) {
        let snapshot = snapshot()
        text.family("http_requests_total", help: "HTTP requests answered, by route template, method and status.", type: .counter)
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            text.sample(
                "http_requests_total",
                labels: [("route", key.route), ("method", key.method), ("status", String(key.status))],
                value: Double(count))
        }
        text.family(
            "http_request_duration_seconds", help: "Time to produce each HTTP response, by route template and method.",
            type: .histogram)
        for (key, histogram) in snapshot.latencies.sorted(by: { ($0.key.route, $0.key.method) < ($1.key.route, $1.key.method) }) {
            text.histogram(
                "http_request_duration_seconds", labels: [("route", key.route), ("method", key.method)],
                upperBounds: Self.latencyBounds, counts: histogram.counts, sum: Double(histogram.sumNanos) / 1e9)
        }
    }
}
