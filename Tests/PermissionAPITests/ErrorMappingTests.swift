import Foundation
import HTTPCore
import PermissionDomain
import PermissionWire
import PostgresStore
import PostgresTestServer
import SQLiteStore
import TestThreads
import Testing

@testable import PermissionAPI

/// Every refusal is problem+json with a stable type and the request id, and changes nothing.
@Suite struct ErrorMappingTests {
    static let target = TestApp.path("u42", "com.example.maps", "camera")

    @Test(arguments: [
        ("/v1/users/bad%20user/apps/com.example.maps/authorizations/camera", ProblemType.invalidRequest, "user"),
        ("/v1/users/u42/apps/nodots/authorizations/camera", .invalidRequest, "app"),
        ("/v1/users/u42/apps/com.example.maps/authorizations/Camera", .invalidRequest, "service"),
        ("/v1/users/u42/apps/com.example.maps/authorizations/teleport", .unknownService, "teleport"),
        ("/v1/prompts/bad!id", .invalidRequest, "prompt"),
    ])
    func malformedOrUnknownIds(path: String, type: ProblemType, mention: String) throws {
        let app = try TestApp()
        let response = try app.send(.get, path)
        #expect(response.status == type.status)
        #expect(response.problemType == type)
        #expect(response.problem?.detail.contains(mention) == true)
        #expect(response.problem?.requestId.isEmpty == false)
    }

    @Test func unknownRouteAndMethod() throws {
        let app = try TestApp()
        let missing = try app.send(.get, "/v1/unknown")
        #expect(missing.status == 404)
        #expect(missing.problemType == .notFound)
        let method = try app.send(.delete, Self.target)
        #expect(method.status == 405)
        #expect(method.problemType == .methodNotAllowed)
        #expect(method.headers["Allow"] == "GET, HEAD, OPTIONS, PUT")
    }

    /// Each bad body on a write: the status, the type, and no audit entry.
    @Test(arguments: [
        (#"{"status":"denied""#, "application/json", 400, ProblemType.invalidJSON),
        (#"{"status":"denied","levle":"x"}"#, "application/json", 400, .unknownMember),
        (#"{"status":"denied","status":"denied"}"#, "application/json", 400, .invalidJSON),
        (#"{"status":"sideways"}"#, "application/json", 400, .invalidRequest),
        (#"{"status":42}"#, "application/json", 400, .invalidRequest),
        (#"{"status":"authorized","level":"huge"}"#, "application/json", 422, .unknownLevel),
        (#"{"status":"authorized"}"#, "application/json", 422, .invalidCombination),
        ("status=denied", "application/x-www-form-urlencoded", 415, .unsupportedMediaType),
        (#"{"status":"denied"}"#, "", 415, .unsupportedMediaType),
    ])
    func badBodiesChangeNothing(body: String, contentType: String, status: Int, type: ProblemType) throws {
        let app = try TestApp()
        let before = try app.lastSeq()
        let response = try app.send(.put, Self.target, body: Array(body.utf8), headers: [("Content-Type", contentType)])
        #expect(response.status == status, "\(response.text)")
        #expect(response.problemType == type)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(try app.lastSeq() == before)
        #expect(try app.authorization("camera").version == 0)
    }

    @Test func unknownLevelNamesTheAllowedOnes() throws {
        let app = try TestApp()
        let response = try app.set("camera", #"{"status":"authorized","level":"huge"}"#)
        #expect(response.problem?.allowed == ["full"])
    }

    @Test func oversizedBodyIs413AndChangesNothing() throws {
        let app = try TestApp { $0.maxBodyBytes = 64 }
        let padding = String(repeating: " ", count: 100)
        let response = try app.set("camera", #"{"status":"denied"}"# + padding)
        #expect(response.status == 413)
        #expect(response.problemType == .payloadTooLarge)
        #expect(try app.lastSeq() == 0)
    }

    @Test func jsonWithParametersAndSuffixIsAccepted() throws {
        let app = try TestApp()
        try app.registerApp()
        let charset = try app.send(
            .put, Self.target, body: Array(#"{"status":"denied"}"#.utf8),
            headers: [("Content-Type", "application/json; charset=utf-8")])
        #expect(charset.status == 200)
        let suffix = try app.send(
            .put, Self.target, body: Array(#"{"status":"authorized","level":"full"}"#.utf8),
            headers: [("Content-Type", "application/merge-patch+json")])
        #expect(suffix.status == 200)
    }

    @Test func badQueryParameters() throws {
        let app = try TestApp()
        for query in ["limit=0", "limit=1001", "limit=x", "after=%ZZ", "after=!!!", "status=sideways", "service=teleport"] {
            let response = try app.send(.get, "/v1/users/u42/authorizations?" + query)
            #expect(response.status == 400 || (query.hasPrefix("service") && response.status == 404), "\(query)")
        }
        for query in ["after=-1", "since=yesterday", "until=2026-13-01T00:00:00Z", "user=bad%20user"] {
            #expect(try app.send(.get, "/v1/audit?" + query).status == 400, "\(query)")
        }
    }

    /// Every database reader checked out for longer than the busy timeout: 503 with
    /// `Retry-After`, not a request that waits for ever.
    @Test(
        .timeLimit(.minutes(1)), .blocksItsThread,
        .enabled(if: TestApp.onSQLite, "SQLite's reader pool (DatabaseConfiguration.maximumReaderCount) is what it exhausts"))
    func everyReaderBusyIsUnavailable() throws {
        let app = try TestApp(database: DatabaseConfiguration(busyTimeoutMilliseconds: 200, maximumReaderCount: 1))
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let returned = DispatchSemaphore(value: 0)
        let store = app.store
        Thread {
            _ = try? store.read { _ in
                holding.signal()
                release.wait()  // keep the only reader out
            }
            returned.signal()
        }.start()
        defer { release.signal() }
        #expect(holding.wait(timeout: .now() + 10) == .success)
        let response = try app.send(.get, Self.target)
        #expect(response.status == 503)
        #expect(response.problemType == .unavailable)
        #expect(response.headers["Retry-After"] == "1")
        release.signal()
        // The reader is back once its read has returned, however late its thread ran.
        #expect(returned.wait(timeout: .now() + 10) == .success)
        #expect(try app.send(.get, Self.target).status != 503)
    }
    /// A disk with no room for the database to grow: writes are 503 with `Retry-After` (the
    /// client may try again once the operator made room), not 500; nothing half-written; once
    /// there is room, writes go on and the chain is whole. The room is bounded here with
    /// `max_page_count` on the writer's connection, which SQLite answers with `SQLITE_FULL`.
    @Test(.enabled(if: TestApp.onSQLite, "SQLITE_FULL is SQLite's"))
    func aFullDiskIsUnavailable() throws {
        let app = try TestApp()
        let sqlite = try #require(app.sqliteStore)
        // The file as it is, and no page more: apps of 3 KB each soon need one.
        try sqlite.pool.writer.writeWithoutTransaction { try $0.execute("PRAGMA max_page_count = 1") }
        let keys = [
            "NSCameraUsageDescription", "NSContactsUsageDescription", "NSMicrophoneUsageDescription",
            "NSPhotoLibraryUsageDescription", "NSCalendarsFullAccessUsageDescription", "NSRemindersFullAccessUsageDescription",
        ]
        let text = String(repeating: "p", count: 500)
        let body =
            "{\"name\": \"Full\", \"purposeStrings\": {" + keys.map { "\"\($0)\": \"\(text)\"" }.joined(separator: ", ") + "}}"
        var refused: TestResponse?
        var seq = try app.lastSeq()
        for index in 0..<100 {
            let response = try app.send(.put, "/v1/apps/com.example.full\(index)", json: body)
            if response.status != 201 {
                refused = response
                break
            }
            seq = try app.lastSeq()
        }
        let response = try #require(refused, "the file never filled")
        #expect(response.status == 503, "\(response.text)")
        #expect(response.problemType == .unavailable && response.headers["Retry-After"] == "1")
        #expect(response.text.contains("disk is full"), "\(response.text)")
        #expect(try app.lastSeq() == seq, "nothing of the refused write was kept")
        try sqlite.pool.writer.writeWithoutTransaction { try $0.execute("PRAGMA max_page_count = 1073741823") }
        #expect(try app.send(.put, "/v1/apps/com.example.after", json: body).status == 201)
        #expect(try app.send(.get, "/v1/audit/verify").text.contains(#""valid":true"#))
    }

    /// A commit sent and not answered may have been made: 503 with a detail that says so and no
    /// Retry-After, rather than "retry shortly", which would have a client repeat the change.
    @Test func aCommitOfUnknownOutcomeIsNotToBeRetried() {
        let context = RequestContext(requestId: "r1", logger: quietLogger, remoteAddress: "127.0.0.1:1")
        let unknown = ErrorMapping.httpError(
            for: PermissionError.unavailable(why: PermissionError.commitOutcomeUnknown, cause: "server closed the connection"),
            context: context)
        #expect(unknown.status.code == 503)
        #expect(unknown.headers["Retry-After"] == nil)
        #expect(unknown.detail?.contains("whether the change was made is unknown") == true, "\(unknown.detail ?? "")")
        #expect(unknown.detail?.contains("retry shortly") == false)
        let busy = ErrorMapping.httpError(for: PermissionError.unavailable(why: "every reader is busy"), context: context)
        #expect(busy.headers["Retry-After"] == "1" && busy.detail == "Every reader is busy; retry shortly.")
    }

    /// PostgreSQL down: 503 with a detail that says so and nothing more; libpq's message (it
    /// names the database's socket or host and port) stays in the server's log.
    @Test(
        .timeLimit(.minutes(1)), .blocksItsThread,
        .enabled(if: !TestApp.onSQLite, "the database's own connection failure is PostgreSQL's"))
    func unreachableDatabaseIsUnavailableWithoutItsAddress() throws {
        let app = try TestApp()
        let name = try #require(
            app.postgresConnectionString?.split(separator: " ").first { $0.hasPrefix("dbname=") }?.dropFirst("dbname=".count))
        let admin = try PostgresConnection(try PostgresServer.shared.get().connectionString())
        try admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS false")
        defer { _ = try? admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS true") }
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
        let response = try app.send(.put, Self.target, json: #"{"status": "denied"}"#)
        #expect(response.status == 503)
        #expect(response.problemType == .unavailable)
        #expect(response.headers["Retry-After"] == "1")
        #expect(response.problem?.detail == "The database is unavailable; retry shortly.", "\(response.problem?.detail ?? "")")
    }
}
