import Dispatch
import Foundation
import Logging
import Synchronization
import TestThreads
import Testing

@testable import HTTPCore

/// A request that leaves the loop (a deferred response, a worker route) keeps its connection's
/// epoll registration as it was, and the loop serves none of the connection's events until the
/// response is back; the first event meanwhile takes the connection out of the set
/// (`EventLoop.serveBatch`). These count the `epoll_ctl` calls that change a registration.
@Suite struct OffloadedRegistrationTests {
    /// Completes every deferred response from another thread a moment after it was asked for,
    /// as the store's writer does after its commit.
    private static func laterRoutes(_ router: inout Router) {
        router.get("/fast") { _, _ in textResponse("fast") }
        router.on(.post, "/later", execution: .eventLoop) { _, _ in
            let deferred = HTTPDeferredResponse()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(2)) {
                deferred.complete(.success(textResponse("later")))
            }
            return .deferred(deferred)
        }
        router.get("/worker", execution: .worker) { _, _ in textResponse("worker") }
    }

    private static let later = "POST /later HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"

    /// A client that waits for each answer sends nothing while its request is away, so neither
    /// a deferred response nor a worker's changes the registration: no `epoll_ctl` a request
    /// (taking the connection out and back had cost two).
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aClientThatWaitsCostsNoRegistrationChange() throws {
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }, routes: Self.laterRoutes)
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/fast"))
        #expect(try client.readResponse().text == "fast")  // registered for reading by now
        let before = live.server.registrationChanges
        for _ in 0..<20 {
            try client.send(Self.later)
            #expect(try client.readResponse().text == "later")
            try client.send(rawGet("/worker"))
            #expect(try client.readResponse().text == "worker")
        }
        #expect(live.server.registrationChanges == before)
    }

    /// A request pipelined behind a deferred one, sent once the first is away, makes the socket
    /// readable: the loop takes the connection out of the set once (rather than spinning on input it
    /// must not read yet), puts it back when the answer is in, and answers both in order.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func inputWhileARequestIsAwayTakesTheConnectionOutOnce() throws {
        let pending = Mutex<HTTPDeferredResponse?>(nil)
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }) { router in
            router.get("/fast") { _, _ in textResponse("fast") }
            router.on(.post, "/held", execution: .eventLoop) { _, _ in
                let deferred = HTTPDeferredResponse()
                pending.withLock { $0 = deferred }
                return .deferred(deferred)
            }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/fast"))
        #expect(try client.readResponse().text == "fast")
        let before = live.server.registrationChanges
        try client.send("POST /held HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        let deadline = Date.now.addingTimeInterval(20)
        while pending.withLock({ $0 == nil }), Date.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(live.server.registrationChanges == before)
        // The next request arrives while the first is away: the loop sees the socket readable.
        try client.send(rawGet("/fast"))
        while live.server.registrationChanges == before, Date.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(live.server.registrationChanges == before + 1, "out of the set once, and left out")
        let held = try #require(pending.withLock { $0 })
        held.complete(.success(textResponse("held")))
        #expect(try client.readResponse().text == "held")
        #expect(try client.readResponse().text == "fast")
        #expect(live.server.registrationChanges == before + 2, "back in the set once")
    }

    /// `execute` writes the eventfd outside the mailbox's lock, which is safe because the
    /// descriptor lives as long as the loop. A stopped loop must therefore be released, or its
    /// eventfd would stay open for good.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aStoppedLoopIsReleased() throws {
        var loop: EventLoop? = try EventLoop(index: 0, hold: .milliseconds(5), logger: Logger(label: "test.loop"))
        weak let released = loop
        loop?.start()
        let ran = DispatchSemaphore(value: 0)
        loop?.execute { ran.signal() }
        #expect(ran.wait(timeout: .now() + 10) == .success)
        loop?.stop()
        loop = nil
        let deadline = Date.now.addingTimeInterval(10)
        while released != nil, Date.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(released == nil, "the stopped loop (and its eventfd) was kept")
    }

    /// Work queued after the batch holding the stop was taken, but before the stop ran, still
    /// runs: a connection's close queued then would otherwise never happen.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func workQueuedAsTheLoopStopsStillRuns() throws {
        let loop = try EventLoop(index: 0, hold: .milliseconds(5), logger: Logger(label: "test.loop"))
        loop.start()
        let first = DispatchSemaphore(value: 0)
        let firstGate = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let secondGate = DispatchSemaphore(value: 0)
        let last = DispatchSemaphore(value: 0)
        loop.execute {
            first.signal()
            _ = firstGate.wait(timeout: .now() + 20)
        }
        #expect(first.wait(timeout: .now() + 10) == .success)
        // Queued behind it, together: an item, then the stop.
        loop.execute {
            second.signal()
            _ = secondGate.wait(timeout: .now() + 20)
        }
        loop.stop()
        firstGate.signal()
        // The batch holding the stop is taken and running: this goes into the mailbox.
        #expect(second.wait(timeout: .now() + 10) == .success)
        loop.execute { last.signal() }
        secondGate.signal()
        #expect(last.wait(timeout: .now() + 10) == .success, "the item queued before the stop ran never ran")
    }
}
