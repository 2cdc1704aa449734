import Foundation
import LiveTestSupport
import PermissionClient
import PermissionWire
import TestProcesses
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

    /// A consumer that kept its position and the hash of the entry it read there, against the
    /// server restarted on a backup taken before that entry (the steps of operations.md): while
    /// the restored log ends before the position it is `.beyondLogHead`; once new entries took
    /// the log past it, the position alone reads as valid, and only the hash tells:
    /// `.logDiverged`, for the feed, an audit page and `permctl`.
    @Test func aRestoredLogThatGrewPastThePositionIsLogDiverged() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try LiveServerTests.client(server)
        _ = try await client.revoke(user: "u1", app: LiveServerTests.app, service: "camera")
        let database = server.directory.appendingPathComponent("db.sqlite").path
        let backup = server.directory.appendingPathComponent("backup.sqlite").path
        let copy = try ChildProcess.run(
            BuiltProducts.serverBinary, ["backup", "--to", backup, "--database", database], timeout: 30)
        #expect(copy.status == 0, "\(copy.standardError)")
        let backedUp = try #require(try await client.audit(AuditQuery(limit: 1000)).items.last?.seq)
        _ = try await client.revoke(user: "u2", app: LiveServerTests.app, service: "camera")
        _ = try await client.revoke(user: "u3", app: LiveServerTests.app, service: "camera")
        var read: [PermissionWire.AuditEntry] = []
        try client.followEvents(after: backedUp) { entry in
            read.append(entry)
            return read.count < 2
        }
        let position = try #require(read.last?.seq)
        let hash = try #require(read.last?.hash)

        // Restore: stop, remove the database and its -wal and -shm, copy the backup, start.
        server.server.send(SIGTERM)
        #expect(server.server.waitForExit(timeout: 20) == 0)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
            try FileManager.default.removeItem(atPath: database + suffix)
        }
        try FileManager.default.copyItem(atPath: backup, toPath: database)
        let restored = try ServerProcess(
            database: database, directory: server.directory,
            environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": server.adminKey])
        defer { restored.killNow() }
        let again = try PermissionClient(
            configuration: .init(
                baseURL: restored.baseURL, apiKey: server.adminKey, retry: RetryPolicy(baseDelay: .milliseconds(20)),
                eventsRetry: RetryPolicy(baseDelay: .milliseconds(20))))

        #expect(throws: PermissionClientError.beyondLogHead(position: position, head: backedUp, requestId: nil)) {
            try Self.withoutRequestId { try again.followEvents(after: position, afterHash: hash) { _ in false } }
        }
        for user in ["u4", "u5", "u6"] {
            _ = try await again.revoke(user: user, app: LiveServerTests.app, service: "camera")
        }
        let head = backedUp + 3
        #expect(head > position)
        #expect(throws: PermissionClientError.logDiverged(position: position, head: head, requestId: nil)) {
            try Self.withoutRequestId { try again.followEvents(after: position, afterHash: hash) { _ in false } }
        }
        let page = await #expect(throws: PermissionClientError.self) {
            try await again.audit(AuditQuery(after: position, afterHash: hash))
        }
        #expect(page?.status == 409 && page?.problemType == .logDiverged, "\(String(describing: page))")
        // Without the hash the position reads as valid: the entries up to it are skipped.
        #expect(try await again.audit(AuditQuery(after: position)).items.map(\.seq) == Array((position + 1)...head))

        let permctl = try Permctl.run(
            ["audit", "--after", String(position), "--after-hash", hash], url: restored.baseURL, key: server.adminKey)
        #expect(permctl.status == 1 && permctl.stderr.contains("is not the one read there"), "\(permctl.stderr)")
    }

    /// `body`'s error with its request id taken out (it differs per call).
    static func withoutRequestId(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch PermissionClientError.beyondLogHead(let position, let head, _) {
            throw PermissionClientError.beyondLogHead(position: position, head: head, requestId: nil)
        } catch PermissionClientError.logDiverged(let position, let head, _) {
            throw PermissionClientError.logDiverged(position: position, head: head, requestId: nil)
        }
    }
}
