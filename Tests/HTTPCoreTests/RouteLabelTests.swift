import Logging
import Testing

@testable import HTTPCore

/// The metrics middleware's `route` label, in process and as the engine runs a request
/// (`prepare`, then `respond`): the matched template, read from the context the router
/// prepared before the chain ran; "unmatched" for the 400, 404 and 405 misses.
@Suite struct RouteLabelTests {
    static func request(_ method: HTTPMethod, _ path: String) -> HTTPRequest {
        HTTPRequest(
            head: HTTPRequestHead(
                method: method, target: path, path: path, query: nil, version: .http1_1, headers: ["Host": "t"],
                authority: "t", keepAlive: true, framing: .none, expectContinue: false))
    }

    @Test func labelsAreTheTemplateOrUnmatched() throws {
        let metrics = HTTPMetrics()
        var router = Router()
        router.get("/a/{x}") { _, context in
            if context.parameters["x"] == "gone" { throw HTTPError(.notFound, detail: "no such thing") }
            return HTTPResponse(status: .ok, body: .bytes(Array("a".utf8)))
        }
        router.delete("/a/{x}") { _, _ in HTTPResponse(status: .noContent) }
        router.use(HTTPMetricsMiddleware(metrics: metrics))
        router.use(ErrorMiddleware())
        let responder = router.buildResponder()
        let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        var statuses: [Int] = []
        for (method, path) in [
            (HTTPMethod.get, "/a/1"), (.head, "/a/2"), (.delete, "/a/3"), (.get, "/a/gone"), (.get, "/nowhere"),
            (.post, "/a/1"), (.get, "/a/%zz"), (.get, "*"),
        ] {
            let request = Self.request(method, path)
            var context = RequestContext(requestId: "r", logger: quiet, remoteAddress: "127.0.0.1:1")
            _ = responder.prepare(request.head, context: &context)
            let response = try responder.respond(to: request, context: context)
            statuses.append(response.status.code)
            if method == .post { #expect(response.headers["Allow"] == "DELETE, GET, HEAD, OPTIONS") }
        }
        #expect(statuses == [200, 200, 204, 404, 404, 405, 400, 404])
        let requests = metrics.snapshot().requests
        func count(_ route: String, _ method: String, _ status: Int) -> UInt64? {
            requests[HTTPMetrics.RequestKey(route: route, method: method, status: status)]
        }
        #expect(count("/a/{x}", "GET", 200) == 1)
        #expect(count("/a/{x}", "HEAD", 200) == 1)
        #expect(count("/a/{x}", "DELETE", 204) == 1)
        #expect(count("/a/{x}", "GET", 404) == 1)  // thrown by the handler: its route matched
        #expect(count("unmatched", "GET", 404) == 2)
        #expect(count("unmatched", "POST", 405) == 1)
        #expect(count("unmatched", "GET", 400) == 1)
        #expect(requests.count == 7)
    }
}
