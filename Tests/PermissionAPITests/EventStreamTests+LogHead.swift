import Foundation
import HTTPCore
import PermissionAPI
import PermissionDomain
import PermissionWire
import PostgresStore
import StoreTestSupport
import Testing

/// A position to resume after beyond the log's head (after a restore from an earlier backup).
extension EventStreamTests {
    /// After a restore from an earlier backup the log ends before what a consumer read: its
    /// `Last-Event-ID` (or `after`) is refused with `409 beyond-log-head` naming the head, so
    /// that it starts over instead of skipping the new entries numbered up to it.
    @Test func aPositionBeyondTheLogsHeadIs409() throws {
        let app = try TestApp()
        try app.set("camera", #"{"status":"denied"}"#)
        try app.set("camera", #"{"status":"notDetermined"}"#)  // the head: 2
        for (target, headers) in [
            ("/v1/events", [("Last-Event-ID", "3")]), ("/v1/events?after=3", []),
            ("/v1/events", [("Last-Event-ID", "9999999999999999999")]), ("/v1/audit?after=3", []),
            ("/v1/audit?after=3&limit=5", [("Accept", "application/x-ndjson")]),
        ] {
            // The responder's answer, its stream (if any) not run: it would not end.
            let response = try Self.respond(app, target, headers)
            #expect(response.status.code == 409, "\(target) \(headers)")
            guard case .bytes(let body) = response.body else { continue }
            let problem = try WireDecoder.decodeResponse(Problem.self, from: body)
            #expect(problem.problemType == .beyondLogHead)
            #expect(problem.head == 2)
            #expect(problem.detail.contains("last entry is 2"), "\(problem.detail)")
        }
        #expect(app.application.openEventStreams == 0)
        #expect(try app.send(.get, "/v1/audit?after=2").status == 200)
        #expect(try Self.respond(app, "/v1/events", [("Last-Event-ID", "2")]).status.code == 200)
    }

    /// A position sent with the hash of the entry the client read there: the same entry is
    /// no conflict; another (a log restored from an earlier backup that grew past the position
    /// again) is `409 log-diverged` naming the head, whichever way the position came.
    @Test func aPositionWithAnotherEntrysHashIs409LogDiverged() throws {
        let app = try TestApp()
        try app.set("camera", #"{"status":"denied"}"#)
        try app.set("camera", #"{"status":"notDetermined"}"#)
        try app.set("camera", #"{"status":"denied"}"#)  // the head: 3
        let entries = try app.send(.get, "/v1/audit").decode(AuditPage.self).items
        let hashes = entries.map { $0.hash ?? "" }
        try #require(entries.map(\.seq) == [1, 2, 3] && hashes.allSatisfy { $0.count == 64 })
        for (target, headers) in [
            ("/v1/events", [("Last-Event-ID", "2"), ("Last-Event-Hash", hashes[1])]),
            ("/v1/events?after=2&afterHash=\(hashes[1])", []),
            ("/v1/audit?after=2&afterHash=\(hashes[1])", []),
            ("/v1/audit?after=2&afterHash=\(hashes[1])", [("Accept", "application/x-ndjson")]),
            // A browser resuming with Last-Event-ID on its first URL: after and afterHash are not compared.
            ("/v1/events?after=1&afterHash=\(hashes[0])", [("Last-Event-ID", "3")]),
        ] {
            #expect(try Self.respond(app, target, headers).status.code == 200, "\(target) \(headers)")
        }
        for (target, headers) in [
            ("/v1/events", [("Last-Event-ID", "2"), ("Last-Event-Hash", hashes[0])]),
            ("/v1/events?after=2&afterHash=\(hashes[2])", []),
            ("/v1/audit?after=2&afterHash=\(hashes[0])", []),
            ("/v1/audit?after=2&afterHash=\(String(repeating: "0", count: 64))", [("Accept", "application/x-ndjson")]),
        ] {
            let response = try Self.respond(app, target, headers)
            #expect(response.status.code == 409, "\(target) \(headers)")
            guard case .bytes(let body) = response.body else { continue }
            let problem = try WireDecoder.decodeResponse(Problem.self, from: body)
            #expect(problem.problemType == .logDiverged)
            #expect(problem.head == 3)
            #expect(problem.detail.contains("entry 2 is not the one"), "\(problem.detail)")
        }
        #expect(app.application.openEventStreams == 0)
    }

    /// A hash that is not 64 lowercase hex digits is a 400 naming it, and opens nothing; one
    /// without a position after an entry to go with (none, or 0) has nothing to be compared
    /// with and is ignored.
    @Test func aMalformedHashIs400AndAnUnpairedOneIsIgnored() throws {
        let app = try TestApp()
        try app.set("camera", #"{"status":"denied"}"#)
        let hash = try #require(try app.send(.get, "/v1/audit").decode(AuditPage.self).items.first?.hash)
        let other = String(repeating: "0", count: 64)
        for (target, headers, name) in [
            ("/v1/audit?after=1&afterHash=\(hash.uppercased())", [], "afterHash"),
            ("/v1/audit?after=1&afterHash=\(hash.dropLast())", [], "afterHash"),
            ("/v1/audit?afterHash=x", [], "afterHash"),
            ("/v1/events?after=1&afterHash=x", [("Last-Event-ID", "1")], "afterHash"),
            ("/v1/events", [("Last-Event-Hash", "x")], "Last-Event-Hash"),
            ("/v1/events", [("Last-Event-ID", "1"), ("Last-Event-Hash", "g" + hash.dropFirst())], "Last-Event-Hash"),
        ] {
            let response = try Self.respond(app, target, headers)
            #expect(response.status.code == 400, "\(target) \(headers)")
            guard case .bytes(let body) = response.body else { continue }
            let problem = try WireDecoder.decodeResponse(Problem.self, from: body)
            #expect(problem.detail.hasPrefix(name + ":"), "\(problem.detail)")
        }
        #expect(app.application.openEventStreams == 0)
        for (target, headers) in [
            ("/v1/audit?afterHash=\(other)", []), ("/v1/audit?after=0&afterHash=\(other)", []),
            ("/v1/events?afterHash=\(other)", []), ("/v1/events?after=0&afterHash=\(other)", []),
            ("/v1/events", [("Last-Event-Hash", other)]),
            ("/v1/events?after=1&afterHash=\(hash)", [("Last-Event-Hash", other)]),
        ] {
            #expect(try Self.respond(app, target, headers).status.code == 200, "\(target) \(headers)")
        }
    }

    /// `GET target` with the admin key, answered by the responder (a stream body not run).
    static func respond(_ app: TestApp, _ target: String, _ headers: [(String, String)]) throws -> HTTPResponse {
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        var fields: HTTPHeaders = ["Host": "test", "Authorization": "Bearer \(app.adminKey)"]
        for (name, value) in headers { fields.add(name: name, value: value) }
        return try app.application.responder.respond(
            to: HTTPRequest(
                head: HTTPRequestHead(
                    method: .get, target: target, path: parts[0], query: parts.count > 1 ? parts[1] : nil,
                    version: .http1_1, headers: fields, authority: "test", keepAlive: true, framing: .none,
                    expectContinue: false)),
            context: RequestContext(requestId: "r", logger: quietLogger, remoteAddress: "-"))
    }

    /// PostgreSQL: a position another replica committed and this one does not show yet (its
    /// follower stopped here) is within the log: the head is the database's, not this replica's.
    @Test(.enabled(if: !TestApp.onSQLite, "replicas on PostgreSQL only")) func aPositionCommittedOnAnotherReplicaIsNoConflict()
        throws
    {
        let app = try TestApp()
        let other = try #require(try app.otherReplicaWhileThisOneStopsFollowing())
        let seq = try other.write { writer in
            try writer.append(AuditEntry(at: TestApp.start, actor: .system, action: AuditAction("test.elsewhere")))
        }
        #expect(try app.store.visibleRevision() < seq)
        #expect(try Self.respond(app, "/v1/events", [("Last-Event-ID", String(seq))]).status.code == 200)
        #expect(try app.send(.get, "/v1/audit?after=\(seq)").status == 200)
        #expect(try app.send(.get, "/v1/audit?after=\(seq + 1)").status == 409)
        // Its hash is read from the database, whatever this replica shows.
        let hash = try #require(try other.read { try $0.auditHash(seq: seq) })
        #expect(try app.send(.get, "/v1/audit?after=\(seq)&afterHash=\(hash)").status == 200)
        let events = [("Last-Event-ID", String(seq)), ("Last-Event-Hash", hash)]
        #expect(try Self.respond(app, "/v1/events", events).status.code == 200)
    }

    /// A browser's EventSource gives up on an error status: the consent pages' stream resumes a
    /// `Last-Event-ID` beyond the head at the end of the log, and delivers what comes next.
    @Test func theConsentStreamStartsAtTheHeadAfterARestore() throws {
        let live = try Live()
        defer { live.stop() }
        let app = live.app
        try app.registerApp()
        let cookie = try ConsentSessionTests.session(app)
        let request =
            "GET /consent/events HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\nCookie: \(cookie)\r\nLast-Event-ID: 1000\r\n\r\n"
        let client = try StreamClient(port: live.server.localPort, request: request)
        try client.read(until: ": connected\n\n")
        #expect(client.text.hasPrefix("HTTP/1.1 200"))
        _ = try app.prompt("camera", "full")
        try client.read(until: "id: \(try app.lastSeq())\nevent: prompt.created\n", limit: .seconds(5))
        try client.close()
    }
}
