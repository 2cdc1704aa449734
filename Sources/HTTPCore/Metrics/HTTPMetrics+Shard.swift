import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

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
    ///
    /// `@unchecked Sendable`: a scrape on another thread merges it; its counters are touched
    /// under `lock` only, and only the thread it was made for records into it (checked in
    /// debug builds).
    final class Shard: @unchecked Sendable {
        /// The registry that merges this shard when its thread ends; nil once it is gone.
        private(set) weak var owner: HTTPMetrics?
        /// One route and method: its latency histogram and its count per status (a handful).
        /// Everything here is touched under `lock` only, never while borrowed, so the
        /// runtime's exclusivity check (a thread-local set insert per access) is skipped.
        private final class Entry {
            @exclusivity(unchecked) var histogram = Histogram()
            @exclusivity(unchecked) var statuses: [(status: Int, count: UInt64)] = []
        }

        private let lock = NSLock()
        @exclusivity(unchecked) private var entries: [RouteKey: Entry] = [:]
        /// The entry recorded last: a busy route usually follows itself, and comparing its
        /// template (the same string storage each time) is cheaper than hashing it.
        @exclusivity(unchecked) private var last: (route: String, method: String, entry: Entry)?

        #if DEBUG
        /// The thread this shard records for (debug builds only).
        private let recorder = pthread_self()
        #endif

        init(owner: HTTPMetrics) {
            self.owner = owner
        }

        /// Stops a debug build when a thread records into another thread's shard.
        @inline(__always) func assertRecorder() {
            #if DEBUG
            precondition(
                pthread_equal(pthread_self(), recorder) != 0, "HTTPMetrics: a thread recorded into another thread's shard")
            #endif
        }

        func record(route: String, method: String, status: Int, nanoseconds: UInt64) {
            assertRecorder()
            var bucket = 0
            let bounds = HTTPMetrics.latencyBoundsNanos
            while bucket < bounds.count, nanoseconds > bounds[bucket] { bucket += 1 }
            lock.lock()
            defer { lock.unlock() }
            let entry: Entry
            if let last, last.route == route, last.method == method {
                entry = last.entry
            } else {
                let key = RouteKey(route: route, method: method)
                if let found = entries[key] {
                    entry = found
                } else {
                    entry = Entry()
                    entries[key] = entry
                }
                last = (route, method, entry)
            }
            entry.histogram.add(bucket: bucket, nanoseconds: nanoseconds)
            if let index = entry.statuses.firstIndex(where: { $0.status == status }) {
                entry.statuses[index].count &+= 1
            } else {
                entry.statuses.append((status, 1))
            }
        }

        func merge(into snapshot: inout Snapshot) {
            lock.lock()
            defer { lock.unlock() }
            for (key, entry) in entries {
                for (status, count) in entry.statuses {
                    snapshot.requests[RequestKey(route: key.route, method: key.method, status: status), default: 0] += count
                }
                let histogram = entry.histogram
                var merged = snapshot.latencies[key] ?? Histogram()
                for index in histogram.counts.indices { merged.counts[index] += histogram.counts[index] }
                merged.sumNanos += histogram.sumNanos
                snapshot.latencies[key] = merged
            }
        }
    }
}
