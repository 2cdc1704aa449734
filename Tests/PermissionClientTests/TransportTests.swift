import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// The SDK against scripted servers on real loopback sockets: headers sent, keep-alive,
/// problem decoding, and every failure the issue lists (server down, wrong key, 404, 422,
/// a stalled server, a response cut in the middle, malformed JSON).
@Suite("PermissionClient transport", .timeLimit(.minutes(1)), .blocksItsThread)
struct TransportTests {
    static func client(
        _ server: ScriptedServer, key: String? = "k-secret", timeout: Duration = .seconds(5),
        retry: RetryPolicy = RetryPolicy(baseDelay: .milliseconds(10)),
        eventsRetry: RetryPolicy = RetryPolicy(baseDelay: .milliseconds(10)),
        onCall: (@Sendable (CallRecord) -> Void)? = nil
    ) throws -> PermissionClient {
        try PermissionClient(
            configuration: .init(
                baseURL: server.url + "/", apiKey: key, connectTimeout: .seconds(1),
                timeout: timeout, retry: retry, eventsRetry: eventsRetry, userAgent: "client-tests/1", onCall: onCall))
    }

    @Test func statusSendsKeyAgentRequestIdAndEncodedPath() async throws {
        let server = try ScriptedServer { _, _ in .authorization(status: "authorized", level: "always") }
        defer { server.stop() }
        let client = try Self.client(server)
        let status = try await client.status(user: "u 42/x", app: "com.example.maps", service: "location")
        #expect(status == .authorized(level: "always"))
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.target == "/v1/users/u%2042%2Fx/apps/com.example.maps/authorizations/location")
        #expect(request.headers["authorization"] == "Bearer k-secret")
        #expect(request.headers["user-agent"] == "client-tests/1")
        #expect(request.headers["accept"] == "application/json")
        let id = try #require(request.headers["x-request-id"])
        #expect(id.hasPrefix("pc-") && id.count == 19)
    }

    @Test func consecutiveCallsReuseOneConnection() async throws {
        let server = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { server.stop() }
        let client = try Self.client(server)
        for _ in 0..<5 {
            #expect(try await client.status(user: "u1", app: "com.example.maps", service: "location") == .denied)
        }
        #expect(server.requests.map(\.connection) == [1, 1, 1, 1, 1])
    }

    /// A call that may not be resent (a DELETE here) goes on a fresh connection; the one the
    /// handle kept before is closed then, not kept beside it, so that a handle never holds more
    /// than one connection (libcurl's default cache keeps five, and a backend's handles then
    /// passed the server's per-address limit).
    @Test func aHandleKeepsOneConnectionWhateverTheMethods() async throws {
        let server = try ScriptedServer { request, _ in
            request.method == "DELETE"
                ? .respond(status: 204, headers: [], body: "") : .authorization(status: "denied")
        }
        defer { server.stop() }
        let client = try Self.client(server)
        for _ in 0..<6 {
            #expect(try await client.status(user: "u1", app: "com.example.maps", service: "location") == .denied)
            try await client.deleteConsentSession(id: "cs_0f1e2d3c4b5a6978")
        }
        // Each DELETE opened a connection and the next GET reused it: six connections in all.
        #expect(Set(server.requests.map(\.connection)).count == 7)
        let closed = await Self.eventually { server.openConnections == 1 }
        #expect(closed, "\(server.openConnections) connections still open")
    }

    /// Polls `condition` every 10 ms for up to 2 s.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func blockingFormExposesRequestIdAndETag() throws {
        let server = try ScriptedServer { _, _ in
            .respond(
                status: 200, headers: [("Content-Type", "application/json"), ("ETag", "\"3-abc\""), ("X-Request-Id", "echo-7")],
                body:
                    #"{"app":"com.example.maps","expiresAt":null,"once":false,"provisional":false,"purpose":null,"reason":"default","service":"location","status":"notDetermined","updatedAt":"2026-11-22T10:00:00.000Z","user":"u42","version":0}"#
            )
        }
        defer { server.stop() }
        let client = try Self.client(server)
        let response = try client.sendBlocking(
            Endpoints.authorization(user: "u42", app: "com.example.maps", service: "location"),
            requestId: "mine-1")
        #expect(response.value.status == .notDetermined)
        #expect(response.etag == "\"3-abc\"")
        #expect(response.requestId == "echo-7")
        #expect(server.requests.first?.headers["x-request-id"] == "mine-1")
    }

    @Test func writesSendJSONBodiesAndIfMatch() async throws {
        let server = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { server.stop() }
        let client = try Self.client(server)
        _ = try await client.setAuthorization(
            user: "u42", app: "com.example.maps", service: "location",
            SettingsChange(status: .denied), ifMatch: "\"3-abc\"")
        _ = try await client.revoke(user: "u42", app: "com.example.maps", service: "location")
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests[0].method == "PUT" && requests[0].body == #"{"status":"denied"}"#)
        #expect(requests[0].headers["content-type"] == "application/json")
        #expect(requests[0].headers["if-match"] == "\"3-abc\"")
        #expect(requests[1].method == "POST" && requests[1].target.hasSuffix("/location/revoke"))
        #expect(requests[1].body.isEmpty && requests[1].headers["content-type"] == nil)
    }

    @Test(arguments: [(404, "not-found"), (422, "missing-purpose-string"), (401, "unauthorized"), (403, "forbidden")])
    func errorStatusesCarryTheDecodedProblem(status: Int, slug: String) async throws {
        let server = try ScriptedServer { _, _ in .problem(status, slug: slug, detail: "why", requestId: "req-9") }
        defer { server.stop() }
        let client = try Self.client(server)
        do {
            _ = try await client.requestAccess(user: "u42", app: "com.example.maps", service: "location", level: "always")
            Issue.record("expected a failure")
        } catch {
            guard case .http(let got, let problem?, let requestId) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(got == status && requestId == "req-9")
            #expect(problem.problemType == ProblemType(rawValue: slug) && problem.detail == "why")
            #expect(error.isAccessDenied == (status == 401 || status == 403))
        }
        #expect(server.requests.count == 1)
    }

    @Test func nonProblemErrorBodyStillGivesTheStatus() async throws {
        let server = try ScriptedServer { _, _ in
            .respond(status: 500, headers: [("Content-Type", "text/html")], body: "<h1>oops")
        }
        defer { server.stop() }
        let client = try Self.client(server)
        do {
            _ = try await client.services()
            Issue.record("expected a failure")
        } catch {
            #expect(error == .http(status: 500, problem: nil, requestId: server.requests.first?.headers["x-request-id"]))
        }
    }

    @Test func malformedJSONIsADecodingError() async throws {
        let server = try ScriptedServer { _, index in
            index == 0 ? .json(200, #"{"status":"authorized","lev"#) : .json(200, #"{"items":[{"id":1}]}"#)
        }
        defer { server.stop() }
        let client = try Self.client(server)
        for call in 0..<2 {
            do {
                if call == 0 {
                    _ = try await client.status(user: "u42", app: "com.example.maps", service: "location")
                } else {
                    _ = try await client.services()
                }
                Issue.record("expected a decoding failure")
            } catch {
                guard case .decoding(200, _, "srv-1") = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
            }
        }
    }

    @Test func responseCutInTheMiddleIsATransportError() async throws {
        let server = try ScriptedServer { _, _ in .cut(announced: 200, sent: #"{"status":"auth"#) }
        defer { server.stop() }
        let client = try Self.client(server, retry: .none)
        do {
            _ = try await client.authorization(user: "u42", app: "com.example.maps", service: "location")
            Issue.record("expected a failure")
        } catch {
            guard case .transport(18, _, _) = error else {
                Issue.record("expected CURLE_PARTIAL_FILE, got \(error)")
                return
            }
        }
    }
}
