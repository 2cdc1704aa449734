import Foundation
import HTTPCore
import Logging
import PermissionAPI
import PermissionWire
import Synchronization
import Testing

/// `GET /v1/events` through a real `HTTPServer` on 127.0.0.1:0 and a raw socket.
@Suite(.serialized) struct EventStreamTests {
    /// A server over a test application; `stop()` ends the streams and the server.
    final class Live {
        let app: TestApp
        let server: HTTPServer

        /// The raw request of `GET target` with the app's admin key.
        func get(_ target: String, _ extra: String = "") -> String {
            EventStreamTests.get(target, extra, key: app.adminKey)
        }

        init(_ adjust: (inout APIConfiguration) -> Void = { _ in }) throws {
            app = try TestApp(adjust)
            var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
            configuration.shutdownGracePeriod = .seconds(2)
            server = HTTPServer(configuration: configuration, responder: app.application.responder, logger: quietLogger)
            try server.start()
        }

        func stop() {
            app.application.stop()
            server.shutdown(deadline: .now() + .seconds(2))
            server.waitUntilStopped()
        }
    }

    /// A blocking reader of one streamed response; reads time out after 3 s.
    final class StreamClient {
        let socket: Socket
        private(set) var received: [UInt8] = []

        init(port: Int, request: String) throws {
            socket = try Socket.connect(host: "127.0.0.1", port: port)
            try socket.setTimeouts(milliseconds: 3000)
            try socket.sendAll(Array(request.utf8))
        }

        var text: String { String(decoding: received, as: UTF8.self) }

        /// Reads until `marker` has arrived; returns the seconds it took.
        @discardableResult
        func read(until marker: String, limit: Duration = .seconds(3)) throws -> Duration {
            let clock = ContinuousClock()
            let started = clock.now
            while !text.contains(marker) {
                guard clock.now - started < limit else { throw TestFailure("no \(marker) in \(text)") }
                var chunk = [UInt8](repeating: 0, count: 16_384)
                let count = try chunk.withUnsafeMutableBytes { raw -> Int? in
                    guard let base = raw.baseAddress else { return 0 }
                    return try socket.read(into: base, count: raw.count)
                }
                guard let count else { throw TestFailure("timed out waiting for \(marker) in \(text)") }
                if count == 0 { throw TestFailure("closed before \(marker): \(text)") }
                received.append(contentsOf: chunk[0..<count])
            }
            return clock.now - started
        }

        func close() throws { try socket.close() }
    }

    /// A GET with the admin key of `key`'s test app.
    static func get(_ target: String, _ extra: String = "", key: String) -> String {
        "GET \(target) HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\nAuthorization: Bearer \(key)\r\n\(extra)\r\n"
    }

    /// A change reaches an open stream while it is open (the broadcaster wakes it; a bound of
    /// liveness, not of speed: the machine may be loaded), and a stream resumes after it.
    @Test func deliversAChangeAndResumes() throws {
        let live = try Live()
        defer { live.stop() }
        try live.app.set("camera", #"{"status":"denied"}"#)  // seq 1, before the stream opens
        let client = try StreamClient(port: live.server.localPort, request: live.get("/v1/events"))
        try client.read(until: ": connected\n\n")
        #expect(client.text.contains("200 OK"))
        #expect(client.text.lowercased().contains("content-type: text/event-stream"))
        #expect(!client.text.contains("id: 1\n"), "a stream without a start begins at the end of the log")
        try live.app.send(.post, TestApp.path("u42", "com.example.maps", "camera") + "/revoke")
        try live.app.set("camera", #"{"status":"notDetermined"}"#)  // seq 2
        let elapsed = try client.read(until: "id: 2\n")
        #expect(elapsed < .seconds(5))
        #expect(client.text.contains("event: authorization.set\ndata: {"))
        let line = try #require(client.text.split(separator: "\n").first { $0.hasPrefix("data: ") })
        let entry = try WireDecoder.decodeResponse(AuditEntry.self, from: Array(line.dropFirst(6).utf8))
        #expect(entry.seq == 2)
        #expect(entry.to?.status == .notDetermined)
        try client.close()

        let resumed = try StreamClient(port: live.server.localPort, request: live.get("/v1/events", "Last-Event-ID: 0\r\n"))
        try resumed.read(until: "id: 2\n")
        #expect(resumed.text.contains("id: 1\nevent: authorization.set\n"))
        try resumed.close()
        let after = try StreamClient(port: live.server.localPort, request: live.get("/v1/events?after=1&service=camera"))
        try after.read(until: "id: 2\n")
        #expect(!after.text.contains("id: 1\n"))
        try after.close()
    }

    /// A burst of writes, each of which wakes every stream, costs each stream one read of the log
    /// per `EventsController.readInterval`, not one a write; an idle stream's polls read nothing
    /// while the revision shown has not passed what it looked at.
    @Test func aBurstOfWritesCostsAStreamAReadAnInterval() throws {
        let (app, store) = try TestApp.serving(through: CountingStore.init)
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .seconds(2)
        let server = HTTPServer(configuration: configuration, responder: app.application.responder, logger: quietLogger)
        try server.start()
        defer {
            app.application.stop()
            server.shutdown(deadline: .now() + .seconds(2))
            server.waitUntilStopped()
        }
        let clients = try (0..<4).map { _ in
            try StreamClient(port: server.localPort, request: Self.get("/v1/events?user=nobody", key: app.adminKey))
        }
        for client in clients { try client.read(until: ": connected\n\n") }
        Thread.sleep(forTimeInterval: 0.2)  // past each stream's first wait
        let before = store.reads.withLock { $0 }
        let started = ContinuousClock.now
        for index in 0..<20 {
            try app.set("camera", #"{"status":"\#(index % 2 == 0 ? "denied" : "notDetermined")"}"#)
        }
        Thread.sleep(forTimeInterval: 0.1)  // the last read of the burst
        let reads = store.reads.withLock { $0 } - before
        let elapsed = ContinuousClock.now - started
        // The writes take no reads of their own; each stream reads at most once an interval
        // (and once more at each end), not once for each of the 20 wake-ups.
        let intervals = Int(elapsed / .milliseconds(50))
        #expect(reads <= 4 * (intervals + 2), "\(reads) reads in \(elapsed)")
        // Once the last write is read (the count holds still for a poll and more), an idle
        // stream's polls read nothing: at most each stream's key is looked at again (every 5 s).
        var settled = store.reads.withLock { $0 }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.7)
            let now = store.reads.withLock { $0 }
            if now == settled { break }
            settled = now
        }
        Thread.sleep(forTimeInterval: 1.2)
        #expect(store.reads.withLock { $0 } - settled <= clients.count, "an idle stream's polls read nothing")
        for client in clients { try client.close() }
    }

    @Test func filtersHeartbeatsAndStop() throws {
        let live = try Live { $0.eventsHeartbeat = .milliseconds(200) }
        let client = try StreamClient(port: live.server.localPort, request: live.get("/v1/events?user=u2"))
        try client.read(until: ": connected\n\n")
        try live.app.set("camera", #"{"status":"denied"}"#, user: "u1")
        try live.app.set("camera", #"{"status":"denied"}"#, user: "u2")
        try client.read(until: "id: 2\n")
        #expect(!client.text.contains("id: 1\n"))
        try client.read(until: ": keep-alive\n\n")
        live.app.application.stop()
        try client.read(until: "\r\n0\r\n\r\n", limit: .seconds(2))
        live.stop()
    }

    @Test func streamsBeyondTheCapGet503() throws {
        let app = try TestApp { $0.maxEventStreams = 1 }
        var first: HTTPResponse? = try app.application.responder.respond(
            to: HTTPRequest(
                head: HTTPRequestHead(
                    method: .get, target: "/v1/events", path: "/v1/events", query: nil, version: .http1_1,
                    headers: ["Host": "test", "Authorization": "Bearer \(app.adminKey)"], authority: "test", keepAlive: true,
                    framing: .none, expectContinue: false)),
            context: RequestContext(requestId: "r", logger: quietLogger, remoteAddress: "-"))
        #expect(first?.status.code == 200)
        #expect(app.application.openEventStreams == 1)
        let refused = try app.send(.get, "/v1/events")
        #expect(refused.status == 503)
        #expect(refused.problemType == .unavailable)
        // Retry-After says nothing was done: the client may open it again later.
        #expect(refused.headers["Retry-After"] == "5")
        first = nil
        #expect(app.application.openEventStreams == 0)
        #expect(first == nil)
    }

    @Test func badLastEventIDIs400() throws {
        let app = try TestApp()
        #expect(try app.send(.get, "/v1/events", headers: [("Last-Event-ID", "abc")]).status == 400)
        #expect(try app.send(.get, "/v1/events?after=x").status == 400)
        #expect(app.application.openEventStreams == 0)
    }
}
