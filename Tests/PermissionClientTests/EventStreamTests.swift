import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// The change feed over SSE from a scripted server.
@Suite("PermissionClient change feed", .timeLimit(.minutes(1)), .blocksItsThread)
struct EventStreamTests {
    static func entry(_ seq: Int) -> String {
        #"{"action":"authorization.revoked","actor":{"role":"consent"},"at":"2026-11-22T10:00:00.000Z","seq":\#(seq),"user":"u42"}"#
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
    }
}
