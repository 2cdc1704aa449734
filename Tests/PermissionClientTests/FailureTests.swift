import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// Timeouts, a server that is down, retries where they are safe (and not where they are not),
/// cancellation and bad configuration.
@Suite("PermissionClient failures and retries", .timeLimit(.minutes(1)), .blocksItsThread)
struct FailureTests {
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var records: [CallRecord] = []
        func add(_ record: CallRecord) {
            lock.lock()
            records.append(record)
            lock.unlock()
        }
        var all: [CallRecord] {
            lock.lock()
            defer { lock.unlock() }
            return records
        }
    }

    /// A timeout under 1 ms is 1 ms: libcurl reads 0 as no timeout at all.
    @Test func aTimeoutUnderOneMillisecondStillTimesOut() async throws {
        let server = try ScriptedServer { _, _ in .stall }
        defer { server.stop() }
        let client = try TransportTests.client(server, timeout: .microseconds(400), retry: .none)
        do {
            _ = try await client.status(user: "u42", app: "com.example.maps", service: "location")
            Issue.record("expected a timeout")
        } catch {
            #expect(error.isTimeout, "\(error)")
        }
    }

    /// A CR or LF in a header value would end its line and start a field of its own: such an
    /// `If-Match`, key or request id is refused before anything is sent.
    @Test func headerValuesWithLineBreaksAreRefused() async throws {
        let server = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        await #expect(throws: PermissionClientError.self) {
            _ = try await client.revoke(
                user: "u42", app: "com.example.maps", service: "location", ifMatch: "\"v1\"\r\nX-Injected: yes")
        }
        #expect(throws: PermissionClientError.self) {
            _ = try client.sendBlocking(
                Endpoints.status(user: "u42", app: "com.example.maps", service: "location"), requestId: "r1\nX: y")
        }
        #expect(throws: PermissionClientError.self) {
            _ = try TransportTests.client(server, key: "k1\r\nX-Injected-Key: yes")
        }
        #expect(server.requests.isEmpty)
    }

    @Test func stalledServerTimesOutWithoutRetrying() async throws {
        let server = try ScriptedServer { _, _ in .stall }
        defer { server.stop() }
        let calls = Calls()
        let client = try TransportTests.client(server, timeout: .milliseconds(300), onCall: { calls.add($0) })
        do {
            _ = try await client.status(user: "u42", app: "com.example.maps", service: "location")
            Issue.record("expected a timeout")
        } catch {
            #expect(error.isTimeout, "\(error)")
            #expect(error.requestId?.hasPrefix("pc-") == true)
        }
        // The server never answers: only the 300 ms timeout ends the call, after one attempt.
        // The duration is the client's own record of the call (taken on the thread that runs
        // it), not the wall time around `await`, which also counts the wait for a thread of the
        // cooperative pool (two on a 2-CPU machine, often held by the suite's blocking live
        // tests). The bound stays loose: the machine is small and shared.
        #expect(calls.all.map(\.attempts) == [1])
        #expect(calls.all.first.map { $0.duration < .seconds(10) } == true, "\(calls.all.map(\.duration))")
        // The server's thread for the connection may read the request after the client gave up
        // (a thread starts late on a busy machine): wait for it, boundedly.
        let deadline = ContinuousClock.now + .seconds(10)
        while server.requests.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.requests.count == 1)
    }

    @Test func serverDownIsRetriedThenReported() async throws {
        let server = try ScriptedServer { _, _ in .close }
        let url = server.url
        server.stop()
        let calls = Calls()
        let client = try PermissionClient(
            configuration: .init(
                baseURL: url, retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5)), onCall: { calls.add($0) }))
        do {
            _ = try await client.requestAccess(user: "u42", app: "com.example.maps", service: "camera", level: "full")
            Issue.record("expected a connection failure")
        } catch {
            guard case .transport(PermissionClientError.couldNotConnectCode, _, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        // Nothing reached the server, so even a POST is retried.
        #expect(calls.all.map(\.attempts) == [3])
        #expect(calls.all.first?.error != nil)
    }

    @Test func idempotentGetIsRetriedAfter503() async throws {
        let server = try ScriptedServer { _, index in
            index == 0
                ? .problem(503, slug: "unavailable", detail: "busy") : .authorization(status: "authorized", level: "whenInUse")
        }
        defer { server.stop() }
        let calls = Calls()
        let client = try TransportTests.client(server, onCall: { calls.add($0) })
        #expect(
            try await client.status(user: "u42", app: "com.example.maps", service: "location") == .authorized(level: "whenInUse"))
        #expect(server.requests.count == 2)
        #expect(calls.all.first?.attempts == 2)
        // Both attempts carry the same request id.
        #expect(Set(server.requests.compactMap { $0.headers["x-request-id"] }).count == 1)
    }

    /// A 503 with `Retry-After: 1` is retried after a second, not after the policy's 10 ms; one
    /// asking for longer than the policy's `maxDelay` (2 s here) is the caller's answer at once.
    @Test func aRetriedAnswerWaitsItsRetryAfterAndALongerOneIsNotRetried() async throws {
        let server = try ScriptedServer { request, index in
            if request.target.contains("u-long") { return EventStreamTests.refusal(503, slug: "unavailable", retryAfter: "120") }
            return index == 0
                ? EventStreamTests.refusal(503, slug: "unavailable", retryAfter: "1")
                : .authorization(status: "authorized", level: "whenInUse")
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        #expect(
            try await client.status(user: "u42", app: "com.example.maps", service: "location") == .authorized(level: "whenInUse"))
        #expect(server.requests.count == 2)
        if server.requests.count == 2 { #expect(server.requests[1].at - server.requests[0].at >= .milliseconds(950)) }

        let started = ContinuousClock.now
        await #expect {
            _ = try await client.status(user: "u-long", app: "com.example.maps", service: "location")
        } throws: { error in
            (error as? PermissionClientError)?.status == 503
        }
        #expect(server.requests.count == 3, "not retried")
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test func postIsNeverRetriedOnceItMayHaveArrived() async throws {
        let server = try ScriptedServer { request, _ in
            request.target == "/v1/reset" ? .problem(503, slug: "unavailable", detail: "busy") : .close
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        await #expect(throws: PermissionClientError.self) {
            _ = try await client.reset(service: "all")
        }
        await #expect(throws: PermissionClientError.self) {
            _ = try await client.decide(prompt: "p1", choice: "allow")
        }
        #expect(server.requests.map(\.method) == ["POST", "POST"])
        // A GET that meets the same closed connection is retried (3 attempts, and libcurl may
        // resend once more on the kept-alive connection).
        await #expect(throws: PermissionClientError.self) {
            _ = try await client.prompt(id: "p1")
        }
        let methods = server.requests.map(\.method)
        #expect(methods.filter { $0 == "POST" }.count == 2)
        #expect(methods.filter { $0 == "GET" }.count >= 3)
    }

    /// A `DELETE` or a `PUT` with `If-Match` whose connection is lost after it was sent is not
    /// retried: the first may have taken effect, and the repeat would answer `404` (an erasure's
    /// result lost) or `412` (the precondition the first spent) for a change that was made.
    /// The caller gets the lost connection, or the 503 (which may say a commit's outcome is unknown).
    @Test func aDeleteOrAConditionalPutIsNotRepeatedOnceItMayHaveTakenEffect() async throws {
        let server = try ScriptedServer { _, _ in .close }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        await #expect(throws: PermissionClientError.self) { _ = try await client.eraseUser("u42") }
        await #expect(throws: PermissionClientError.self) { try await client.deletePolicy(id: "p1") }
        await #expect(throws: PermissionClientError.self) {
            _ = try await client.setAuthorization(
                user: "u42", app: "com.example.maps", service: "camera", SettingsChange(status: .denied),
                ifMatch: "\"1-abc\"")
        }
        #expect(server.requests.map(\.method) == ["DELETE", "DELETE", "PUT"], "each sent once")
        // Without If-Match the PUT is retried: sent again, it sets the same state.
        await #expect(throws: PermissionClientError.self) {
            _ = try await client.setAuthorization(
                user: "u42", app: "com.example.maps", service: "camera", SettingsChange(status: .denied))
        }
        #expect(server.requests.filter { $0.method == "PUT" }.count >= 4, "the unconditional PUT was retried")
        // Nor after a 503, which may say that a commit's outcome is unknown; a GET is.
        let busy = try ScriptedServer { _, _ in .problem(503, slug: "unavailable", detail: "busy") }
        defer { busy.stop() }
        let busyClient = try TransportTests.client(busy)
        await #expect(throws: PermissionClientError.self) { _ = try await busyClient.eraseUser("u42") }
        #expect(busy.requests.count == 1, "sent once")
        await #expect(throws: PermissionClientError.self) { _ = try await busyClient.keys() }
        #expect(busy.requests.count == 4, "a GET three times")
    }

    /// A `503` or `429` with `Retry-After` is the server's word that nothing was done: any
    /// call, a `POST` too, is sent again after it (a `503` without it may mean a commit's outcome
    /// is unknown: not, as above).
    @Test(arguments: [503, 429]) func aRefusalThatSaysNothingWasDoneIsRetriedForAnyMethod(_ status: Int) async throws {
        let server = try ScriptedServer { _, index in
            index == 0
                ? EventStreamTests.refusal(status, slug: status == 503 ? "unavailable" : "too-many-requests", retryAfter: "1")
                : .json(200, #"{"count":0}"#)
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        let started = ContinuousClock.now
        #expect(try await client.reset(service: "all") == 0)
        #expect(server.requests.map(\.method) == ["POST", "POST"])
        #expect(ContinuousClock.now - started >= .milliseconds(950), "after its Retry-After")
    }

    /// A gateway's problem (RFC 9457 makes every member optional: no request id here) is read
    /// for what it says, not dropped for lacking this API's members; a body that is no
    /// problem at all still leaves the status alone.
    @Test func aGatewaysProblemIsReadForItsTitleAndDetail() async throws {
        let server = try ScriptedServer { request, _ in
            request.target.contains("u-html")
                ? .respond(status: 404, headers: [("Content-Type", "text/html")], body: "<html>no</html>")
                : .respond(
                    status: 404, headers: [("Content-Type", "application/problem+json")],
                    body: #"{"type":"about:blank","title":"Not Found","status":404,"detail":"No route at the gateway"}"#)
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        do {
            _ = try await client.status(user: "u42", app: "com.example.maps", service: "location")
            Issue.record("expected a 404")
        } catch {
            #expect(error.status == 404 && error.description.contains("Not Found: No route at the gateway"), "\(error)")
        }
        do {
            _ = try await client.status(user: "u-html", app: "com.example.maps", service: "location")
            Issue.record("expected a 404")
        } catch {
            guard case .http(404, nil, _) = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func cancellingTheTaskAbortsTheCall() async throws {
        let server = try ScriptedServer { _, _ in .stall }
        defer { server.stop() }
        let calls = Calls()
        let client = try TransportTests.client(server, timeout: .seconds(30), onCall: { calls.add($0) })
        // A child task, not `Task {}`: an unstructured task does not inherit the test's own
        // threads (`.blocksItsThread`) and waits for Swift's shared pool, which tests blocking
        // it elsewhere in the run can hold for a minute.
        let result = try await withThrowingTaskGroup(of: Result<Authorization, any Error>.self) { group in
            group.addTask {
                do {
                    return .success(try await client.authorization(user: "u42", app: "com.example.maps", service: "location"))
                } catch {
                    return .failure(error)
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            group.cancelAll()
            return try await group.next()!
        }
        // The total timeout is 30 s: a call that ended well before it was aborted by the
        // cancellation. Its duration is the client's own record (see the stalled-server test).
        #expect(calls.all.first.map { $0.duration < .seconds(20) } == true, "\(calls.all.map(\.duration))")
        guard case .failure(let error as PermissionClientError) = result else {
            Issue.record("expected a cancellation, got \(result)")
            return
        }
        #expect(error.isCancelled)
    }

    @Test(arguments: ["ftp://example.com", "localhost:8080", "http://"])
    func onlyHTTPAndHTTPSURLsAreAccepted(url: String) {
        #expect(throws: PermissionClientError.self) { _ = try PermissionClient(baseURL: url) }
    }

    @Test func retryDelaysGrowAndStayCapped() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        for attempt in 1...10 {
            let delay = policy.delay(after: attempt)
            let cap = min(Duration.seconds(1), .milliseconds(100) * (1 << (attempt - 1)))
            #expect(delay <= cap && delay >= cap / 2)
        }
    }
}
