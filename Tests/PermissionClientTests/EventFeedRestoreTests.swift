import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// The change feed resumed after an entry the log no longer has (the server's database was
/// restored from an earlier backup), or an audit page asked for after one: the SDK fails with
/// `.beyondLogHead`, naming the position and the log's head, which a consumer can tell from any
/// other failure, against the real server.
@Suite("PermissionClient reads beyond the log's head", .serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct EventFeedRestoreTests {
    @Test func resumingBeyondTheHeadIsADistinctError() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try LiveServerTests.client(server)
        _ = try await client.revoke(user: "u42", app: LiveServerTests.app, service: "camera")
        let head = try #require(try await client.audit(AuditQuery(limit: 100)).items.last?.seq)

        var failure: PermissionClientError?
        do {
            try client.followEvents(after: head + 5) { _ in true }
        } catch {
            failure = error
        }
        guard case .beyondLogHead(let position, let reported, let requestId)? = failure else {
            Issue.record("expected beyondLogHead, got \(String(describing: failure))")
            return
        }
        #expect(position == head + 5 && reported == head && requestId != nil)
        #expect(failure?.status == 409 && failure?.problemType == .beyondLogHead)

        var feed = client.events(after: head + 1).makeAsyncIterator()
        await #expect(throws: PermissionClientError.beyondLogHead(position: head + 1, head: head, requestId: nil)) {
            do {
                _ = try await feed.next()
            } catch let error as PermissionClientError {
                // The request id differs per call; the case and its positions are the point.
                if case .beyondLogHead(let position, let head, _) = error {
                    throw PermissionClientError.beyondLogHead(position: position, head: head, requestId: nil)
                }
                throw error
            }
        }
        // At the head itself the feed is open (and waits for the next entry).
        var open = client.events(after: head).makeAsyncIterator()
        _ = try await client.revoke(user: "u43", app: LiveServerTests.app, service: "camera")
        #expect(try await open.next()?.seq == head + 1)
    }

    @Test func anAuditPageAfterTheHeadIsTheSameError() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try LiveServerTests.client(server)
        _ = try await client.revoke(user: "u42", app: LiveServerTests.app, service: "camera")
        let head = try #require(try await client.audit(AuditQuery(limit: 100)).items.last?.seq)

        let error = await #expect(throws: PermissionClientError.self) {
            try await client.audit(AuditQuery(after: head + 3))
        }
        guard case .beyondLogHead(let position, let reported, let requestId)? = error else {
            Issue.record("expected beyondLogHead, got \(String(describing: error))")
            return
        }
        #expect(position == head + 3 && reported == head && requestId?.isEmpty == false)
        #expect(error?.status == 409 && error?.problemType == .beyondLogHead)

        // The endpoint itself, in the blocking form, with the other filters.
        let blocking = #expect(throws: PermissionClientError.self) {
            try client.sendBlocking(Endpoints.audit(AuditQuery(user: "u42", after: head + 1, limit: 10)))
        }
        if case .beyondLogHead(let position, let reported, _)? = blocking {
            #expect(position == head + 1 && reported == head)
        } else {
            Issue.record("expected beyondLogHead, got \(String(describing: blocking))")
        }
        // At the head itself the page is empty.
        #expect(try await client.audit(AuditQuery(after: head)).items.isEmpty)

        // permctl prints it and exits 1, as for any refusal.
        let permctl = try Permctl.run(["audit", "--after", String(head + 3)], url: server.url, key: server.adminKey)
        #expect(permctl.status == 1 && permctl.stderr.contains("beyond its end (\(head))"), "\(permctl.stderr)")
    }
}
