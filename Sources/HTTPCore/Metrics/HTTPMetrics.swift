import Foundation
import Synchronization

#if canImport(Glibc)
internal import Glibc
#endif

/// Request counts by route template, method and status, and latency histograms by route
/// template and method, for `/metrics`. Fed by `HTTPMetricsMiddleware`.
///
/// Recording is cheap on the hot path: each thread records into its own shard (found through
/// a thread-local key), whose lock is contended only while a scrape reads it; there is no
/// process-wide lock per request. A scrape merges the shards. When a thread ends (Dispatch
/// ends idle worker threads after a few seconds, and starts new ones for the next burst), the
/// key's destructor folds its shard's counts into `retired` and drops the shard, so the shards
/// stay as many as the threads alive, and every count stays exact and monotonic.
///
/// Sendable as checked by the compiler: the registry of shards is behind a `Mutex`, and each
/// shard checks its own owner (`Shard`).
public final class HTTPMetrics: Sendable {
    /// Latency bucket upper bounds, in seconds.
    public static let latencyBounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    static let latencyBoundsNanos: [UInt64] = latencyBounds.map { UInt64(($0 * 1e9).rounded()) }

    private let key: pthread_key_t
    private let registry = Mutex(Registry())

    private struct Registry {
        /// The shards of threads alive.
        var shards: [Shard] = []
        /// What the shards of ended threads counted.
        var retired = Snapshot()
    }

    public init() {
        var key = pthread_key_t()
        // Runs on a thread that ends while it holds a shard (pthread_key_create(3)): the value
        // is the retained shard.
        let status = pthread_key_create(&key) { value in
            guard let value else { return }
            let shard = Unmanaged<Shard>.fromOpaque(value).takeRetainedValue()
            shard.owner?.retire(shard)
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        self.key = key
    }

    /// Deletes the key. Threads still alive then keep their shard (one small object each)
    /// until they end, as deleting a key runs no destructors; the process's registry lives as
    /// long as the process, only tests make more.
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
        let shard = Shard(owner: self)
        registry.withLock { $0.shards.append(shard) }
        // Retained: the thread's reference, given up by the key's destructor when it ends.
        pthread_setspecific(key, Unmanaged.passRetained(shard).toOpaque())
        return shard
    }

    /// Folds an ended thread's shard into `retired` and drops it, in one step under the
    /// registry's lock, so that no scrape counts it twice or misses it.
    private func retire(_ shard: Shard) {
        registry.withLock { registry in
            guard let index = registry.shards.firstIndex(where: { $0 === shard }) else { return }
            registry.shards.remove(at: index)
            shard.merge(into: &registry.retired)
        }
    }

    /// Shards held now: one per thread that recorded and has not ended.
    var shardCount: Int {
        registry.withLock { $0.shards.count }
    }

    /// The merged counters of every shard, ended threads' included. The registry's lock is held
    /// throughout, so a shard retiring meanwhile is counted once.
    public func snapshot() -> Snapshot {
        registry.withLock { registry in
            var merged = registry.retired
            for shard in registry.shards { shard.merge(into: &merged) }
            return merged
        }
    }

    /// Appends `http_requests_total` and `http_request_duration_seconds`.
    public func render(into text: inout PrometheusText) {
        let snapshot = snapshot()
        text.family("http_requests_total", help: "HTTP requests answered, by route template, method and status.", type: .counter)
        for (key, count) in snapshot.requests.sorted(by: {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }) {
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
