import Dispatch
import Foundation
import Logging
import Synchronization
import TestThreads
import Testing

@testable import HTTPCore

/// Responses given later, from another thread (`HTTPDeferredResponse`): delivered once both the
/// outcome and the engine's waiter are there, with the middlewares' transforms in order; over a
/// real socket the loop serves others meanwhile and the connection carries on afterwards.
@Suite struct DeferredResponseTests {
    private struct Failure: Error {}

    private static func tagged(_ tag: String) -> @Sendable (HTTPDeferredResponse.Outcome) -> HTTPDeferredResponse.Outcome {
        { outcome in
            outcome.map { response in
                var response = response
                response.headers.add(name: "X-Seen", value: tag)
                return response
            }
        }
    }

    @Test func anOutcomeBeforeTheWaiterIsDeliveredWhenTheWaiterComes() throws {
        let deferred = HTTPDeferredResponse()
        deferred.transform(Self.tagged("inner"))
        deferred.transform(Self.tagged("outer"))
        deferred.complete(.success(textResponse("done")))
        let response = try deferred.waitForOutcome().get()
        #expect(response.headers.values(for: "X-Seen") == ["inner", "outer"])
    }

    @Test func anOutcomeAfterTheWaiterIsDeliveredAtOnceAndOnlyTheFirstCounts() throws {
        let deferred = HTTPDeferredResponse()
        deferred.transform(Self.tagged("only"))
        let delivered = Mutex<[HTTPDeferredResponse.Outcome]>([])
        deferred.whenComplete { outcome in delivered.withLock { $0.append(outcome) } }
        #expect(delivered.withLock { $0.isEmpty })
        deferred.complete(.success(textResponse("first")))
        deferred.complete(.success(textResponse("second")))
        deferred.complete(.failure(Failure()))
        let outcomes = delivered.withLock { $0 }
        #expect(outcomes.count == 1)
        let response = try #require(try outcomes.first?.get())
        #expect(response.headers.values(for: "X-Seen") == ["only"])
        guard case .bytes(let body) = response.body else {
            Issue.record("a byte body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == "first")
    }

    @Test func mapFinalDecoratesNowOrLater() throws {
        let now = textResponse("now").mapFinal { response in
            var response = response
            response.headers.add(name: "X-Seen", value: "yes")
            return response
        }
        #expect(now.headers["X-Seen"] == "yes")
        let deferred = HTTPDeferredResponse()
        let placeholder = HTTPResponse.deferred(deferred).mapFinal { response in
            var response = response
            response.headers.add(name: "X-Seen", value: "later")
            return response
        }
        #expect(placeholder.headers["X-Seen"] == nil)
        #expect(placeholder.deferred === deferred)
        deferred.complete(.failure(Failure()))
        #expect(throws: Failure.self) { try deferred.waitForOutcome().get() }  // a failure passes through
    }

    /// One event loop: while a deferred response is pending, other connections are answered;
    /// the pending one is answered when completed from another thread, through the middlewares
    /// (request id, error mapping), and its connection serves the next request.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func theLoopServesOthersWhileAResponseIsDeferred() throws {
        let pending = Mutex<[HTTPDeferredResponse]>([])
        let live = try LiveServer(adjust: { $0.eventLoops = 1 }) { router in
            router.get("/fast") { _, _ in textResponse("fast") }
            router.on(.post, "/later", execution: .eventLoop) { _, _ in
                let deferred = HTTPDeferredResponse()
                pending.withLock { $0.append(deferred) }
                return .deferred(deferred)
            }
            router.use(RequestIdMiddleware())
            router.use(ErrorMiddleware())
        }
        defer { live.stop() }
        let waiting = try live.client()
        try waiting.send("POST /later HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        let deadline = Date.now.addingTimeInterval(20)
        while pending.withLock({ $0.isEmpty }), Date.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        for _ in 0..<3 {
            let other = try live.client()
            try other.send(rawGet("/fast"))
            #expect(try other.readResponse().text == "fast")
        }
        let first = try #require(pending.withLock { $0.first })
        DispatchQueue.global().async { first.complete(.success(textResponse("later"))) }
        let answer = try waiting.readResponse()
        #expect(answer.text == "later")
        #expect(answer.headers["X-Request-Id"] != nil)
        // A failure is answered as a thrown error would be, and the connection goes on.
        try waiting.send("POST /later HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        while pending.withLock({ $0.count < 2 }), Date.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        let second = try #require(pending.withLock { $0.count == 2 ? $0[1] : nil })
        second.complete(.failure(HTTPError(.conflict, detail: "not now")))
        let refused = try waiting.readResponse()
        #expect(refused.status == 409)
        #expect(refused.text.contains("not now"))
        try waiting.send(rawGet("/fast"))
        #expect(try waiting.readResponse().text == "fast")
    }
}
