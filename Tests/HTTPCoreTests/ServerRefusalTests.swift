import Foundation
import HTTPCore
import Testing

/// The answers the engine gives itself, before any responder runs (``HTTPRefusal``): rendered
/// by the configuration's `refusalRenderer`, and without content to a `HEAD` request
/// (RFC 9110 §9.3.2) while keeping its `Content-Length` (RFC 9110 §8.6).
@Suite struct ServerRefusalTests {
    static func routes(_ router: inout Router) {
        router.get("/healthz") { _, _ in textResponse("ok") }
        router.post("/upload") { request, _ in textResponse("got \(request.body.count)") }
    }

    /// Reads one answer to `request`, expecting the connection to close after it; fails when
    /// any byte follows the answer (a body after a `HEAD` answer's head, say).
    static func refusal(_ live: LiveServer, _ request: String, isHead: Bool) throws -> RawResponse {
        let client = try live.client()
        try client.send(request)
        let response = try client.readResponse(isHead: isHead)
        #expect(try client.isClosedByPeer())
        #expect(client.unreadBytes == 0, "bytes after the answer: \(client.unreadBytes)")
        return response
    }

    /// Refusals of the head (two Host fields, an unknown expectation, a transfer coding the
    /// engine lacks, a request line or header section over the limit) and of the body (over
    /// the limit) answer a `HEAD` request with the head alone, and a `GET` with the problem.
    @Test(arguments: [
        ("Host: a\r\nHost: b\r\n", 400),
        ("Host: a\r\nExpect: foo\r\n", 417),
        ("Host: a\r\nTransfer-Encoding: gzip, chunked\r\n", 501),
        ("Host: a\r\nContent-Length: 99999999\r\n", 413),
        ("Host: a\r\nX-Big: " + String(repeating: "x", count: 9000) + "\r\n", 431),
    ])
    func aRefusedHeadRequestGetsNoContent(fields: String, status: Int) throws {
        let live = try LiveServer(
            adjust: {
                $0.limits.maxBodyBytes = 1000
                $0.limits.maxHeaderBytes = 8192
            }, routes: Self.routes)
        defer { live.stop() }
        let head = try Self.refusal(live, "HEAD /healthz HTTP/1.1\r\n\(fields)\r\n", isHead: true)
        #expect(head.status == status)
        #expect(head.headers["Connection"] == "close")
        #expect(head.headers["Content-Type"] == "application/problem+json")
        let length = try #require(head.headers["Content-Length"].flatMap { Int($0) })
        let get = try Self.refusal(live, "GET /healthz HTTP/1.1\r\n\(fields)\r\n", isHead: false)
        #expect(get.status == status)
        #expect(get.text.contains("\"status\":\(status)"))
        // The same problem but for its request id, whose last part may be longer.
        #expect(abs(get.body.count - length) < 4)
    }

    @Test func aHeadRequestLineOverTheLimitGetsNoContent() throws {
        let live = try LiveServer(adjust: { $0.limits.maxRequestLineBytes = 100 }, routes: Self.routes)
        defer { live.stop() }
        let target = "/" + String(repeating: "a", count: 200)
        let head = try Self.refusal(live, "HEAD \(target) HTTP/1.1\r\nHost: a\r\n\r\n", isHead: true)
        #expect(head.status == 414)
        #expect(head.headers["Content-Length"] != nil)
    }

    /// Without a method to read (a request line cut short), the answer keeps its content.
    @Test func aRefusalWithoutAMethodKeepsItsContent() throws {
        let live = try LiveServer(routes: Self.routes)
        defer { live.stop() }
        let response = try Self.refusal(live, "HEAD\r\nHost: a\r\n\r\n", isHead: false)
        #expect(response.status == 400)
        #expect(response.text.contains("\"status\":400"))
    }

    /// The renderer is the configuration's; it sees the parsed head when there is one (a body
    /// refused), only the method when the head itself was refused, and neither for the share.
    @Test func theConfiguredRendererMakesTheAnswer() throws {
        let live = try LiveServer(
            adjust: {
                $0.limits.maxBodyBytes = 10
                $0.refusalRenderer = { refusal in
                    var response = HTTPRefusal.problem(refusal)
                    response.headers.add(name: "X-Method", value: refusal.method?.rawValue ?? "none")
                    response.headers.add(name: "X-Caller-Id", value: refusal.head?.headers["X-Request-Id"] ?? "none")
                    response.headers.add(name: "X-Engine-Id", value: refusal.requestId)
                    return response
                }
            }, routes: Self.routes)
        defer { live.stop() }
        let body = try Self.refusal(
            live, "POST /upload HTTP/1.1\r\nHost: a\r\nX-Request-Id: mine\r\nContent-Length: 11\r\n\r\n", isHead: false)
        #expect(body.status == 413)
        #expect(body.headers["X-Method"] == "POST")
        #expect(body.headers["X-Caller-Id"] == "mine")
        #expect(body.text.contains("\"requestId\":\"\(body.headers["X-Engine-Id"] ?? "?")\""))
        let chunked = try Self.refusal(
            live,
            "POST /upload HTTP/1.1\r\nHost: a\r\nX-Request-Id: mine\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            isHead: false)
        #expect(chunked.status == 400)
        #expect(chunked.headers["X-Caller-Id"] == "mine")
        let head = try Self.refusal(
            live, "DELETE /upload HTTP/1.1\r\nHost: a\r\nHost: b\r\nX-Request-Id: mine\r\n\r\n", isHead: false)
        #expect(head.status == 400)
        #expect(head.headers["X-Method"] == "DELETE")
        #expect(head.headers["X-Caller-Id"] == "none")
    }

    /// A head refused on a connection that served requests before gets an id of its own, the
    /// next one, not the id of the request answered before it.
    @Test func aRefusedHeadGetsTheNextRequestId() throws {
        let live = try LiveServer(
            adjust: {
                $0.refusalRenderer = { refusal in
                    var response = HTTPRefusal.problem(refusal)
                    response.headers.add(name: "X-Engine-Id", value: refusal.requestId)
                    return response
                }
            },
            routes: { router in router.get("/id") { _, context in textResponse(context.requestId) } })
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/id") + rawGet("/id") + "GET /bad path HTTP/1.1\r\nHost: a\r\n\r\n")
        let first = try client.readResponse().text
        let second = try client.readResponse().text
        let refused = try client.readResponse()
        #expect(refused.status == 400)
        let ids = [first, second, refused.headers["X-Engine-Id"] ?? ""]
        #expect(Set(ids).count == 3, "\(ids)")
        #expect(first.hasSuffix("-1") && second.hasSuffix("-2") && ids[2].hasSuffix("-3"), "\(ids)")
    }

    @Test func theRefusalOfAMethodFromTheRequestLine() {
        func method(_ text: String) -> HTTPMethod? {
            Array(text.utf8).withUnsafeBytes { HTTPRequestParser.method(ofRefusedHead: $0) }
        }
        #expect(method("HEAD / HTTP/1.1\r\n") == .head)
        #expect(method("\r\n\r\nHEAD /") == .head)
        #expect(method("GET ") == .get)
        #expect(method("HEAD") == nil)
        #expect(method(" HEAD /") == nil)
        #expect(method("HE(AD /") == nil)
        #expect(method("") == nil)
    }

    @Test func theRefusalOfAPathFromTheRequestLine() {
        func path(_ text: String) -> String? {
            Array(text.utf8).withUnsafeBytes { HTTPRequestParser.path(ofRefusedHead: $0) }
        }
        #expect(path("GET /consent/settings HTTP/1.1\r\nCookie: ...") == "/consent/settings")
        #expect(path("\r\nPOST /consent/prompts/1?x=1 HTTP/1.1") == "/consent/prompts/1")
        #expect(path("GET /consent/aaaa") == "/consent/aaaa", "a target cut short gives its beginning")
        #expect(path("GET /" + String(repeating: "a", count: 5000)).map(\.utf8.count) == 1024, "bounded")
        #expect(path("GET * HTTP/1.1") == nil)
        #expect(path("GET http://a.example/consent/settings HTTP/1.1") == "/consent/settings", "absolute-form")
        #expect(path("GET HTTPS://a.example:8443/consent?x HTTP/1.1") == "/consent")
        #expect(path("GET http://a.example HTTP/1.1") == nil)
        #expect(path("GET ftp://a/consent HTTP/1.1") == nil)
        #expect(path("GET") == nil)
        #expect(path("") == nil)
    }
}
