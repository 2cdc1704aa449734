import Dispatch
import Foundation
import Logging
import Synchronization
import TestThreads
import Testing

@testable import HTTPCore

/// Where responders run (`HTTPExecution`): routes choose inline (event loop) or the worker
/// queue, and a worker route that blocks never holds up the connections of its loop.
@Suite struct ServerExecutionTests {
    private static func head(_ method: HTTPMethod, _ path: String) -> HTTPRequestHead {
        HTTPRequestHead(
            method: method, target: path, path: path, query: nil, version: .http1_1, headers: HTTPHeaders(),
            authority: "t", keepAlive: true, framing: .none, expectContinue: false)
    }

    /// What the engine asks before it runs a request.
    private static func execution(_ responder: any HTTPResponder, _ head: HTTPRequestHead) -> HTTPExecution {
        var context = RequestContext(requestId: "r", logger: Logger(label: "test"), remoteAddress: "127.0.0.1:1")
        return responder.prepare(head, context: &context)
    }

    @Test func routesRunReadsInlineAndEverythingElseOnTheWorkerQueueUnlessTheySayOtherwise() {
        var router = Router()
        router.get("/read") { _, _ in textResponse("r") }
        router.get("/scan", execution: .worker) { _, _ in textResponse("s") }
        router.post("/write") { _, _ in textResponse("w") }
        router.on(.put, "/quick/{id}", execution: .eventLoop) { _, _ in textResponse("q") }
        router.use(RequestIdMiddleware())
        let responder = router.buildResponder()
        #expect(Self.execution(responder, Self.head(.get, "/read")) == .eventLoop)
        #expect(Self.execution(responder, Self.head(.head, "/read")) == .eventLoop)
        #expect(Self.execution(responder, Self.head(.get, "/scan")) == .worker)
        #expect(Self.execution(responder, Self.head(.head, "/scan")) == .worker)
        #expect(Self.execution(responder, Self.head(.post, "/write")) == .worker)
        #expect(Self.execution(responder, Self.head(.put, "/quick/7")) == .eventLoop)
        // Misses are answered by the router itself, inline.
        #expect(Self.execution(responder, Self.head(.get, "/nowhere")) == .eventLoop)
        #expect(Self.execution(responder, Self.head(.delete, "/read")) == .eventLoop)
        #expect(Self.execution(responder, Self.head(.get, "/bad%zz")) == .eventLoop)
        // A responder that says nothing runs on the worker queue.
        let plain = ClosureResponder { _, _ in textResponse("p") }
        #expect(Self.execution(plain, Self.head(.get, "/read")) == .worker)
    }

    /// One event loop, so every connection shares it: while a worker route blocks, inline
    /// requests on other connections are still answered, and the blocked one completes after.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aBlockingWorkerRouteDoesNotStallTheLoop() throws {
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }) { router in
            router.get("/fast") { _, _ in textResponse("fast") }
            router.post("/slow") { _, _ in
                entered.signal()
                _ = gate.wait(timeout: .now() + 20)
                return textResponse("slow")
            }
        }
        defer { live.stop() }
        let blocked = try live.client()
        try blocked.send("POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        // The slow handler is blocked from here until the gate opens.
        try #require(entered.wait(timeout: .now() + 10) == .success)
        for _ in 0..<3 {
            let other = try live.client()
            try other.send(rawGet("/fast"))
            #expect(try other.readResponse().text == "fast")
        }
        gate.signal()
        #expect(try blocked.readResponse().text == "slow")
        // The connection is back on its loop and keeps serving.
        try blocked.send(rawGet("/fast"))
        #expect(try blocked.readResponse().text == "fast")
    }

    /// Blocking worker routes on 48 connections at once each get a thread at once: every one
    /// waits until all 48 arrived, so the test finishes only if the engine does not make them
    /// queue for threads (as a concurrent Dispatch queue on Linux did, adding about one thread
    /// a second); durable writes wait on the writer the same way.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func blockingRequestsOnManyConnectionsRunAtOnce() throws {
        let total = 48
        let arrived = Mutex(0)
        let gate = DispatchSemaphore(value: 0)
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }) { router in
            router.post("/wait") { _, _ in
                let all = arrived.withLock { count -> Bool in
                    count += 1
                    return count == total
                }
                if all { for _ in 0..<total { gate.signal() } }
                return textResponse(gate.wait(timeout: .now() + 20) == .success ? "together" : "alone")
            }
        }
        defer { live.stop() }
        let clients = try (0..<total).map { _ in try live.client() }
        let start = Date.now
        for client in clients { try client.send("POST /wait HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n") }
        for client in clients { #expect(try client.readResponse().text == "together") }
        #expect(Date.now.timeIntervalSince(start) < 10)
    }

    /// Responses of a batch are sent together, in groups of `EventLoop.flushGroup`: with the
    /// loop held up while 100 clients send, the next batch has them all, and each gets its own
    /// answer, also on a second round over the same connections.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aLargeBatchAnswersEveryConnection() throws {
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }) { router in
            router.get("/hold", execution: .eventLoop) { _, _ in
                Thread.sleep(forTimeInterval: 0.3)  // on the loop: the others queue up meanwhile
                return textResponse("held")
            }
            router.get("/echo/{n}") { _, context in textResponse("e" + (context.parameters["n"] ?? "")) }
        }
        defer { live.stop() }
        let clients = try (0..<100).map { _ in try live.client() }
        let holder = try live.client()
        for round in 0..<2 {
            try holder.send(rawGet("/hold"))
            Thread.sleep(forTimeInterval: 0.05)
            for (index, client) in clients.enumerated() { try client.send(rawGet("/echo/\(round)-\(index)")) }
            #expect(try holder.readResponse().text == "held")
            for (index, client) in clients.enumerated() {
                #expect(try client.readResponse().text == "e\(round)-\(index)")
            }
        }
        #expect(EventLoop.flushGroup < clients.count)
    }

    /// A batch of fewer than `EventLoop.groupedBatch` ready connections sends each response as
    /// soon as it is made, and a larger one holds them until the batch ends: with the loop held up
    /// until the clients have sent, the next batch has them all, and each request's handler
    /// counts the other clients whose answer is already waiting in their socket.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func smallBatchesAnswerAtOnceAndLargeOnesTogether() throws {
        let probed = Mutex<[Int32]>([])
        let seen = Mutex<[Int]>([])
        let holding = DispatchSemaphore(value: 0)
        let sent = DispatchSemaphore(value: 0)
        let probedOne = DispatchSemaphore(value: 0)
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }) { router in
            router.get("/hold", execution: .eventLoop) { _, _ in
                holding.signal()
                _ = sent.wait(timeout: .now() + 20)  // on the loop: the probes queue up meanwhile
                return textResponse("held")
            }
            router.get("/probe", execution: .eventLoop) { _, _ in
                let answered = probed.withLock { sockets in
                    sockets.filter { fd in
                        var byte: UInt8 = 0
                        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) > 0
                    }.count
                }
                seen.withLock { $0.append(answered) }
                probedOne.signal()
                return textResponse("p")
            }
            router.get("/ping", execution: .eventLoop) { _, _ in textResponse("pong") }
        }
        defer { live.stop() }
        let holder = try live.client()
        func batch(of count: Int) throws -> [Int] {
            let clients = try (0..<count).map { _ in try live.client() }
            for client in clients {  // each one accepted and on the loop before it is held
                try client.send(rawGet("/ping"))
                #expect(try client.readResponse().text == "pong")
            }
            probed.withLock { $0 = clients.map(\.socket.fd) }
            seen.withLock { $0 = [] }
            try holder.send(rawGet("/hold"))
            #expect(holding.wait(timeout: .now() + 20) == .success)
            for client in clients { try client.send(rawGet("/probe")) }
            sent.signal()
            #expect(try holder.readResponse().text == "held")
            // Every probe has looked before any answer is read here (reading would empty a socket).
            for _ in clients { #expect(probedOne.wait(timeout: .now() + 20) == .success) }
            for client in clients { #expect(try client.readResponse().text == "p") }
            return seen.withLock { $0 }.sorted()
        }
        #expect(EventLoop.groupedBatch == 4)
        #expect(try batch(of: 3) == [0, 1, 2], "each probe found the ones before it answered")
        #expect(try batch(of: 8) == Array(repeating: 0, count: 8), "no answer left before the batch ended")
    }

    /// Pipelined requests alternating between inline and worker routes are answered in order.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func pipelinedInlineAndWorkerRequestsKeepTheirOrder() throws {
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }) { router in
            router.get("/inline/{n}") { _, context in textResponse("i" + (context.parameters["n"] ?? "")) }
            router.get("/worker/{n}", execution: .worker) { _, context in
                Thread.sleep(forTimeInterval: 0.01)
                return textResponse("w" + (context.parameters["n"] ?? ""))
            }
        }
        defer { live.stop() }
        let client = try live.client()
        var batch = ""
        var expected: [String] = []
        for n in 0..<20 {
            let path = n % 3 == 0 ? "/worker/\(n)" : "/inline/\(n)"
            batch += rawGet(path)
            expected.append((n % 3 == 0 ? "w" : "i") + "\(n)")
        }
        try client.send(batch)
        for text in expected { #expect(try client.readResponse().text == text) }
    }

    /// An answer already made goes out before the next pipelined request runs on a worker: it
    /// waited for the slow one before.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func anAnswerMadeDoesNotWaitForASlowOneBehindIt() throws {
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }) { router in
            router.get("/quick") { _, _ in textResponse("quick") }
            router.get("/slow", execution: .worker) { _, _ in
                Thread.sleep(forTimeInterval: 1.5)
                return textResponse("slow")
            }
        }
        defer { live.stop() }
        let client = try live.client()
        let started = Date()
        try client.send(rawGet("/quick") + rawGet("/slow"))
        #expect(try client.readResponse().text == "quick")
        let quick = Date().timeIntervalSince(started)
        #expect(quick < 1, "the first answer waited \(quick) s for the second")
        #expect(try client.readResponse().text == "slow")
    }

    /// A streamed body runs on the worker queue; a stream that blocks leaves the loop free, and
    /// the connection serves its next request once the stream ends.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aSlowStreamDoesNotStallTheLoop() throws {
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }) { router in
            router.get("/fast") { _, _ in textResponse("fast") }
            router.get("/stream") { _, _ in
                HTTPResponse(
                    status: .ok, headers: ["Content-Type": "text/plain"],
                    body: .stream { writer in
                        try writer.write(Array("a".utf8))
                        try writer.flush()
                        entered.signal()
                        _ = gate.wait(timeout: .now() + 20)
                        for part in ["b", "c"] { try writer.write(Array(part.utf8)) }
                    })
            }
        }
        defer { live.stop() }
        let streaming = try live.client()
        try streaming.send(rawGet("/stream"))
        // The stream is blocked from here until the gate opens: the other connection's
        // request is answered meanwhile (its read gives up after 5 s), or not at all.
        try #require(entered.wait(timeout: .now() + 10) == .success)
        let other = try live.client()
        try other.send(rawGet("/fast"))
        #expect(try other.readResponse().text == "fast")
        gate.signal()
        #expect(try streaming.readResponse().text == "abc")
        try streaming.send(rawGet("/fast"))
        #expect(try streaming.readResponse().text == "fast")
    }

    @Test func processorCountIsWithinTheMachine() {
        let count = HTTPServerConfiguration.processorCount
        #expect(count >= 1)
        #expect(count <= ProcessInfo.processInfo.activeProcessorCount)
    }
}
