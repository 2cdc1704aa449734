import Foundation
import HTTPCore
import PermissionAPI
import PermissionDomain
import Testing

extension EventStreamTests {
    /// Opens `GET /v1/events` with `key` through the responder; the response holds its slot
    /// until it is released, as an open stream does.
    static func open(_ app: TestApp, key: String) throws -> HTTPResponse {
        try app.application.responder.respond(
            to: HTTPRequest(
                head: HTTPRequestHead(
                    method: .get, target: "/v1/events", path: "/v1/events", query: nil, version: .http1_1,
                    headers: ["Host": "test", "Authorization": "Bearer \(key)"], authority: "test", keepAlive: true,
                    framing: .none, expectContinue: false)),
            context: RequestContext(requestId: "r", logger: quietLogger, remoteAddress: "127.0.0.1:1"))
    }

    @Test func eachKeyHasItsOwnStreamCap() throws {
        let app = try TestApp {
            $0.maxEventStreams = 8
            $0.maxEventStreamsPerKey = 4
        }
        let a = try app.storeKey(role: .auditor)
        let b = try app.storeKey(role: .auditor)
        var held: [HTTPResponse] = []
        for _ in 0..<4 {
            let response = try Self.open(app, key: a.secret)
            #expect(response.status.code == 200)
            held.append(response)
        }
        // Key A at its cap: 429 with a problem body and Retry-After.
        let refused = try Self.open(app, key: a.secret)
        #expect(refused.status.code == 429)
        #expect(refused.headers["Retry-After"] != nil)
        if case .bytes(let body) = refused.body {
            #expect(TestResponse(status: 429, headers: refused.headers, body: body).problemType == .tooManyRequests)
        } else {
            Issue.record("a refused stream has a problem body, not a stream")
        }
        #expect(app.application.openEventStreams == 4)
        // Key B still gets a stream.
        var other: HTTPResponse? = try Self.open(app, key: b.secret)
        #expect(other?.status.code == 200)
        #expect(app.application.openEventStreams == 5)
        // Closing one of A's frees a slot for A.
        held.removeFirst()
        #expect(app.application.openEventStreams == 4)
        held.append(try Self.open(app, key: a.secret))
        #expect(held.last?.status.code == 200)
        other = nil
        held.removeAll()
        #expect(app.application.openEventStreams == 0)
        #expect(other == nil)
    }
}
