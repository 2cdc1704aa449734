import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// The bulkhead of the async calls (`Configuration.maxCallThreads`, `maxQueuedCalls`) against
/// scripted servers on loopback: a call beyond the cap waits for a thread and is sent only
/// when one frees, a waiting call times out or is cancelled without being sent, a full queue
/// fails fast, an open change feed takes no capped thread, and idle threads end.
///
/// A thread is held either by the server (which keeps the request until the test lets it
/// answer) or by a download whose sink waits at a ``Gate``: the call runs on its thread for as
/// long as the sink does, whatever the client's timeout.
@Suite("PermissionClient call threads", .timeLimit(.minutes(1)), .blocksItsThread)
struct CallThreadsTests {
    static let app = "com.example.maps"

    static func client(
        _ server: ScriptedServer, threads: Int, queued: Int = 64, timeout: Duration = .seconds(5),
        idleLifetime: Duration = .seconds(10), records: Records? = nil
    ) throws -> PermissionClient {
        var onCall: (@Sendable (CallRecord) -> Void)?
        if let records { onCall = { records.append($0) } }
        return try PermissionClient(
            configuration: .init(
                baseURL: server.url, apiKey: "k-secret", connectTimeout: .seconds(1), timeout: timeout, retry: .none,
                userAgent: "call-threads-tests/1", maxCallThreads: threads, maxQueuedCalls: queued, onCall: onCall),
            callThreadIdleLifetime: idleLifetime)
    }

    /// A server that answers an export at once and every other call with `other`.
    static func exportServer(other: ScriptedServer.Action = .authorization(status: "denied")) throws -> ScriptedServer {
        try ScriptedServer { request, _ in
            request.target.hasSuffix("/export") ? DownloadTests.exportAnswer() : other
        }
    }

    /// Starts a download whose sink waits at `gate`, holding one of the client's call threads
    /// until the gate lets it go.
    static func hold(_ client: PermissionClient, at gate: Gate) -> Task<Void, Never> {
        Task(executorPreference: BlockingTestExecutor.shared) {
            _ = try? await client.download(Endpoints.exportDocument(user: "holder")) { _ in
                gate.wait()
                return true
            }
        }
    }

    /// A client of one call thread over ``exportServer(other:)``, that thread held (and seen
    /// held) by a download waiting at `gate`; `stop()` lets it go and stops the server.
    struct HeldThread {
        let gate: Gate
        let server: ScriptedServer
        let client: PermissionClient
        let holder: Task<Void, Never>

        func stop() {
            gate.open()
            server.stop()
        }
    }

    static func holdTheOnlyThread(
        other: ScriptedServer.Action = .authorization(status: "denied"), queued: Int = 64, timeout: Duration,
        records: Records? = nil
    ) async throws -> HeldThread {
        let gate = Gate()
        let server = try exportServer(other: other)
        let client: PermissionClient
        do {
            client = try Self.client(server, threads: 1, queued: queued, timeout: timeout, records: records)
        } catch {
            server.stop()
            throw error
        }
        let holder = hold(client, at: gate)
        #expect(await eventually { gate.held == 1 })
        return HeldThread(gate: gate, server: server, client: client, holder: holder)
    }

    /// A task that runs on threads of its own, as the test does (`.blocksItsThread`): an
    /// unstructured task would otherwise run on Swift concurrency's shared pool, which other
    /// tests of the run may hold for seconds.
    static func task<Value: Sendable>(
        _ body: @escaping @Sendable () async throws -> Value
    ) -> Task<Value, any Error> {
        Task(executorPreference: BlockingTestExecutor.shared) { try await body() }
    }

    /// Polls `condition` every 10 ms until it holds or `limit` passes.
    static func eventually(within limit: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    static func statusPath(_ user: String) -> String { "/v1/users/\(user)/apps/\(app)/authorizations/location" }

    @Test func aCallBeyondTheCapWaitsAndIsSentWhenAThreadFrees() async throws {
        let gate = Gate()
        let server = try ScriptedServer { _, _ in
            gate.wait()
            return .authorization(status: "denied")
        }
        defer {
            gate.open()
            server.stop()
        }
        let records = Records()
        let client = try Self.client(server, threads: 2, records: records)
        let started = ContinuousClock.now
        let calls = (0..<3).map { n in
            Self.task { try await client.status(user: "u\(n)", app: Self.app, service: "location") }
        }
        #expect(await Self.eventually { server.requests.count == 2 && client.callThreads.load.waiting == 1 })
        let twoSent = ContinuousClock.now - started
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.requests.count == 2, "a third call went out while both threads were busy")
        #expect(client.callThreads.load.threads == 2)

        gate.release(1)
        #expect(await Self.eventually { server.requests.count == 3 })
        #expect(client.callThreads.load.waiting == 0)
        gate.open()
        for call in calls { #expect(try await call.value == .denied) }
        #expect(client.callThreads.load.peakThreads == 2)
        // The call that waited says so in its record: it waited through the 300 ms and the
        // release. The two others waited for no release: only for a thread to start (at once,
        // unless the machine is busy), so at most until both were at the server.
        let waits = records.all.map(\.queueWait).sorted()
        #expect(waits.count == 3 && waits[1] <= twoSent && waits[2] >= .milliseconds(300), "\(waits), two sent after \(twoSent)")
        #expect(records.all.allSatisfy { $0.attempts == 1 && $0.duration >= $0.queueWait })
    }

    @Test func aCallWaitingPastItsTimeoutFailsWithNothingSent() async throws {
        let records = Records()
        let held = try await Self.holdTheOnlyThread(timeout: .milliseconds(500), records: records)
        defer { held.stop() }
        let (gate, server, client, holder) = (held.gate, held.server, held.client, held.holder)

        let started = ContinuousClock.now
        let error = await #expect(throws: PermissionClientError.self) {
            try await client.status(user: "u1", app: Self.app, service: "location")
        }
        let elapsed = ContinuousClock.now - started
        #expect(error?.isTimeout == true && error?.requestId?.hasPrefix("pc-") == true, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(500) && elapsed < .seconds(3), "\(elapsed)")
        #expect(client.callThreads.load.waiting == 0)
        let record = try #require(records.all.first { $0.path == Self.statusPath("u1") })
        #expect(record.attempts == 0 && record.status == nil && record.error?.isTimeout == true)
        #expect(record.queueWait >= .milliseconds(500))

        gate.open()
        await holder.value
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.requests.map(\.target) == ["/v1/users/holder/export"], "the timed-out call was sent")
    }

    @Test func theWaitForAThreadCountsTowardTheTimeout() async throws {
        let held = try await Self.holdTheOnlyThread(other: .stall, timeout: .seconds(2))
        defer { held.stop() }
        let (gate, server, client, holder) = (held.gate, held.server, held.client, held.holder)

        let started = ContinuousClock.now
        let call = Self.task { try await client.status(user: "u1", app: Self.app, service: "location") }
        #expect(await Self.eventually { client.callThreads.load.waiting == 1 })
        try await Task.sleep(for: .seconds(1))
        gate.open()
        await holder.value
        let result = await call.result
        let elapsed = ContinuousClock.now - started
        // Sent once the thread freed, after a 1 s wait, with what is left of the 2 s: it fails
        // about 2 s after it was made, not 2 s after it was sent (3 s or more).
        #expect(server.requests.map(\.target) == ["/v1/users/holder/export", Self.statusPath("u1")])
        #expect((result.failure as? PermissionClientError)?.isTimeout == true, "\(result)")
        #expect(elapsed >= .milliseconds(1950) && elapsed < .milliseconds(2800), "\(elapsed)")
    }

    @Test func aCancelledWaitingCallLeavesTheQueueAtOnce() async throws {
        let held = try await Self.holdTheOnlyThread(timeout: .seconds(20))
        defer { held.stop() }
        let (gate, server, client, holder) = (held.gate, held.server, held.client, held.holder)

        let waiting = Self.task { try await client.status(user: "u1", app: Self.app, service: "location") }
        #expect(await Self.eventually { client.callThreads.load.waiting == 1 })
        let cancelledAt = ContinuousClock.now
        waiting.cancel()
        let result = await waiting.result
        let elapsed = ContinuousClock.now - cancelledAt
        #expect((result.failure as? PermissionClientError)?.isCancelled == true, "\(result)")
        #expect(elapsed < .seconds(1), "\(elapsed)")
        #expect(client.callThreads.load.waiting == 0)

        gate.open()
        await holder.value
        // The freed thread runs the next call; the withdrawn one is never sent.
        #expect(try await client.status(user: "u2", app: Self.app, service: "location") == .denied)
        #expect(server.requests.map(\.target) == ["/v1/users/holder/export", Self.statusPath("u2")])
    }

    /// A call that cannot be built (a request id that would end its header line) fails with
    /// `.invalidArgument` at once, every thread busy or not: it never takes a place in the queue
    /// to wait its turn, or its timeout, for an error it had from the start.
    @Test func aCallThatCannotBeBuiltFailsAtOnceWithoutWaitingItsTurn() async throws {
        let held = try await Self.holdTheOnlyThread(timeout: .seconds(20))
        defer { held.stop() }
        let (gate, server, client, holder) = (held.gate, held.server, held.client, held.holder)

        let started = ContinuousClock.now
        let status = Endpoints.status(user: "u1", app: Self.app, service: "location")
        let calls: [Task<Void, any Error>] = [
            Self.task { _ = try await client.send(status, requestId: "id\r\nX-Injected: 1") },
            Self.task { _ = try await client.download(Endpoints.exportDocument(user: "u1"), requestId: "id\n") { _ in true } },
            Self.task {
                _ = try await client.download(Endpoints.exportDocument(user: "u1"), requestId: "\r", toFileDescriptor: 1)
            },
        ]
        for call in calls {
            let failure = await call.result.failure as? PermissionClientError
            guard case .invalidArgument(let message)? = failure else {
                Issue.record("expected invalidArgument, got \(String(describing: failure))")
                continue
            }
            #expect(message.contains("request id"), "\(message)")
        }
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(client.callThreads.load.waiting == 0)
        gate.open()
        await holder.value
        #expect(server.requests.map(\.target) == ["/v1/users/holder/export"])
    }

    @Test func aCallBeyondTheQueueFailsAtOnceAndTheQueueIsFirstInFirstOut() async throws {
        let records = Records()
        let held = try await Self.holdTheOnlyThread(queued: 2, timeout: .seconds(20), records: records)
        defer { held.stop() }
        let (gate, server, client, holder) = (held.gate, held.server, held.client, held.holder)
        let first = Self.task { try await client.status(user: "q1", app: Self.app, service: "location") }
        #expect(await Self.eventually { client.callThreads.load.waiting == 1 })
        let second = Self.task { try await client.status(user: "q2", app: Self.app, service: "location") }
        #expect(await Self.eventually { client.callThreads.load.waiting == 2 })

        let started = ContinuousClock.now
        let error = await #expect(throws: PermissionClientError.self) {
            try await client.status(user: "q3", app: Self.app, service: "location")
        }
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(error == .callQueueFull(threads: 1, queued: 2))
        #expect(error?.status == nil && error?.isTimeout == false && error?.isCancelled == false)
        let record = try #require(records.all.first { $0.path == Self.statusPath("q3") })
        #expect(record.attempts == 0 && record.error == .callQueueFull(threads: 1, queued: 2))

        gate.open()
        await holder.value
        #expect(try await first.value == .denied)
        #expect(try await second.value == .denied)
        #expect(
            server.requests.map(\.target) == ["/v1/users/holder/export", Self.statusPath("q1"), Self.statusPath("q2")])
    }

    @Test func anOpenFeedTakesNoCallThread() async throws {
        let server = try ScriptedServer { request, _ in
            guard request.target.hasPrefix("/v1/events") else { return .authorization(status: "denied") }
            return .rawThenSilence(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: connected\n\n"
                    + "id: 1\nevent: audit\ndata: \(EventStreamTests.entry(1))\n\n")
        }
        defer { server.stop() }
        let client = try Self.client(server, threads: 1, timeout: .seconds(2))
        var feed = client.events().makeAsyncIterator()
        #expect(try await feed.next()?.seq == 1)

        // The feed stays open and silent while an ordinary call runs on the only call thread.
        #expect(try await client.status(user: "u1", app: Self.app, service: "location") == .denied)
        #expect(try await client.status(user: "u2", app: Self.app, service: "location") == .denied)
        #expect(client.callThreads.load.peakThreads == 1)
        #expect(server.requests.filter { $0.target.hasPrefix("/v1/events") }.count == 1)
    }

    @Test func threadsNeverOutnumberTheCap() async throws {
        let inFlight = InFlight()
        let server = try ScriptedServer { _, _ in
            inFlight.enter()
            Thread.sleep(forTimeInterval: 0.03)
            inFlight.leave()
            return .authorization(status: "denied")
        }
        defer { server.stop() }
        let client = try Self.client(server, threads: 4)
        let answers = try await withThrowingTaskGroup(of: AccessStatus.self) { group in
            for n in 0..<40 {
                group.addTask { try await client.status(user: "u\(n)", app: Self.app, service: "location") }
            }
            return try await group.reduce(into: [AccessStatus]()) { $0.append($1) }
        }
        #expect(answers.count == 40 && answers.allSatisfy { $0 == .denied })
        #expect(server.requests.count == 40)
        #expect(client.callThreads.load.peakThreads == 4)
        #expect(inFlight.peak <= 4 && inFlight.peak >= 2, "\(inFlight.peak) requests at once")
    }

    @Test func idleThreadsEnd() async throws {
        let server = try ScriptedServer { _, _ in
            Thread.sleep(forTimeInterval: 0.05)
            return .authorization(status: "denied")
        }
        defer { server.stop() }
        let client = try Self.client(server, threads: 4, idleLifetime: .milliseconds(200))
        try await withThrowingTaskGroup(of: AccessStatus.self) { group in
            for n in 0..<4 {
                group.addTask { try await client.status(user: "u\(n)", app: Self.app, service: "location") }
            }
            try await group.waitForAll()
        }
        #expect(client.callThreads.load.peakThreads >= 2)
        #expect(await Self.eventually(within: .seconds(5)) { client.callThreads.load.threads == 0 })
        // A call after they ended starts a thread again.
        #expect(try await client.status(user: "u9", app: Self.app, service: "location") == .denied)
    }

    @Test func theCapAndTheQueueLengthAreValidated() throws {
        let defaults = PermissionClient.Configuration(baseURL: "http://127.0.0.1:9")
        #expect(defaults.maxCallThreads == 128 && defaults.maxQueuedCalls == 1024)
        for (threads, queued, named) in [
            (0, 8, "maxCallThreads"), (-1, 8, "maxCallThreads"), (1025, 8, "maxCallThreads"),
            (8, -1, "maxQueuedCalls"), (8, 65_537, "maxQueuedCalls"),
        ] {
            let error = #expect(throws: PermissionClientError.self) {
                try PermissionClient(
                    configuration: .init(baseURL: "http://127.0.0.1:9", maxCallThreads: threads, maxQueuedCalls: queued))
            }
            guard case .invalidArgument(let message)? = error else {
                Issue.record("\(threads) threads, \(queued) queued: \(String(describing: error))")
                continue
            }
            #expect(message.contains(named), "\(message)")
        }
        for (threads, queued) in [(1, 0), (1024, 65_536)] {
            let client = try PermissionClient(
                configuration: .init(baseURL: "http://127.0.0.1:9", maxCallThreads: threads, maxQueuedCalls: queued))
            #expect(client.configuration.maxCallThreads == threads)
        }
    }
}

/// The `CallRecord`s a client reported.
final class Records: @unchecked Sendable {
    // @unchecked: `records` is guarded by `lock`.
    private let lock = NSLock()
    private var records: [CallRecord] = []

    func append(_ record: CallRecord) { lock.withLock { records.append(record) } }

    var all: [CallRecord] { lock.withLock { records } }
}

/// Requests a server is handling at once, and the most so far.
final class InFlight: @unchecked Sendable {
    // @unchecked: `now` and `most` are guarded by `lock`.
    private let lock = NSLock()
    private var now = 0
    private var most = 0

    func enter() {
        lock.withLock {
            now += 1
            most = max(most, now)
        }
    }

    func leave() { lock.withLock { now -= 1 } }

    var peak: Int { lock.withLock { most } }
}

extension Result {
    /// The error of a failure, `nil` for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
