import Foundation
import Testing

/// `GET /v1/events` against the real binary: an open stream does not outlive its key (README
/// "Authentication"): a key revoked by `permission-server keys revoke`, another process, ends
/// its streams within the key cache's 5 s (the API's own revocation is tested in
/// `PermissionAPITests.EventStreamTests`).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct EventStreamLimitTests {
    /// `permission_event_streams_open` on the server's `/metrics`.
    static func openStreams(_ server: ServerProcess) throws -> Double? {
        OperationsTests.sample(try OperationsTests.get("\(server.baseURL)/metrics").body, "permission_event_streams_open")
    }

    @Test("keys revoke on the database file ends the key's open stream within 5 s and frees its slot")
    func revocationByAnotherProcessEndsTheStream() throws {
        let directory = try Paths.makeTemporaryDirectory("stream-revoke")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("revoke.sqlite").path
        let auditor = try KeysSubcommandTests.create(["--role", "auditor", "--name", "feed"], database: database)
        let server = try ServerProcess(database: database, directory: directory)
        defer { server.killNow() }
        let stream = try StreamingCurl(url: "\(server.baseURL)/v1/events", key: auditor.secret, directory: directory)
        #expect(stream.waitFor(": connected", timeout: 10), "the stream did not open: \(stream.text)")
        #expect(try Self.openStreams(server) == 1)

        let revoked = try KeysSubcommandTests.keys(["revoke", auditor.id], database: database)
        #expect(revoked.status == 0, "keys revoke: \(revoked.stderr)")
        let started = Date()
        let ended = stream.waitForExit(timeout: 15)
        let elapsed = Date().timeIntervalSince(started)
        try #require(ended, "the stream of a revoked key is still open after \(elapsed) s")
        // The bound: the key cache's 5 s, plus the stream's 500 ms poll, plus slack for a busy machine.
        #expect(elapsed < 7.5, "the stream ended \(elapsed) s after the revocation")
        #expect(stream.process.terminationStatus == 0, "the stream ended cleanly (its last chunk)")

        let deadline = Date().addingTimeInterval(5)
        var open = try Self.openStreams(server)
        while open != 0, Date() < deadline {
            usleep(50_000)
            open = try Self.openStreams(server)
        }
        #expect(open == 0, "the slot of the ended stream is free")
        #expect(try KeysSubcommandTests.status("\(server.baseURL)/v1/events", key: auditor.secret) == "401")
    }
}
