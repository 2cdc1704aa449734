import Dispatch
import Foundation
@testable import HTTPCore
import Testing

/// An event loop that just served keeps its thread in `epoll_wait` for `eventLoopHold`
/// (`EventLoop.serveReady`). Work from other threads must still reach it at once: through
/// the mailbox and its eventfd, not `queue.async`, which would wait for the hold to end. The
/// hold here is far longer than any bound the tests allow, so a lost wake-up fails them.
@Suite struct EventLoopHoldTests {
    private static let longHold: Duration = .seconds(30)

    private static func onlyLoop(_ live: LiveServer) throws -> EventLoop {
        let loops = live.server.loops
        try #require(loops.count == 1)
        return loops[0]
    }

    /// A worker route hands its response back through `execute`; a new connection is
    /// registered through it too. Both while the loop holds its thread.
    @Test(.timeLimit(.minutes(1))) func aHeldLoopTakesWorkFromOtherThreadsAtOnce() throws {
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
        let loop = try Self.onlyLoop(live)
        let client = try RawClient(port: live.port, timeoutMilliseconds: 5000)
        try client.send(rawGet("/inline"))
        #expect(try client.readResponse().text == "inline")  // the loop now holds its thread
        let before = loop.mailboxRuns
        let started = Date()
        for n in 0..<20 {
            try client.send(rawGet("/worker/\(n)"))
            #expect(try client.readResponse().text == "worker\(n)")
        }
        let other = try RawClient(port: live.port, timeoutMilliseconds: 5000)
        try other.send(rawGet("/worker/x"))
        #expect(try other.readResponse().text == "workerx")
        #expect(Date().timeIntervalSince(started) < 10, "work waited for the hold to end")
        #expect(loop.mailboxRuns > before, "the work did not go through the mailbox")
    }

    /// With a short hold the loop hands its thread back to Dispatch when idle and is woken by
    /// its read source again, as often as that happens.
    @Test(.timeLimit(.minutes(1))) func aLoopReturnsToDispatchWhenIdleAndKeepsServing() throws {
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

    /// A graceful shutdown reaches a held loop: it closes the idle keep-alive connection and
    /// stops well before the hold would have ended.
    @Test(.timeLimit(.minutes(1))) func shutdownReachesAHeldLoop() throws {
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

    /// Zero never holds: work goes through the queue and nothing enters the mailbox.
    @Test(.timeLimit(.minutes(1))) func zeroHoldNeverUsesTheMailbox() throws {
        let live = try LiveServer(adjust: {
            $0.eventLoops = 1
            $0.eventLoopHold = .zero
        }) { router in
            router.get("/worker", execution: .worker) { _, _ in textResponse("worker") }
        }
        defer { live.stop() }
        let loop = try Self.onlyLoop(live)
        let client = try live.client()
        for _ in 0..<5 {
            try client.send(rawGet("/worker"))
            #expect(try client.readResponse().text == "worker")
        }
        #expect(loop.mailboxRuns == 0)
    }
}
