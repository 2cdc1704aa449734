import Foundation
import Synchronization
import Testing

@testable import HTTPCore

#if canImport(Glibc)
import Glibc
#endif

/// `HTTPMetrics` counting, in process: per route, method and status, with the histogram per
/// route and method, whatever order requests come in and on however many threads.
@Suite struct MetricsTests {
    @Test func countsEachRouteMethodAndStatusApart() {
        let metrics = HTTPMetrics()
        let calls: [(String, HTTPMethod, Int)] = [
            ("/a/{x}", .get, 200), ("/a/{x}", .get, 200), ("/a/{x}", .get, 404), ("/b", .get, 200),
            ("/a/{x}", .put, 200), ("/a/{x}", .get, 200), ("/b", .get, 500), ("/a/{x}", .get, 404),
        ]
        for (route, method, status) in calls {
            metrics.record(route: route, method: method, status: status, nanoseconds: 1_000)
        }
        let snapshot = metrics.snapshot()
        func count(_ route: String, _ method: String, _ status: Int) -> UInt64? {
            snapshot.requests[HTTPMetrics.RequestKey(route: route, method: method, status: status)]
        }
        #expect(count("/a/{x}", "GET", 200) == 3)
        #expect(count("/a/{x}", "GET", 404) == 2)
        #expect(count("/a/{x}", "PUT", 200) == 1)
        #expect(count("/b", "GET", 200) == 1)
        #expect(count("/b", "GET", 500) == 1)
        #expect(snapshot.requests.count == 5)
        #expect(snapshot.latencies[HTTPMetrics.RouteKey(route: "/a/{x}", method: "GET")]?.count == 5)
        #expect(snapshot.latencies[HTTPMetrics.RouteKey(route: "/a/{x}", method: "GET")]?.sumNanos == 5_000)
        #expect(snapshot.latencies[HTTPMetrics.RouteKey(route: "/b", method: "GET")]?.count == 2)
    }

    @Test func shardsOfManyThreadsAddUp() async {
        let metrics = HTTPMetrics()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<1_000 {
                        metrics.record(route: "/r\(index % 2)", method: .get, status: 200 + worker % 2, nanoseconds: 10)
                    }
                }
            }
        }
        let snapshot = metrics.snapshot()
        #expect(snapshot.requests.values.reduce(0, +) == 8_000)
        #expect(snapshot.requests[HTTPMetrics.RequestKey(route: "/r0", method: "GET", status: 201)] == 2_000)
    }
}

/// Shards of threads that ended: Dispatch ends idle worker threads after a few seconds, so a
/// long-running server sees thread after thread come and go. An ended thread's counts must be
/// merged exactly once and its shard dropped.
@Suite struct MetricsShardRetirementTests {
    @Test func anEndedThreadsShardIsMergedAndDropped() {
        let metrics = HTTPMetrics()
        let rounds = 20, threadsPerRound = 4, perThread = 1_000
        for _ in 0..<rounds {
            runOnThreadsAndJoin(count: threadsPerRound) { worker in
                for index in 0..<perThread {
                    metrics.record(
                        route: "/r\(index % 2)", method: .get, status: 200 + worker % 2, nanoseconds: UInt64(index % 7))
                }
            }
        }
        #expect(metrics.shardCount == 0)
        let snapshot = metrics.snapshot()
        let total = UInt64(rounds * threadsPerRound * perThread)
        #expect(snapshot.requests.values.reduce(0, +) == total)
        // Workers 0 and 2 answer 200, 1 and 3 answer 201; each sends half its requests to /r0.
        #expect(snapshot.requests[HTTPMetrics.RequestKey(route: "/r0", method: "GET", status: 200)] == total / 4)
        #expect(snapshot.requests[HTTPMetrics.RequestKey(route: "/r1", method: "GET", status: 201)] == total / 4)
        let histogram = snapshot.latencies[HTTPMetrics.RouteKey(route: "/r0", method: "GET")]
        #expect(histogram?.count == total / 2)
        // /r0 gets the even indices; their index % 7 sums to 1,497 per thread.
        let perThreadSum = (0..<perThread).filter { $0 % 2 == 0 }.reduce(0) { $0 + $1 % 7 }
        #expect(histogram?.sumNanos == UInt64(perThreadSum * rounds * threadsPerRound))
    }

    @Test func scrapesWhileThreadsEndNeverGoBackwards() {
        let metrics = HTTPMetrics()
        let stop = Atomic<Bool>(false)
        let backwards = Atomic<Int>(0)
        let scraper = Thread {
            var previous: UInt64 = 0
            while !stop.load(ordering: .acquiring) {
                let total = metrics.snapshot().requests.values.reduce(0, +)
                if total < previous { backwards.add(1, ordering: .relaxed) }
                previous = total
            }
        }
        scraper.start()
        for _ in 0..<50 {
            runOnThreadsAndJoin(count: 2) { _ in
                for _ in 0..<200 { metrics.record(route: "/r", method: .get, status: 200, nanoseconds: 1) }
            }
        }
        stop.store(true, ordering: .releasing)
        #expect(backwards.load(ordering: .relaxed) == 0)
        #expect(metrics.shardCount == 0)
        #expect(metrics.snapshot().requests[HTTPMetrics.RequestKey(route: "/r", method: "GET", status: 200)] == 20_000)
    }
}

/// Runs `body` on `count` new threads at once and returns when every one of them has ended,
/// thread-specific data destructors included (`pthread_join(3)`).
private func runOnThreadsAndJoin(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Start {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    var threads: [pthread_t] = []
    for worker in 0..<count {
        let start = Unmanaged.passRetained(Start { body(worker) }).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, start)
        precondition(status == 0, "pthread_create failed: \(status)")
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}
