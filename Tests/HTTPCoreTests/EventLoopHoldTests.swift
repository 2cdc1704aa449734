import Dispatch
import Foundation
import HTTPCore
import TestThreads
import Testing

/// An event loop that just served keeps its thread in `epoll_wait` for `eventLoopHold`
/// (`EventLoop.serveReady`). Work from other threads must still reach it at once: through
/// the mailbox and its eventfd, not `queue.async`, which would wait for the hold to end. The
/// hold here is far longer than any bound the tests allow, so a lost wake-up fails them.
@Suite struct EventLoopHoldTests {
    private static let longHold: Duration = .seconds(30)

    /// A worker route hands its response back through `execute`; a new connection is
    /// registered through it too. Both while the loop holds its thread.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aHeldLoopTakesWorkFromOtherThreadsAtOnce() throws {
        let live = try LiveServer(adjust: {
            $0.eventLoops = 1
            $0.eventLoopHold = Self.longHold
        }) { router in
            router.get("/inline", execution: .eventLoop) { _, _ in textResponse("inline") }
            router.get("/worker/{n}", execution: .worker) { _, context in
                textResponse("worker" + (context.parameters["n"] ?? ""))
            }
        }
        defer { live.stop() }
        let client = try RawClient(port: live.port, timeoutMilliseconds: 5000)
        try client.send(rawGet("/inline"))
        #expect(try client.readResponse().text == "inline")  // the loop now holds its thread
        let started = Date()
        for n in 0..<20 {
            try client.send(rawGet("/worker/\(n)"))
            #expect(try client.readResponse().text == "worker\(n)")
        }
        let other = try RawClient(port: live.port, timeoutMilliseconds: 5000)
        try other.send(rawGet("/worker/x"))
        #expect(try other.readResponse().text == "workerx")
        #expect(Date().timeIntervalSince(started) < 10, "work waited for the hold to end")
    }

    /// With a short hold the loop hands its thread back to Dispatch when idle and is woken by
    /// its read source again, as often as that happens.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aLoopReturnsToDispatchWhenIdleAndKeepsServing() throws {
        let live = try LiveServer(adjust: {
            $0.eventLoops = 1
            $0.eventLoopHold = .milliseconds(5)
        }) { router in
            router.get("/inline", execution: .eventLoop) { _, _ in textResponse("inline") }
            router.get("/worker", execution: .worker) { _, _ in textResponse("worker") }
        }
        defer { live.stop() }
        let client = try live.client()
        for round in 0..<5 {
            try client.send(rawGet(round % 2 == 0 ? "/inline" : "/worker"))
            #expect(try client.readResponse().text == (round % 2 == 0 ? "inline" : "worker"))
            Thread.sleep(forTimeInterval: 0.05)  // ten holds: the loop is back on its source
        }
    }

    /// A graceful shutdown reaches a held loop, also one that began to hold while the shutdown
    /// was being handed to it: it closes the idle keep-alive connection and stops long before
    /// the hold or the shutdown deadline would have ended. A few rounds, as the hand-over races
    /// with the hold starting.
    @Test(.timeLimit(.minutes(2)), .blocksItsThread) func shutdownReachesAHeldLoop() throws {
        for _ in 0..<5 {
            let live = try LiveServer(adjust: {
                $0.eventLoops = 1
                $0.eventLoopHold = Self.longHold
            }) { router in
                router.get("/inline", execution: .eventLoop) { _, _ in textResponse("inline") }
            }
            let client = try live.client()
            try client.send(rawGet("/inline"))
            #expect(try client.readResponse().text == "inline")
            let started = Date()
            live.server.shutdown(deadline: .now() + .seconds(20))
            live.server.waitUntilStopped()
            #expect(Date().timeIntervalSince(started) < 10)
            #expect(try client.fill() == false, "the idle connection was not closed")
        }
    }

    /// Zero never holds: the loop goes back to its Dispatch source after every batch, and
    /// worker responses and new connections still reach it through the eventfd.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func zeroHoldServesThroughDispatchAlone() throws {
        let live = try LiveServer(adjust: {
            $0.eventLoops = 1
            $0.eventLoopHold = .zero
        }) { router in
            router.get("/worker", execution: .worker) { _, _ in textResponse("worker") }
        }
        defer { live.stop() }
        for _ in 0..<3 {
            let client = try live.client()
            for _ in 0..<5 {
                try client.send(rawGet("/worker"))
                #expect(try client.readResponse().text == "worker")
            }
        }
    }
}
