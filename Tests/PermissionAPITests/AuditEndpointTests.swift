import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// `GET /v1/audit`: filters, keyset paging, NDJSON (SPEC §5).
@Suite struct AuditEndpointTests {
    /// Ten entries: five users × (camera denied, then microphone denied), one second apart.
    static func populated() throws -> TestApp { try populated { _ in } }

    @Test func seqIsGapFreeAndPaged() throws {
        let app = try Self.populated()
        let all = try app.audit("limit=1000")
        #expect(all.map(\.seq) == Array(1...10))
        let first = try app.send(.get, "/v1/audit?limit=4").decode(AuditPage.self)
        #expect(first.items.map(\.seq) == [1, 2, 3, 4])
        #expect(first.nextAfter == 4)
        let last = try app.send(.get, "/v1/audit?limit=6&after=4").decode(AuditPage.self)
        #expect(last.items.map(\.seq) == [5, 6, 7, 8, 9, 10])
        #expect(last.nextAfter == nil)
    }

    @Test func filters() throws {
        let app = try Self.populated()
        #expect(try app.audit("user=u2").map(\.seq) == [3, 4])
        #expect(try app.audit("service=microphone").count == 5)
        #expect(try app.audit("app=com.example.maps").count == 10)
        #expect(try app.audit("app=com.example.chat").isEmpty)
        #expect(try app.audit("action=authorization.set&user=u5").count == 2)
        #expect(try app.audit("action=prompt.created").isEmpty)
        let since = Timestamp.format(TestApp.start.addingTimeInterval(2))
        let until = Timestamp.format(TestApp.start.addingTimeInterval(4))
        #expect(try app.audit("since=\(since)&until=\(until)").map(\.seq) == [3, 4])
    }

    @Test func ndjsonStreamsEveryMatchingEntryOneALine() throws {
        let app = try Self.populated { $0.streamPageSize = 3 }
        let response = try app.send(.get, "/v1/audit?service=camera", headers: [("Accept", "application/x-ndjson")])
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/x-ndjson")
        #expect(response.headers["Vary"] == "Accept" && response.headers["Cache-Control"] == "no-store")
        #expect(response.text.hasSuffix("\n"))
        let lines = response.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let entries = try lines.map { try WireDecoder.decodeResponse(AuditEntry.self, from: Array($0.utf8)) }
        #expect(entries.map(\.seq) == [1, 3, 5, 7, 9])
        #expect(entries.allSatisfy { $0.service == "camera" && $0.action == "authorization.set" })
        let limited = try app.send(.get, "/v1/audit?limit=2&after=1", headers: [("Accept", "application/x-ndjson")])
        #expect(limited.text.split(separator: "\n").count == 2)
        let refused = try app.send(.get, "/v1/audit", headers: [("Accept", "application/x-ndjson;q=0, application/json")])
        #expect(refused.headers["Content-Type"] == "application/json")
        #expect(refused.headers["Vary"] == "Accept" && refused.headers["Cache-Control"] == "no-store", "personal data")
    }

    @Test(
        "an action filter no entry could have is 400, not an empty page",
        arguments: [
            "aA.a" + String(repeating: "A", count: 61), "revoked", "authorization.", ".revoked", "Authorization.set",
            "authorization.set.x.y", "authorization..set", "authorization.re-voked", "authorization.sét",
        ])
    func malformedActionFilter(action: String) throws {
        let app = try Self.populated()
        let query = "action=" + (action.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        for accept in ["application/json", "application/x-ndjson"] {
            let response = try app.send(.get, "/v1/audit?" + query, headers: [("Accept", accept)])
            #expect(response.status == 400, "\(action) as \(accept)")
            #expect(response.problemType == .invalidRequest)
        }
        #expect(try app.audit("action=aA.a" + String(repeating: "A", count: 60)).isEmpty, "64 characters are fine")
    }

    /// `limit` bounds an NDJSON export with the same range as a JSON page (openapi.yaml `Limit`).
    @Test func ndjsonLimitHasThePageRange() throws {
        let app = try Self.populated()
        let ndjson = [("Accept", "application/x-ndjson")]
        for limit in ["1001", "0", "-1", "x", "99999999999999999999"] {
            let response = try app.send(.get, "/v1/audit?limit=" + limit, headers: ndjson)
            #expect(response.status == 400, "limit=\(limit)")
            #expect(response.problemType == .invalidRequest, "limit=\(limit): \(response.text)")
            #expect(response.problem?.detail.contains("limit") == true)
            let page = try app.send(.get, "/v1/audit?limit=" + limit)
            #expect(page.status == 400, "the JSON form agrees for limit=\(limit)")
        }
        let most = try app.send(.get, "/v1/audit?limit=1000", headers: ndjson)
        #expect(most.status == 200)
        #expect(most.text.split(separator: "\n").count == 10)
        let all = try app.send(.get, "/v1/audit", headers: ndjson)
        #expect(all.text.split(separator: "\n").count == 10, "without limit the whole export streams")
    }

    @Test func ndjsonFlushesPageByPage() throws {
        let app = try Self.populated { $0.streamPageSize = 4 }
        let head = try app.application.responder.respond(
            to: HTTPRequest(
                head: HTTPRequestHead(
                    method: .get, target: "/v1/audit", path: "/v1/audit", query: nil, version: .http1_1,
                    headers: ["Accept": "application/x-ndjson", "Authorization": "Bearer \(app.adminKey)"], authority: "test",
                    keepAlive: true, framing: .none,
                    expectContinue: false)),
            context: RequestContext(requestId: "r", logger: quietLogger, remoteAddress: "-"))
        guard case .stream(let produce) = head.body else {
            Issue.record("expected a stream")
            return
        }
        let writer = CollectingWriter()
        try produce(writer)
        #expect(writer.flushes == 3, "pages of 4, 4 and 2")
    }

    @Test func entriesCarryActorAndRequestId() throws {
        let app = try TestApp()
        try app.set("camera", #"{"status":"denied"}"#, headers: [("X-Request-Id", "req-1")])
        let entry = try #require(try app.audit().first)
        #expect(entry.actor == AuditEntry.Actor(keyId: app.adminKeyId, role: "admin"))
        #expect(entry.requestId == "req-1")
        #expect(entry.at == TestApp.start)
    }
}

extension AuditEndpointTests {
    static func populated(_ adjust: (inout APIConfiguration) -> Void) throws -> TestApp {
        let app = try TestApp(adjust)
        for index in 1...5 {
            try app.set("camera", #"{"status":"denied"}"#, user: "u\(index)")
            app.clock.advance(by: 1)
            try app.set("microphone", #"{"status":"denied"}"#, user: "u\(index)")
            app.clock.advance(by: 1)
        }
        return app
    }
}
