import Foundation
import LiveTestSupport
import TestProcesses
import TestThreads
import Testing

/// `GET /v1/events` against the real binary: an open stream does not outlive its key
/// (docs/access-control.md): a key revoked by `permission-server keys revoke`, another process, ends
/// its streams and its requests within about 100 ms, when the server sees the other process's
/// commit (the API's own revocation is tested in `PermissionAPITests.EventStreamTests`); and the
/// stream caps, in all and per key, are settings.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct EventStreamLimitTests {
    /// `permission_event_streams_open` on the server's `/metrics`.
    static func openStreams(_ server: ServerProcess) throws -> Double? {
        OperationsTests.sample(try OperationsTests.get("\(server.baseURL)/metrics").body, "permission_event_streams_open")
    }

    @Test("keys revoke on the database file ends the key's requests and open stream at once, and frees its slot")
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
        // The consent pages' streams have a gauge of their own, which this stream is not in.
        let page = try OperationsTests.get("\(server.baseURL)/metrics").body
        #expect(OperationsTests.sample(page, "permission_consent_event_streams_open") == 0, "\(page)")
        // Verified, so the key is in the server's cache of verified keys.
        #expect(try KeysSubcommandTests.status("\(server.baseURL)/v1/audit", key: auditor.secret) == "200")

        let revoked = try KeysSubcommandTests.keys(["revoke", auditor.id], database: database)
        #expect(revoked.status == 0, "keys revoke: \(revoked.stderr)")
        let started = Date()
        var refusedAfter: TimeInterval?
        while refusedAfter == nil, Date().timeIntervalSince(started) < 10 {
            if try KeysSubcommandTests.status("\(server.baseURL)/v1/audit", key: auditor.secret) == "401" {
                refusedAfter = Date().timeIntervalSince(started)
            } else {
                usleep(20_000)
            }
        }
        // The bound: the writer's 100 ms look for other processes' commits, plus slack for a busy
        // machine; well within the key cache's 5 s, which would otherwise decide it.
        #expect((refusedAfter ?? 10) < 3.5, "the revoked key still worked \(refusedAfter ?? 10) s later")
        let ended = stream.waitForExit(timeout: 15)
        let elapsed = Date().timeIntervalSince(started)
        try #require(ended, "the stream of a revoked key is still open after \(elapsed) s")
        // The bound: the 100 ms look, plus the stream's 500 ms poll, plus slack for a busy machine.
        #expect(elapsed < 4.5, "the stream ended \(elapsed) s after the revocation")
        #expect(stream.process.termination == .exited(0), "the stream ended cleanly (its last chunk)")

        let deadline = Date().addingTimeInterval(5)
        var open = try Self.openStreams(server)
        while open != 0, Date() < deadline {
            usleep(50_000)
            open = try Self.openStreams(server)
        }
        #expect(open == 0, "the slot of the ended stream is free")
        #expect(try KeysSubcommandTests.status("\(server.baseURL)/v1/events", key: auditor.secret) == "401")
    }

    /// Whether this process may drop packets with `iptables` (root, with the command there), as
    /// a network that loses a client without a FIN or RST does.
    static let canDropPackets: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/iptables") else { return false }
        return (try? ChildProcess.run("/usr/sbin/iptables", ["-w", "5", "-S", "INPUT"], timeout: 10).status) == 0
    }()

    @Test(
        "a client gone without a FIN or RST (its packets dropped) frees its stream's slot within --write-timeout (at least 10 s) of the next event",
        .enabled(if: canDropPackets, "needs root and iptables to drop a connection's packets"))
    func aVanishedClientFreesItsSlot() throws {
        let directory = try Paths.makeTemporaryDirectory("stream-vanished")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("vanished.sqlite").path
        let server = try ServerProcess(database: database, directory: directory, extraArguments: ["--write-timeout", "2"])
        defer { server.killNow() }
        let port = try LoopbackPort.free()
        let stream = try StreamingCurl(
            url: "\(server.baseURL)/v1/events", key: ServerProcess.adminKey, directory: directory, localPort: port)
        #expect(stream.waitFor(": connected", timeout: 10), "the stream did not open: \(stream.text)")
        #expect(try Self.openStreams(server) == 1)

        // Every packet of that connection is lost from now on, both ways; then the client goes,
        // and its FIN is lost too.
        let rules = [
            ["-p", "tcp", "--dport", String(port), "-j", "DROP"], ["-p", "tcp", "--sport", String(port), "-j", "DROP"],
        ]
        for rule in rules {
            let added = try ChildProcess.run("/usr/sbin/iptables", ["-w", "5", "-I", "INPUT", "-i", "lo"] + rule, timeout: 10)
            try #require(added.status == 0, "iptables: \(added.standardError)")
        }
        defer {
            for rule in rules {
                _ = try? ChildProcess.run("/usr/sbin/iptables", ["-w", "5", "-D", "INPUT", "-i", "lo"] + rule, timeout: 10)
            }
        }
        _ = stream.process.kill(SIGKILL)
        #expect(try Self.openStreams(server) == 1, "nothing told the server")

        // An event for the stream to send, which is never acknowledged.
        #expect(try OperationsTests.putApp(server, "com.example.vanished", key: ServerProcess.adminKey) == "201")
        let started = Date()
        var open = try Self.openStreams(server)
        while open != 0, Date().timeIntervalSince(started) < 30 {
            usleep(100_000)
            open = try Self.openStreams(server)
        }
        // The bound: the kernel's 10 s (the least it is given, above the 2 s write timeout), the
        // stream's 500 ms poll, and slack for a busy machine.
        #expect(open == 0, "the slot is still held \(Date().timeIntervalSince(started)) s after the event")
        #expect(Date().timeIntervalSince(started) < 16, "freed after \(Date().timeIntervalSince(started)) s")
    }

    @Test("--max-event-streams-per-key and --max-event-streams: 429 for a key at its cap, 503 when all are taken")
    func streamCapsAreSettings() throws {
        let directory = try Paths.makeTemporaryDirectory("stream-caps")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("caps.sqlite").path
        let auditor = try KeysSubcommandTests.create(["--role", "auditor", "--name", "feed"], database: database)
        let server = try ServerProcess(
            database: database, directory: directory,
            extraArguments: ["--max-event-streams", "2"], environment: ["PERMISSION_MAX_EVENT_STREAMS_PER_KEY": "2"])
        defer { server.killNow() }
        let url = "\(server.baseURL)/v1/events"
        let streams = try (0..<2).map { _ in try StreamingCurl(url: url, key: auditor.secret, directory: directory) }
        for stream in streams { #expect(stream.waitFor(": connected", timeout: 10), "\(stream.text)") }

        let keyAtCap = try Subprocess.curl(["-i", "-H", "Authorization: Bearer \(auditor.secret)", url])
        #expect(keyAtCap.stdout.hasPrefix("HTTP/1.1 429"), "\(keyAtCap.stdout)")
        #expect(keyAtCap.stdout.lowercased().contains("retry-after: 5\r\n"))
        #expect(keyAtCap.stdout.contains("application/problem+json"))
        #expect(keyAtCap.stdout.contains("/problems/too-many-requests"))
        // Another key is under its own cap, but every slot is taken.
        let full = try Subprocess.adminCurl(["-i", url])
        #expect(full.stdout.hasPrefix("HTTP/1.1 503"), "\(full.stdout)")
        #expect(full.stdout.lowercased().contains("retry-after: 5\r\n"))
        #expect(full.stdout.contains("/problems/unavailable"))
        #expect(try Self.openStreams(server) == 2)
    }
}
