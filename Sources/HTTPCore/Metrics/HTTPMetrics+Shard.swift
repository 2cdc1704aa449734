import Foundation

extension HTTPMetrics {
    /// A request series: route template, method and status.
    public struct RequestKey: Hashable, Sendable {
        public var route: String
        public var method: String
        public var status: Int
    }

    /// A latency series: route template and method.
    public struct RouteKey: Hashable, Sendable {
        public var route: String
        public var method: String
    }

    /// Per-bucket counts (not cumulative; the last is the overflow bucket) and the sum.
    public struct Histogram: Sendable {
        public var counts = [UInt64](repeating: 0, count: HTTPMetrics.latencyBounds.count + 1)
        public var sumNanos: UInt64 = 0
        public var count: UInt64 { counts.reduce(0, +) }

        mutating func add(bucket: Int, nanoseconds: UInt64) {
            counts[bucket] &+= 1
            sumNanos &+= nanoseconds
        }
    }

    /// Everything recorded so far, merged over the shards.
    public struct Snapshot: Sendable {
        public var requests: [RequestKey: UInt64] = [:]
        public var latencies: [RouteKey: Histogram] = [:]
    }

    /// One thread's counters. Its lock is taken by that thread per request and by a scrape.
    final class Shard: @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [RequestKey: UInt64] = [:]
        private var latencies: [RouteKey: Histogram] = [:]

        func record(route: String, method: String, status: Int, nanoseconds: UInt64) {
            var bucket = 0
            let bounds = HTTPMetrics.latencyBoundsNanos
            while bucket < bounds.count, nanoseconds > bounds[bucket] { bucket += 1 }
            lock.lock()
            // One hash per table: the `default:` subscript modifies in place.
            requests[RequestKey(route: route, method: method, status: status), default: 0] &+= 1
            latencies[RouteKey(route: route, method: method), default: Histogram()].add(bucket: bucket, nanoseconds: nanoseconds)
            lock.unlock()
        }

        func merge(into snapshot: inout Snapshot) {
            lock.lock()
            defer { lock.unlock() }
            for (key, count) in requests { snapshot.requests[key, default: 0] += count }
            for (key, histogram) in latencies {
                var merged = snapshot.latencies[key] ?? Histogram()
                for index in histogram.counts.indices { merged.counts[index] += histogram.counts[index] }
                merged.sumNanos += histogram.sumNanos
                snapshot.latencies[key] = merged
            }
        }
    }
}
