@testable import HTTPCore
import Testing

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
