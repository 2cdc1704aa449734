import Foundation
import HTTPCore
import Testing

/// Live request bodies: 100-continue, limits, chunked uploads (RFC 9110 §10.1.1, RFC 9112 §7.1).
@Suite struct ServerBodyTests {
    static func routes(_ router: inout Router) {
        router.post("/upload") { request, _ in
            textResponse("got \(request.body.count):" + String(decoding: request.body, as: UTF8.self))
        }
    }

    @Test func expectContinueSends100ThenTheFinalResponse() throws {
        let live = try LiveServer(routes: Self.routes)
        defer { live.stop() }
        let client = try live.client()
        try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readResponse()
        #expect(interim.status == 100)
        try client.send("hello")
        let final = try client.readResponse()
        #expect(final.status == 200)
        #expect(final.text == "got 5:hello")
    }

    @Test func expectContinueWithTooLargeBodyGets413WithoutReading() throws {
        let live = try LiveServer(adjust: { $0.limits.maxBodyBytes = 100 }, routes: Self.routes)
        defer { live.stop() }
        let client = try live.client()
        try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.headers["Connection"] == "close")
        #expect(response.text.contains("\"requestId\":"))
        #expect(try client.isClosedByPeer())
    }

    @Test func chunkedUploadIsDecoded() throws {
        let live = try LiveServer(routes: Self.routes)
        defer { live.stop() }
        let client = try live.client()
        try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n")
        Thread.sleep(forTimeInterval: 0.05)
        try client.send("5;ext=1\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.text == "got 9:Wikipedia")
    }

    @Test func malformedRequestGetsProblemAndClose() throws {
        let live = try LiveServer(routes: Self.routes)
        defer { live.stop() }
        let client = try live.client()
        try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.headers["Connection"] == "close")
        #expect(try client.isClosedByPeer())
    }

    @Test func garbageNeverCrashesTheServer() throws {
        let live = try LiveServer(routes: Self.routes)
        defer { live.stop() }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let client = try RawClient(port: live.port, timeoutMilliseconds: 1000)
            let junk = (0..<Int.random(in: 1...600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try client.send(junk + Array("\r\n\r\n".utf8))
            // A 4xx, or a timeout when the junk happens to be an incomplete head; either is fine.
            _ = Result { try client.readResponse() }
        }
        let client = try live.client()
        try client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nok")
        #expect(try client.readResponse().text == "got 2:ok")
    }
}
