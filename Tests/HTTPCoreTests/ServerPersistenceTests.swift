import Foundation
import HTTPCore
import Synchronization
import TestThreads
import Testing

/// Live keep-alive and pipelining behaviour (RFC 9112 §9.3).
@Suite struct ServerPersistenceTests {
    static func echoRoutes(_ router: inout Router) {
        router.get("/echo/{word}") { _, context in textResponse(context.parameters["word"] ?? "") }
        router.post("/upload") { request, _ in
            textResponse("got \(request.body.count):" + String(decoding: request.body, as: UTF8.self))
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let live = try LiveServer(routes: Self.echoRoutes)
        defer { live.stop() }
        let client = try live.client()
        try client.send(
            rawGet("/echo/one") + rawGet("/echo/two") + "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc"
                + rawGet("/echo/four"))
        #expect(try client.readResponse().text == "one")
        #expect(try client.readResponse().text == "two")
        #expect(try client.readResponse().text == "got 3:abc")
        let last = try client.readResponse()
        #expect(last.text == "four")
        #expect(last.headers["Connection"] == nil)
    }

    /// Pipelined requests for large answers from a client that does not read: the server
    /// answers until their unsent bytes reach its bound and reads no further request until
    /// they are sent, so it never holds the answers to all of them at once; as the client then
    /// reads, every answer comes, in order.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func pipelinedAnswersWaitForTheClientToRead() throws {
        final class Answered: Sendable { let count = Atomic<Int>(0) }
        let answered = Answered()
        let size = 256 * 1024
        let live = try LiveServer { router in
            router.get("/big/{n}") { _, context in
                answered.count.add(1, ordering: .relaxed)
                let head = Array("\(context.parameters["n"] ?? ""):".utf8)
                return HTTPResponse(
                    status: .ok, headers: ["Content-Type": "text/plain"],
                    body: .bytes(head + [UInt8](repeating: UInt8(ascii: "x"), count: size - head.count)))
            }
        }
        defer { live.stop() }
        let client = try live.client()
        let requests = 200  // 50 MiB of answers for 7 KB of requests
        try client.send((0..<requests).map { rawGet("/big/\($0)") }.joined())
        // The first answer, then time for more than the bound allows to come if it did not hold.
        let firstDeadline = ContinuousClock.now + .seconds(10)
        while answered.count.load(ordering: .relaxed) == 0, ContinuousClock.now < firstDeadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        Thread.sleep(forTimeInterval: 0.5)
        let early = answered.count.load(ordering: .relaxed)
        // The bound (one answer here) and what the kernel's socket buffers took: about 15 answers.
        // Without the bound, every request of the first read (4 KiB, about 70) was answered.
        #expect(early > 0 && early < 50, "answered \(early) of \(requests) before the client read")
        for n in 0..<requests {
            let response = try client.readResponse()
            #expect(response.status == 200 && response.body.count == size, "\(n)")
            #expect(response.text.hasPrefix("\(n):"), "answer \(n) out of order")
        }
        #expect(answered.count.load(ordering: .relaxed) == requests)
    }

    @Test func requestSplitAtEveryByteBoundaryIsParsed() throws {
        let live = try LiveServer(routes: Self.echoRoutes)
        defer { live.stop() }
        let request = Array(
            "POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n".utf8)
        let client = try live.client()
        for split in 1..<request.count {
            try client.send(Array(request[0..<split]))
            Thread.sleep(forTimeInterval: 0.002)
            try client.send(Array(request[split...]))
            let response = try client.readResponse()
            #expect(response.status == 200, "split at \(split)")
            #expect(response.text == "got 5:abcde", "split at \(split)")
        }
    }

    @Test func keepAliveCapClosesOnTheNthResponse() throws {
        let live = try LiveServer(adjust: { $0.maxRequestsPerConnection = 3 }, routes: Self.echoRoutes)
        defer { live.stop() }
        let client = try live.client()
        for i in 1...3 {
            try client.send(rawGet("/echo/r\(i)"))
            let response = try client.readResponse()
            #expect(response.text == "r\(i)")
            #expect(response.headers["Connection"] == (i == 3 ? "close" : nil))
        }
        #expect(try client.isClosedByPeer())
    }

    @Test func http10KeepAliveIsAnsweredWithKeepAlive() throws {
        let live = try LiveServer(routes: Self.echoRoutes)
        defer { live.stop() }
        let client = try live.client()
        try client.send("GET /echo/a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = try client.readResponse()
        #expect(first.headers["Connection"] == "keep-alive")
        try client.send("GET /echo/b HTTP/1.0\r\n\r\n")
        let second = try client.readResponse()
        #expect(second.text == "b")
        #expect(second.headers["Connection"] == "close")
        #expect(try client.isClosedByPeer())
    }

    /// A HEAD to a streamed body from an HTTP/1.0 client that asked for keep-alive: the head is
    /// GET's (`Connection: close`, the body would be close-delimited), and the server closes.
    @Test func http10HeadToAStreamClosesAsItsHeadSays() throws {
        let live = try LiveServer { router in
            router.get("/stream") { _, _ in
                HTTPResponse(body: .stream { writer in try writer.write(Array("streamed".utf8)) })
            }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.send("HEAD /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let head = try client.readResponse(isHead: true)
        #expect(head.status == 200)
        #expect(head.headers["Connection"] == "close")
        #expect(try client.isClosedByPeer())
    }

    /// Without the error middleware the engine itself refuses a handler's status that cannot
    /// end a request (a 1xx would leave the client waiting for the final one): a 500, and the
    /// connection goes on.
    @Test func aNonFinalStatusIsA500WithoutMiddleware() throws {
        let live = try LiveServer { router in
            router.get("/early-hints") { _, _ in HTTPResponse(status: HTTPStatus(code: 103), body: .bytes([])) }
            router.get("/late") { _, _ in
                let deferred = HTTPDeferredResponse()
                deferred.complete(.success(HTTPResponse(status: HTTPStatus(code: 100), body: .bytes([]))))
                return .deferred(deferred)
            }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/early-hints") + rawGet("/late") + rawGet("/early-hints"))
        for _ in 0..<3 {
            let response = try client.readResponse()
            #expect(response.status == 500)
            #expect(response.headers["Content-Type"] == "application/problem+json")
        }
    }

    @Test func headNoContentAndNotModifiedAreFramedWithoutBodies() throws {
        let live = try LiveServer { router in
            router.get("/doc") { _, _ in textResponse("twelve bytes") }
            router.get("/empty") { _, _ in
                HTTPResponse(status: .noContent, headers: ["Content-Length": "5"], body: .bytes(Array("oops!".utf8)))
            }
            router.get("/cached") { _, _ in
                HTTPResponse(status: .notModified, headers: ["ETag": "\"1\""], body: .bytes(Array("x".utf8)))
            }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.send("HEAD /doc HTTP/1.1\r\nHost: t\r\n\r\n" + rawGet("/empty") + rawGet("/cached") + rawGet("/doc"))
        let head = try client.readResponse(isHead: true)
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == "12")
        let empty = try client.readResponse()
        #expect(empty.status == 204)
        #expect(empty.headers["Content-Length"] == nil)
        let cached = try client.readResponse()
        #expect(cached.status == 304)
        #expect(cached.headers["ETag"] == "\"1\"")
        // If any body had leaked, this response would not parse as the GET's.
        let get = try client.readResponse()
        #expect(get.text == "twelve bytes")
        #expect(get.headers["Date"]?.hasSuffix(" GMT") == true)
    }
}
