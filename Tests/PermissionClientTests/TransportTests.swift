import Foundation
import PermissionClient
import PermissionWire
import Synchronization
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

    /// The connection a handle kept is closed before a call on a fresh connection opens its
    /// own, not when that call ends: a burst of such calls on handles that all kept one would
    /// otherwise hold twice the connections (the server's per-address share is 256).
    @Test func aFreshConnectionReplacesTheKeptOneBeforeItOpens() async throws {
        let seen = Mutex<[Int]>([])
        let serving = Mutex<ScriptedServer?>(nil)
        let server = try ScriptedServer { request, _ in
            guard request.method == "DELETE", let server = serving.withLock({ $0 }) else {
                return .authorization(status: "denied")
            }
            // The kept connection's close may take a moment to be read here.
            let deadline = ContinuousClock.now + .seconds(1)
            while server.openConnections > 1, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            seen.withLock { $0.append(server.openConnections) }
            return .respond(status: 204, headers: [], body: "")
        }
        serving.withLock { $0 = server }
        defer { server.stop() }
        let client = try Self.client(server)
        for _ in 0..<3 {
            #expect(try await client.status(user: "u1", app: "com.example.maps", service: "location") == .denied)
            try await client.deleteConsentSession(id: "cs_0f1e2d3c4b5a6978")
        }
        #expect(seen.withLock { $0 } == [1, 1, 1], "connections open while each DELETE was answered")
    }

    /// A call that may not be resent (a DELETE here) goes on a fresh connection; the one the
    /// handle kept before is closed when it ends, not kept beside it, so that a handle holds one
    /// connection between calls (libcurl's default cache keeps five, and a backend's handles
    /// then passed the server's per-address limit).
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

    /// libcurl leaves out a field with nothing after its colon: an empty `If-Match` would make
    /// a conditional write unconditional. Refused before anything is sent, as permctl's
    /// `--if-match ""` is (64).
    @Test func anEmptyIfMatchIsRefusedBeforeAnythingIsSent() async throws {
        let server = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { server.stop() }
        let client = try Self.client(server)
        for blank in ["", " ", "\t "] {
            do {
                _ = try await client.revoke(user: "u42", app: "com.example.maps", service: "location", ifMatch: blank)
                Issue.record("an empty If-Match was sent")
            } catch {
                guard case .invalidArgument(let why) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(why.contains("If-Match") && why.contains("empty"), "\(why)")
            }
        }
        #expect(server.requests.isEmpty)
        let permctl = try Permctl.run(
            ["revoke", "u42", "com.example.maps", "location", "--if-match", ""], url: server.url, key: "k")
        #expect(permctl.status == 64, "\(permctl.status) \(permctl.stderr)")
        #expect(server.requests.isEmpty)
    }

    /// A status line's reason phrase may hold a colon (a proxy's "200 OK: forwarded"): it is
    /// still the status line, not a header field.
    @Test func aReasonPhraseWithAColonIsStillTheStatusLine() async throws {
        let body = ScriptedServer.Action.authorizationBody(status: "denied")
        let server = try ScriptedServer { _, _ in
            .raw(
                "HTTP/1.1 200 OK: forwarded\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n\(body)")
        }
        defer { server.stop() }
        let client = try Self.client(server)
        let response = try await client.send(Endpoints.status(user: "u42", app: "com.example.maps", service: "camera"))
        #expect(response.status == 200 && response.value == .denied)
    }

    /// A write's `Permission-Revision` is in its response, and a later call made consistent
    /// with it sends `Permission-Consistency: at-least <revision>` (SPEC §9), once.
    @Test func theRevisionOfAWriteIsReadAndAskedForLater() async throws {
        let server = try ScriptedServer { request, _ in
            request.method == "PUT"
                ? .respond(
                    status: 200, headers: [("Content-Type", "application/json"), ("Permission-Revision", "42")],
                    body: ScriptedServer.Action.authorizationBody(status: "denied"))
                : .authorization(status: "denied")
        }
        defer { server.stop() }
        let client = try Self.client(server)
        let written = try await client.send(
            Endpoints.setAuthorization(user: "u42", app: "com.example.maps", service: "camera", SettingsChange(status: .denied)))
        #expect(written.revision == 42)
        let revision = try #require(written.revision)
        let read = try await client.send(
            Endpoints.status(user: "u42", app: "com.example.maps", service: "camera").consistent(atLeast: 1)
                .consistent(atLeast: revision))
        #expect(read.value == .denied && read.revision == nil)
        #expect(server.requests.last?.headers["permission-consistency"] == "at-least 42")
        #expect(server.requests.first?.headers["permission-consistency"] == nil)
    }

    /// A call made by a task already cancelled sends nothing, even with a call thread idle
    /// (it leaves the queue at once; CancellationTests: cancelled after taking a thread).
    @Test func aCallOfACancelledTaskSendsNothing() async throws {
        let server = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { server.stop() }
        let client = try Self.client(server)
        _ = try await client.status(user: "u1", app: "com.example.maps", service: "camera")  // a thread idle
        for _ in 0..<20 {
            // A child task, not `Task {}`: it keeps the suite's own threads (an unstructured task
            // would wait for Swift's shared pool, which other tests may hold).
            let failure = await withTaskGroup(of: PermissionClientError?.self) { group in
                group.addTask {
                    withUnsafeCurrentTask { $0?.cancel() }
                    do throws(PermissionClientError) {
                        _ = try await client.status(user: "u2", app: "com.example.maps", service: "camera")
                        return nil
                    } catch {
                        return error
                    }
                }
                return await group.next() ?? nil
            }
            #expect(failure?.isCancelled == true, "\(String(describing: failure))")
        }
        #expect(server.requests.count == 1, "\(server.requests.map(\.target))")
    }

    /// What a log line or `dump` shows of a configuration: never the key, nor a password in a URL.
    @Test func aConfigurationNeverShowsItsKey() {
        var configuration = PermissionClient.Configuration(
            baseURL: "https://svc:hunter2@permissions.example", apiKey: "pk_0123456789abcdef_secret")
        configuration.proxy = "http://me:proxypass@proxy.example:3128"
        var dumped = ""
        dump(configuration, to: &dumped)
        for shown in ["\(configuration)", String(reflecting: configuration), dumped] {
            #expect(shown.contains("permissions.example") && shown.contains("proxy.example:3128"), "\(shown)")
            for secret in ["pk_0123456789abcdef_secret", "hunter2", "proxypass"] {
                #expect(!shown.contains(secret), "\(shown)")
            }
        }
    }

    /// `proxy` sends every call through it (libcurl's absolute-form request target).
    @Test func aProxySetInTheConfigurationCarriesTheCalls() async throws {
        let proxy = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { proxy.stop() }
        var configuration = PermissionClient.Configuration(
            baseURL: "http://permissions.invalid:8080", apiKey: "k", timeout: .seconds(5))
        configuration.proxy = proxy.url
        let client = try PermissionClient(configuration: configuration)
        #expect(try await client.status(user: "u42", app: "com.example.maps", service: "camera") == .denied)
        #expect(
            proxy.requests.map(\.target) == [
                "http://permissions.invalid:8080/v1/users/u42/apps/com.example.maps/authorizations/camera"
            ])
    }

    /// A buffered answer that announces more than the client holds (16 MiB) fails at once, not
    /// after its body was read, or, from a peer that then goes silent, at the timeout.
    @Test func anAnswerThatAnnouncesTooLargeABodyFailsAtOnce() async throws {
        let server = try ScriptedServer { _, _ in
            .rawThenSilence("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 20000000\r\n\r\n{")
        }
        defer { server.stop() }
        let client = try Self.client(server, timeout: .seconds(5), retry: .none)
        let started = ContinuousClock.now
        do {
            _ = try await client.status(user: "u42", app: "com.example.maps", service: "camera")
            Issue.record("a 20 MB answer was taken")
        } catch {
            guard case .transport(let code, let message, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(code == PermissionClientError.tooLargeCode && message.contains("larger than \(16 << 20) bytes"), "\(message)")
            #expect(error.isPermanent)
        }
        #expect(ContinuousClock.now - started < .seconds(3), "not at the 5 s timeout")
    }
}
