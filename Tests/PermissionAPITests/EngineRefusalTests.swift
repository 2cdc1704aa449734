import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// The answers the HTTP engine gives itself before routing, as `main` installs their renderer
/// (`APIConfiguration.refusalRenderer`): the documented problem types and `X-Request-Id`, the
/// caller's when the head was read and its id is sane, like every other response.
@Suite struct EngineRefusalTests {
    static let render = APIConfiguration.refusalRenderer

    static func head(requestId: String?) -> HTTPRequestHead {
        var headers = HTTPHeaders([("Host", "test")])
        if let requestId { headers.add(name: "X-Request-Id", value: requestId) }
        return HTTPRequestHead(
            method: .put, target: "/v1/apps/com.x.y", path: "/v1/apps/com.x.y", query: nil, version: .http1_1,
            headers: headers, authority: "test", keepAlive: true, framing: .contentLength(70_000), expectContinue: false)
    }

    static func problem(_ response: HTTPResponse) throws -> Problem {
        guard case .bytes(let body) = response.body else { throw TestFailure("not a byte body") }
        return try WireDecoder.decodeResponse(Problem.self, from: body)
    }

    /// Every status the engine refuses with has its stable type, sent with that type's status.
    @Test(arguments: [
        (400, ProblemType.invalidRequest), (408, .requestTimeout), (413, .payloadTooLarge), (414, .uriTooLong),
        (417, .expectationFailed), (429, .tooManyRequests), (431, .headerFieldsTooLarge), (501, .notImplemented),
        (505, .versionNotSupported),
    ])
    func everyRefusalHasItsProblemType(status: Int, type: ProblemType) throws {
        #expect(type.status == status)
        let response = Self.render(
            HTTPRefusal(status: HTTPStatus(code: status), detail: "Why.", headers: ["Retry-After": "1"], requestId: "e-1-0"))
        #expect(response.status.code == status)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.headers["X-Request-Id"] == "e-1-0")
        #expect(response.headers["Retry-After"] == "1")
        let problem = try Self.problem(response)
        #expect(problem.problemType == type)
        #expect(problem.title == type.title)
        #expect(problem.status == status)
        #expect(problem.detail == "Why.")
        #expect(problem.requestId == "e-1-0")
    }

    /// A consent page's request the engine refuses (here a form over the body limit) is
    /// answered as a page in the browser's language with the pages' security headers, never
    /// problem+json; a `/v1` request keeps its problem.
    @Test func aConsentPagesRefusalIsAPage() throws {
        var headers = HTTPHeaders([("Host", "test"), ("Accept-Language", "de"), ("X-Request-Id", "mine-1")])
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let head = HTTPRequestHead(
            method: .post, target: "/consent/settings/camera/com.x.y", path: "/consent/settings/camera/com.x.y", query: nil,
            version: .http1_1, headers: headers, authority: "test", keepAlive: true, framing: .contentLength(70_000),
            expectContinue: false)
        let response = Self.render(
            HTTPRefusal(
                status: .contentTooLarge, detail: "Too large.", headers: ["Retry-After": "1"], head: head, requestId: "e-1-0"))
        #expect(response.status == .contentTooLarge)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.headers["X-Request-Id"] == "mine-1" && response.headers["Retry-After"] == "1")
        guard case .bytes(let body) = response.body else { throw TestFailure("not a byte body") }
        ConsentSessionTests.expectSecurityHeaders(TestResponse(status: 413, headers: response.headers, body: body))
        let page = String(decoding: body, as: UTF8.self)
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.contains(#"<html lang="de">"#))
        #expect(page.contains("Die Anfrage deines Browsers konnte nicht angenommen werden"))
        #expect(!page.contains("Too large."), "the engine's detail is for the log, not the page")
        let api = Self.render(
            HTTPRefusal(status: .contentTooLarge, detail: "Too large.", head: Self.head(requestId: nil), requestId: "e-1-0"))
        #expect(api.headers["Content-Type"] == "application/problem+json")
    }

    @Test func theCallersSaneIdIsEchoed() throws {
        let mine = Self.render(
            HTTPRefusal(
                status: .contentTooLarge, detail: "Too large.", head: Self.head(requestId: "my-req-1"), requestId: "e-1-0"))
        #expect(mine.headers["X-Request-Id"] == "my-req-1")
        #expect(try Self.problem(mine).requestId == "my-req-1")
        #expect(try Self.problem(mine).problemType == .payloadTooLarge)
        for insane in ["my req", String(repeating: "a", count: 129), "<script>"] {
            let generated = Self.render(
                HTTPRefusal(
                    status: .contentTooLarge, detail: "Too large.", head: Self.head(requestId: insane), requestId: "e-1-0"))
            #expect(generated.headers["X-Request-Id"] == "e-1-0")
            #expect(try Self.problem(generated).requestId == "e-1-0")
        }
        let none = Self.render(HTTPRefusal(status: .badRequest, detail: "Bad.", requestId: "e-2-0"))
        #expect(none.headers["X-Request-Id"] == "e-2-0")
    }

    // MARK: Live

    /// One raw request to a live server over `app`'s responder with the API's renderer; the
    /// answer is read to the connection's close.
    static func exchange(_ port: Int, _ request: [UInt8]) throws -> (head: String, body: String) {
        let socket = try Socket.connect(host: "127.0.0.1", port: port)
        defer { _ = try? socket.close() }
        try socket.setTimeouts(milliseconds: 5000)
        if !request.isEmpty { try socket.sendAll(request) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try socket.read(into: $0.baseAddress!, count: $0.count) }
            guard let n else { throw TestFailure("timed out after \(received.count) bytes") }
            if n == 0 { break }
            received += chunk[0..<n]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { throw TestFailure("no head: \(text)") }
        return (String(text[..<end.lowerBound]), String(text[end.upperBound...]))
    }

    static func field(_ name: String, in head: String) -> String? {
        for line in head.components(separatedBy: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// A live server over `app`'s responder with the API's renderer.
    static func server(_ app: TestApp, _ adjust: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.refusalRenderer = APIConfiguration.refusalRenderer
        configuration.shutdownGracePeriod = .seconds(2)
        adjust(&configuration)
        let server = HTTPServer(configuration: configuration, responder: app.application.responder, logger: quietLogger)
        try server.start()
        return server
    }

    static func stop(_ server: HTTPServer) {
        server.shutdown(deadline: .now() + .seconds(2))
        server.waitUntilStopped()
    }

    /// Limits the live refusal tests go past: a 64 KiB body, a 1 KiB request line, 8 KiB of fields.
    static func smallLimits(_ configuration: inout HTTPServerConfiguration) {
        configuration.limits.maxBodyBytes = 65_536
        configuration.limits.maxRequestLineBytes = 1024
        configuration.limits.maxHeaderBytes = 8192
    }

    @Test func liveRefusalsCarryTheirTypeAndRequestId() throws {
        let app = try TestApp()
        defer { app.application.stop() }
        let server = try Self.server(app, Self.smallLimits)
        defer { Self.stop(server) }
        let port = server.localPort
        let cases: [(request: String, status: Int, type: ProblemType, echoed: Bool)] = [
            (
                // Refused at the head, before the body is read.
                "PUT /v1/apps/com.x.y HTTP/1.1\r\nHost: a\r\nX-Request-Id: my-req-1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 70000\r\n\r\n", 413, .payloadTooLarge, true
            ),
            (
                "PUT /v1/apps/com.x.y HTTP/1.1\r\nHost: a\r\nX-Request-Id: my-req-1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "11170\r\n" + String(repeating: "a", count: 100), 413, .payloadTooLarge, true
            ),
            ("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nX-Request-Id: my-req-1\r\n\r\n", 400, .invalidRequest, false),
            ("GET /healthz HTTP/1.1\r\nHost: a\r\nExpect: foo\r\nX-Request-Id: my-req-1\r\n\r\n", 417, .expectationFailed, false),
            (
                "POST /v1/reset HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\nX-Request-Id: my-req-1\r\n\r\n", 501,
                .notImplemented, false
            ),
            ("GET /" + String(repeating: "a", count: 2000) + " HTTP/1.1\r\nHost: a\r\n\r\n", 414, .uriTooLong, false),
            (
                "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "x", count: 9000) + "\r\n\r\n", 431,
                .headerFieldsTooLarge, false
            ),
            ("GET /healthz HTTP/2.0\r\nHost: a\r\n\r\n", 505, .versionNotSupported, false),
            ("GET /v1/%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400, .invalidRequest, false),
        ]
        for (request, status, type, echoed) in cases {
            let (head, body) = try Self.exchange(port, Array(request.utf8))
            let label = "\(status) \(request.prefix(60))"
            #expect(head.hasPrefix("HTTP/1.1 \(status) "), "\(label): \(head)")
            let problem = try WireDecoder.decodeResponse(Problem.self, from: Array(body.utf8))
            #expect(problem.problemType == type, "\(label): \(body)")
            #expect(problem.title == type.title)
            let id = try #require(Self.field("X-Request-Id", in: head), "\(label): \(head)")
            #expect(problem.requestId == id)
            if echoed { #expect(id == "my-req-1", "\(label)") } else { #expect(id != "my-req-1", "\(label)") }
        }

        // A HEAD request the engine refuses gets the head alone.
        let (head, body) = try Self.exchange(port, Array("HEAD /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8))
        #expect(head.hasPrefix("HTTP/1.1 400 "))
        #expect(Self.field("Content-Length", in: head).flatMap { Int($0) } ?? 0 > 0)
        #expect(Self.field("X-Request-Id", in: head) != nil)
        #expect(body.isEmpty, "\(body)")

    }

    /// A consent page's request refused whole at its head (too large a cookie: 431; too long a
    /// target: 414; a malformed line: 400) is known by its request line's path, and answered
    /// with a page a browser shows, not problem+json; the same refusals elsewhere keep theirs.
    @Test func aConsentPageRefusedAtItsHeadIsAPage() throws {
        let app = try TestApp()
        defer { app.application.stop() }
        let server = try Self.server(app, Self.smallLimits)
        defer { Self.stop(server) }
        let cookie = "Cookie: c=" + String(repeating: "x", count: 9000) + "\r\n"
        let cases: [(request: String, status: Int, page: Bool)] = [
            ("GET /consent/settings HTTP/1.1\r\nHost: a\r\n" + cookie + "\r\n", 431, true),
            ("GET /consent/" + String(repeating: "a", count: 2000) + " HTTP/1.1\r\nHost: a\r\n\r\n", 414, true),
            ("GET /consent/settings HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n", 400, true),
            ("GET /v1/apps HTTP/1.1\r\nHost: a\r\n" + cookie + "\r\n", 431, false),
            ("GET /consentx HTTP/1.1\r\nHost: a\r\n" + cookie + "\r\n", 431, false),
        ]
        for (request, status, page) in cases {
            let (head, body) = try Self.exchange(server.localPort, Array(request.utf8))
            let label = "\(status) \(request.prefix(40))"
            #expect(head.hasPrefix("HTTP/1.1 \(status) "), "\(label): \(head)")
            if page {
                #expect(Self.field("Content-Type", in: head) == "text/html; charset=utf-8", "\(label): \(head)")
                #expect(body.hasPrefix("<!DOCTYPE html>") && body.contains(#"<html lang="en">"#), "\(label)")
                #expect(Self.field("Content-Security-Policy", in: head) != nil, "\(label): the pages' headers")
            } else {
                #expect(Self.field("Content-Type", in: head) == "application/problem+json", "\(label): \(head)")
            }
        }
    }

    /// A connection over the address's share: too-many-requests with an id of its own.
    @Test func theAddressSharesRefusal() throws {
        let app = try TestApp()
        defer { app.application.stop() }
        let server = try Self.server(app) { $0.maxConnectionsPerAddress = 1 }
        defer { Self.stop(server) }
        let port = server.localPort
        let held = try Socket.connect(host: "127.0.0.1", port: port)
        defer { _ = try? held.close() }
        let refused = try Self.exchange(port, [])
        #expect(refused.head.hasPrefix("HTTP/1.1 429 "), "\(refused.head)")
        let problem = try WireDecoder.decodeResponse(Problem.self, from: Array(refused.body.utf8))
        #expect(problem.problemType == .tooManyRequests)
        #expect(Self.field("X-Request-Id", in: refused.head) == problem.requestId)
        #expect(Self.field("Retry-After", in: refused.head) == "1")
    }
}
