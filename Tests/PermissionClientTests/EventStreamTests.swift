import Foundation
import PermissionWire
import TestThreads
import Testing

@testable import PermissionClient

/// The change feed over SSE from a scripted server.
@Suite("PermissionClient change feed", .timeLimit(.minutes(1)), .blocksItsThread)
struct EventStreamTests {
    static func entry(_ seq: Int) -> String {
        #"{"action":"authorization.revoked","actor":{"role":"consent"},"at":"2026-11-22T10:00:00.000Z","seq":\#(seq),"user":"u42"}"#
    }

    /// An entry with its chain hash: 64 hex digits, the seq's in the last ones.
    static func entry(_ seq: Int, hash: String) -> String {
        #"{"action":"authorization.revoked","actor":{"role":"consent"},"at":"2026-11-22T10:00:00.000Z","seq":\#(seq),"user":"u42","hash":"\#(hash)"}"#
    }

    static func hash(_ seq: Int) -> String {
        let digits = String(seq, radix: 16)
        return String(repeating: "a", count: 64 - digits.count) + digits
    }

    /// A problem+json refusal with `Retry-After`.
    static func refusal(_ status: Int, slug: String, retryAfter: String) -> ScriptedServer.Action {
        guard case .respond(_, let headers, let body) = ScriptedServer.Action.problem(status, slug: slug, detail: "later") else {
            return .close
        }
        return .respond(status: status, headers: headers + [("Retry-After", retryAfter)], body: body)
    }

    @Test func followResumesAfterTheLastSeqAndStopsOnRequest() throws {
        let server = try ScriptedServer { request, index in
            let body =
                index == 0
                ? ": keep-alive\n\nid: 1\nevent: audit\ndata: \(Self.entry(1))\n\nid: 2\r\nevent: audit\r\ndata: \(Self.entry(2))\r\n\r\n"
                : "id: 3\nevent: audit\ndata: \(Self.entry(3))\n\n"
            return .respond(status: 200, headers: [("Content-Type", "text/event-stream")], body: body)
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        var seen: [Int64] = []
        try client.followEvents(after: nil, filter: AuditQuery(user: "u42")) { entry in
            seen.append(entry.seq)
            return entry.seq < 3
        }
        #expect(seen == [1, 2, 3])
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests[0].target == "/v1/events?user=u42" && requests[0].headers["accept"] == "text/event-stream")
        // `after: nil` is the beginning of the log: the server alone would start at its end.
        #expect(requests[0].headers["last-event-id"] == "0")
        #expect(requests[1].headers["last-event-id"] == "2")
    }

    @Test func asyncEventsYieldEntries() async throws {
        let server = try ScriptedServer { _, _ in
            .respond(
                status: 200, headers: [("Content-Type", "text/event-stream")],
                body: "id: 7\nevent: audit\ndata: \(Self.entry(7))\n\n")
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        var iterator = client.events(after: 6).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.seq == 7 && first?.action == "authorization.revoked")
    }

    /// A consumer slower than the feed: the thread that reads it waits while the hand-off's
    /// limit of entries waits, so no more than that are held; every entry still comes, in order.
    @Test func aSlowConsumerHoldsBackTheFeed() async throws {
        let count = 400
        let body = (1...count).map { "id: \($0)\nevent: audit\ndata: \(Self.entry($0))\n\n" }.joined()
        let server = try ScriptedServer { _, _ in
            .respond(status: 200, headers: [("Content-Type", "text/event-stream")], body: body)
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        let handoff = FeedHandoff(limit: 8)
        var iterator = client.events(after: 0, afterHash: nil, filter: AuditQuery(), handoff: handoff).makeAsyncIterator()
        #expect(try await iterator.next()?.seq == 1)
        try await Task.sleep(for: .milliseconds(300))  // the whole body arrived long since
        #expect(handoff.mostWaiting <= 8, "\(handoff.mostWaiting) entries waited")
        for seq in 2...count { #expect(try await iterator.next()?.seq == Int64(seq)) }
        #expect(handoff.mostWaiting == 8, "the limit was reached: the test held the feed back")
    }

    @Test func asyncEventsWithoutAfterStartAtTheBeginning() async throws {
        let server = try ScriptedServer { _, _ in
            .respond(
                status: 200, headers: [("Content-Type", "text/event-stream")],
                body: "id: 1\nevent: audit\ndata: \(Self.entry(1))\n\n")
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        var iterator = client.events().makeAsyncIterator()
        #expect(try await iterator.next()?.seq == 1)
        #expect(server.requests.first?.headers["last-event-id"] == "0")
    }

    /// A feed whose event never ends (`data:` lines and no blank line) is refused past 1 MiB,
    /// once, instead of being kept in memory without bound or reconnected to.
    @Test func anEventOverOneMebibyteEndsTheFeed() throws {
        let line = "data: " + String(repeating: "x", count: 65_000) + "\n"
        let server = try ScriptedServer { _, _ in
            .respond(
                status: 200, headers: [("Content-Type", "text/event-stream")],
                body: String(repeating: line, count: 40))
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        var seen = 0
        do {
            try client.followEvents { _ in
                seen += 1
                return true
            }
            Issue.record("expected the feed to fail")
        } catch {
            guard case .decoding(let status, let message, _) = error else {
                Issue.record("expected a decoding error, got \(error)")
                return
            }
            #expect(status == 200 && message.contains("larger than"))
        }
        #expect(seen == 0)
        #expect(server.requests.count == 1)
    }

    @Test func refusedFeedThrowsTheProblem() throws {
        let server = try ScriptedServer { _, _ in .problem(403, slug: "forbidden", detail: "no") }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        #expect(throws: PermissionClientError.self) {
            try client.followEvents { _ in true }
        }
        #expect(server.requests.count == 1, "a 4xx other than 429 is final")
    }

    /// A replica that is restarting answers 503 with `Retry-After`: the feed waits that long
    /// (not the policy's 10 ms) and resumes, instead of ending.
    @Test func aFeedWaitsOutA503AndResumes() throws {
        let server = try ScriptedServer { _, index in
            switch index {
            case 0:
                return .respond(
                    status: 200, headers: [("Content-Type", "text/event-stream")],
                    body: "id: 1\nevent: audit\ndata: \(Self.entry(1))\n\n")
            case 1:
                return Self.refusal(503, slug: "unavailable", retryAfter: "1")
            default:
                return .respond(
                    status: 200, headers: [("Content-Type", "text/event-stream")],
                    body: "id: 2\nevent: audit\ndata: \(Self.entry(2))\n\n")
            }
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        var seen: [Int64] = []
        try client.followEvents(after: nil) { entry in
            seen.append(entry.seq)
            return entry.seq < 2
        }
        #expect(seen == [1, 2])
        let requests = server.requests
        #expect(requests.count == 3)
        #expect(requests.map { $0.headers["last-event-id"] } == ["0", "1", "1"])
        #expect(requests[2].at - requests[1].at >= .milliseconds(950), "Retry-After: 1 waited out")
    }

    /// A resumed feed sends, with `Last-Event-ID`, the hash of that entry as it read it
    /// (`Last-Event-Hash`), so that the server can tell a log restored from an earlier backup
    /// that grew past the position again; a position given without a hash sends none until an
    /// entry was read, one given with its hash sends it from the first connection.
    @Test func aResumedFeedSendsTheHashOfTheLastEntryRead() throws {
        let server = try ScriptedServer { _, index in
            let body =
                switch index {
                case 0: "id: 5\nevent: audit\ndata: \(Self.entry(5, hash: Self.hash(5)))\n\n"
                case 1: ": connected\n\n"
                default: "id: 6\nevent: audit\ndata: \(Self.entry(6, hash: Self.hash(6)))\n\n"
                }
            return .respond(status: 200, headers: [("Content-Type", "text/event-stream")], body: body)
        }
        defer { server.stop() }
        let client = try TransportTests.client(server, eventsRetry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)))
        var seen: [Int64] = []
        try client.followEvents(after: 4) { entry in
            seen.append(entry.seq)
            return entry.seq < 6
        }
        #expect(seen == [5, 6])
        let requests = server.requests
        #expect(requests.map { $0.headers["last-event-id"] } == ["4", "5", "5"])
        #expect(requests.map { $0.headers["last-event-hash"] } == [nil, Self.hash(5), Self.hash(5)])

        let kept = try ScriptedServer { _, _ in
            .respond(
                status: 200, headers: [("Content-Type", "text/event-stream")],
                body: "id: 8\nevent: audit\ndata: \(Self.entry(8, hash: Self.hash(8)))\n\n")
        }
        defer { kept.stop() }
        try TransportTests.client(kept).followEvents(after: 7, afterHash: Self.hash(7)) { _ in false }
        #expect(kept.requests.first?.headers["last-event-hash"] == Self.hash(7))
        #expect(
            throws: PermissionClientError.invalidArgument("afterHash goes with the position of an entry read (after 1 or more)")
        ) {
            try TransportTests.client(kept).followEvents(afterHash: Self.hash(7)) { _ in false }
        }
        #expect(kept.requests.count == 1, "nothing sent for an afterHash without a position")
    }

    /// The per-key stream cap answers 429 with `Retry-After`, here an HTTP-date 2 s ahead
    /// (whole seconds: a wait of over 1 s): the feed waits and resumes too.
    @Test func aFeedWaitsOutA429WithAnHTTPDate() throws {
        let server = try ScriptedServer { _, index in
            guard index == 0 else {
                return .respond(
                    status: 200, headers: [("Content-Type", "text/event-stream")],
                    body: "id: 5\nevent: audit\ndata: \(Self.entry(5))\n\n")
            }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let date = formatter.string(from: Date().addingTimeInterval(2))
            return Self.refusal(429, slug: "too-many-requests", retryAfter: date)
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        var seen: [Int64] = []
        try client.followEvents(after: 4) { entry in
            seen.append(entry.seq)
            return false
        }
        #expect(seen == [5])
        let requests = server.requests
        #expect(requests.count == 2 && requests.allSatisfy { $0.headers["last-event-id"] == "4" })
        #expect(requests[1].at - requests[0].at >= .milliseconds(950), "the date waited out")
    }

    /// On a quiet log a proxy may close the stream after every heartbeat or two: each such
    /// connection worked, so five of them in a row do not end a feed allowed three failures.
    /// A connection that closes after its opening comment alone still counts as one.
    @Test func dropsAfterAHeartbeatDoNotEndAQuietFeed() throws {
        let server = try ScriptedServer { _, index in
            let body =
                index < 5
                ? ": connected\n\n: keep-alive\n\n" : ": connected\n\nid: 8\nevent: audit\ndata: \(Self.entry(8))\n\n"
            return .respond(status: 200, headers: [("Content-Type", "text/event-stream")], body: body)
        }
        defer { server.stop() }
        let client = try TransportTests.client(server, eventsRetry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)))
        var seen: [Int64] = []
        try client.followEvents { entry in
            seen.append(entry.seq)
            return false
        }
        #expect(seen == [8])
        #expect(server.requests.count == 6)

        let flapping = try ScriptedServer { _, _ in
            .respond(status: 200, headers: [("Content-Type", "text/event-stream")], body: ": connected\n\n")
        }
        defer { flapping.stop() }
        let again = try TransportTests.client(flapping, eventsRetry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)))
        #expect(throws: PermissionClientError.self) { try again.followEvents { _ in true } }
        #expect(flapping.requests.count == 3)
    }

    /// A 200 that is not an event stream (a proxy's page, a wrong base URL) ends the feed with
    /// `.decoding` at once instead of being read as an empty stream and asked for again.
    @Test func aPageThatIsNotAnEventStreamEndsTheFeed() throws {
        let server = try ScriptedServer { _, _ in
            .respond(status: 200, headers: [("Content-Type", "text/html")], body: "<html>Sign in</html>")
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        do {
            try client.followEvents { _ in true }
            Issue.record("expected the feed to end")
        } catch {
            guard case .decoding(let status, let message, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(status == 200 && message.contains("text/html"), "\(message)")
        }
        #expect(server.requests.count == 1)
    }

    /// Each 503 counts toward `eventsRetry.maxAttempts`: after that many the feed ends with it.
    @Test func repeated503sEndTheFeedAfterMaxAttempts() throws {
        let server = try ScriptedServer { _, _ in Self.refusal(503, slug: "unavailable", retryAfter: "0") }
        defer { server.stop() }
        let client = try TransportTests.client(server, eventsRetry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)))
        do {
            try client.followEvents { _ in true }
            Issue.record("expected the feed to end")
        } catch {
            #expect(error.status == 503 && error.problemType == .unavailable, "\(error)")
        }
        #expect(server.requests.count == 3)
    }

    /// A connection that goes silent, after its head or before it, is dropped once
    /// `eventsIdleTimeout` passes without a byte and resumed after the last seq seen, instead
    /// of hanging for ever.
    @Test func aSilentFeedIsDroppedAndResumed() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
        let server = try ScriptedServer { _, index in
            switch index {
            case 0: .rawThenSilence(head + ": connected\n\nid: 3\nevent: audit\ndata: \(Self.entry(3))\n\n")
            case 1: .stall
            default:
                .respond(
                    status: 200, headers: [("Content-Type", "text/event-stream")],
                    body: "id: 4\nevent: audit\ndata: \(Self.entry(4))\n\n")
            }
        }
        defer { server.stop() }
        let client = try Self.clientWithAShortIdleTimeout(server)
        let events = client.events(after: 2)
        let seen = try await withThrowingTaskGroup(of: [Int64].self) { group in
            group.addTask {
                var seen: [Int64] = []
                for try await entry in events {
                    seen.append(entry.seq)
                    if entry.seq == 4 { break }
                }
                return seen
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                return []  // still waiting: the silent connection was never dropped
            }
            let first = try await group.next() ?? []
            group.cancelAll()
            return first
        }
        #expect(seen == [3, 4])
        let requests = server.requests
        // After the third connection ends, the feed may ask again (after seq 4) before it sees
        // that the consumer stopped: only the first three are the test's.
        #expect(requests.prefix(3).map { $0.headers["last-event-id"] } == ["2", "3", "3"])
        #expect(requests.dropFirst(3).allSatisfy { $0.headers["last-event-id"] == "4" })
        if requests.count >= 3 {
            #expect(requests[1].at - requests[0].at >= .milliseconds(950), "dropped after 1 s without a byte")
            #expect(requests[2].at - requests[1].at >= .milliseconds(950), "no head for 1 s is silence too")
        }
    }

    /// A consumer that takes longer with an event than the idle timeout does not make the
    /// server look silent: the limit counts from when it returns, not from the event's bytes.
    @Test func aSlowConsumerIsNoSilence() throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
        let server = try ScriptedServer { _, index in
            index == 0
                ? .rawThenSilence(head + ": connected\n\nid: 3\nevent: audit\ndata: \(Self.entry(3))\n\n")
                : .respond(
                    status: 200, headers: [("Content-Type", "text/event-stream")],
                    body: "id: 4\nevent: audit\ndata: \(Self.entry(4))\n\n")
        }
        defer { server.stop() }
        let client = try Self.clientWithAShortIdleTimeout(server)
        var returned: ContinuousClock.Instant?
        try client.followEvents(after: 2) { entry in
            guard entry.seq == 3 else { return false }
            Thread.sleep(forTimeInterval: 2)  // twice the idle timeout, with nothing more sent
            returned = ContinuousClock.now
            return true
        }
        let requests = server.requests
        try #require(requests.count == 2, "\(requests.count) requests")
        let back = try #require(returned)
        // The silent connection is dropped a whole idle timeout after the consumer returned.
        #expect(requests[1].at - back >= .milliseconds(950), "\(requests[1].at - back) after the consumer returned")
    }

    /// A client of `server` whose feed drops a connection after 1 s without a byte.
    static func clientWithAShortIdleTimeout(_ server: ScriptedServer) throws -> PermissionClient {
        try PermissionClient(
            configuration: .init(
                baseURL: server.url, apiKey: "k", eventsRetry: RetryPolicy(baseDelay: .milliseconds(10)),
                eventsIdleTimeout: .seconds(1)))
    }

    /// The documented default is three of the server's 15 s heartbeats.
    @Test func theIdleTimeoutDefaultsToThreeHeartbeats() throws {
        #expect(PermissionClient.Configuration(baseURL: "http://127.0.0.1:1").eventsIdleTimeout == .seconds(45))
    }
}

/// The parser alone, fed byte by byte and in one piece, as the HTML Living Standard §9.2.6
/// reads a stream.
@Suite struct EventStreamParserTests {
    static func parse(_ bytes: [UInt8], byteAtATime: Bool) -> [EventStreamParser.Event] {
        var parser = EventStreamParser()
        guard byteAtATime else { return bytes.withUnsafeBytes { parser.feed($0) } }
        return bytes.flatMap { byte in [byte].withUnsafeBytes { parser.feed($0) } }
    }

    @Test(arguments: [false, true])
    func aByteOrderMarkOpeningTheStreamIsDropped(byteAtATime: Bool) {
        let stream = Array("id: 1\nevent: audit\ndata: {}\n\n".utf8)
        let plain = Self.parse(stream, byteAtATime: byteAtATime)
        #expect(plain == [.init(id: "1", type: "audit", data: "{}")])
        #expect(Self.parse([0xEF, 0xBB, 0xBF] + stream, byteAtATime: byteAtATime) == plain)
        // Only the stream's first: a second is the field name's.
        let twice = Self.parse([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + stream, byteAtATime: byteAtATime)
        #expect(twice == [.init(id: nil, type: "audit", data: "{}")], "\u{FEFF}id is no field")
        // Part of a mark is no mark: its bytes stay the line's.
        let partial = Self.parse([0xEF, 0xBB] + Array("data: x\n\n".utf8), byteAtATime: byteAtATime)
        #expect(partial == [], "the first line's field is not data")
    }

    @Test func anIdWithANullIsIgnored() {
        let events = Self.parse(Array("id: 1\ndata: a\n\nid: 2\u{0}\ndata: b\n\n".utf8), byteAtATime: false)
        #expect(events == [.init(id: "1", type: "message", data: "a"), .init(id: "1", type: "message", data: "b")])
    }
}

/// One feed is iterated by one task: a second task calling `next()` while the first waits in
/// it would race on the iterator, and stops the process instead.
@Test func aFeedIteratedByTwoTasksAtOnceStopsTheProcess() async {
    let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        let (stream, _) = AsyncThrowingStream<PermissionWire.AuditEntry, any Error>.makeStream()
        let iterator = FeedIterator(stream.makeAsyncIterator())
        let first = Task { _ = try await iterator.next() }  // nothing comes: it waits
        while !iterator.isIterating { await Task.yield() }
        _ = try await iterator.next()
        first.cancel()
    }
    let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    #expect(message.contains("a change feed iterated by two tasks at once"), "\(message)")
}
