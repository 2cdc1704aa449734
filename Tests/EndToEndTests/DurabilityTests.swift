import Foundation
import LiveTestSupport
import PermissionWire
import TestProcesses
import TestThreads
import Testing

/// Crash and stop behaviour of the real binary on a real file.
@Suite(.serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct DurabilityTests {
    static let app = "com.example.durable"

    /// Registers the test app (with its camera purpose string) through curl.
    static func registerApp(_ server: ServerProcess) throws {
        let result = try Subprocess.adminCurl([
            "-X", "PUT", "-H", "Content-Type: application/json", "-o", "/dev/null", "-w", "%{http_code}",
            "--data", #"{"name": "Durable", "purposeStrings": {"NSCameraUsageDescription": "Scan codes."}}"#,
            "\(server.baseURL)/v1/apps/\(app)",
        ])
        #expect(result.stdout == "200" || result.stdout == "201", "PUT app: \(result.stdout) \(result.stderr)")
    }

    @Test("every write acknowledged before SIGKILL is there after a restart, with its audit entry, seq gap-free")
    func acknowledgedWritesSurviveSIGKILL() throws {
        let directory = try Paths.makeTemporaryDirectory("restart")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("restart.sqlite").path
        let first = try ServerProcess(database: database, directory: directory)
        try Self.registerApp(first)

        let burst = try Subprocess.python(
            Scripts.writeBurstThenKill, ["\(first.port)", Self.app, "16", "200", "400", "\(first.pid)"], timeout: 90)
        #expect(burst.status == 0, "\(burst.stderr)")
        #expect(first.waitForExit(timeout: 10) != nil, "the server is gone after SIGKILL")
        let lines = burst.stdout.split(separator: "\n").compactMap(Subprocess.jsonObject)
        let acknowledged = lines.compactMap { line -> String? in
            guard line["status"] == .number("200"), let user = line["user"]?.stringValue else { return nil }
            return user
        }
        #expect(acknowledged.count >= 400, "at least the writes before the kill were answered 200")
        #expect(lines.contains { $0["error"] != nil }, "some writes were cut off by the kill")

        let second = try ServerProcess(database: database, directory: directory)
        defer { second.killNow() }
        let verify = try Subprocess.python(
            Scripts.verifyAcknowledged, ["\(second.port)", Self.app],
            timeout: 120, stdin: acknowledged.joined(separator: "\n"))
        let summary = try #require(
            try StrictJSON.parse(Array(verify.stdout.utf8)).objectValue, "\(verify.stdout) \(verify.stderr)")
        #expect(summary["checked"] == .number(String(acknowledged.count)))
        #expect(summary["notDeniedCount"] == .number("0"), "lost writes: \(verify.stdout)")
        #expect(summary["missingAuditCount"] == .number("0"), "lost audit entries: \(verify.stdout)")
        #expect(summary["gapFree"] == .bool(true), "audit seq has gaps: \(verify.stdout)")
    }

    @Test("SIGTERM during a burst: every request the server handled was answered, exit 0, integrity ok")
    func gracefulShutdownAnswersAcceptedRequests() throws {
        let directory = try Paths.makeTemporaryDirectory("shutdown")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("shutdown.sqlite").path
        let server = try ServerProcess(
            database: database, directory: directory, extraArguments: ["--log-format", "json", "--shutdown-grace", "5"])
        defer { server.killNow() }
        try Self.registerApp(server)

        let burst = try Subprocess.python(
            Scripts.burstThenTerminate, ["\(server.port)", Self.app, "12", "300", "\(server.pid)"], timeout: 60)
        #expect(burst.status == 0, "\(burst.stderr)")
        let exitStatus = server.waitForExit(timeout: 15)
        #expect(exitStatus == 0, "exit status after SIGTERM; log:\n\(server.log().suffix(2000))")

        let result = try #require(try StrictJSON.parse(Array(burst.stdout.utf8)).objectValue)
        #expect(result["sentTerm"] == .bool(true))
        guard case .array(let answeredPairs)? = result["answered"] else {
            Issue.record("no answers: \(burst.stdout.prefix(500))")
            return
        }
        var answered: [String: String] = [:]
        for pair in answeredPairs {
            guard case .array(let parts) = pair, parts.count == 2, let id = parts[0].stringValue,
                case .number(let status) = parts[1]
            else { continue }
            answered[id] = status
        }
        #expect(answered.count >= 300)
        #expect(answered.values.allSatisfy { $0 == "200" }, "every answer is 200")

        // Every request the server handled (one access-log line with its request id) was answered.
        var handled: [String] = []
        for line in server.log().split(separator: "\n") {
            guard let object = Subprocess.jsonObject(line),
                object["status"] != nil, let id = object["request-id"]?.stringValue, id.hasPrefix("sd-")
            else { continue }
            handled.append(id)
        }
        #expect(handled.count >= answered.count, "the access log has a line per handled request")
        let unanswered = handled.filter { answered[$0] == nil }
        #expect(unanswered.isEmpty, "handled but never answered: \(unanswered.prefix(10))")

        let integrity = try Subprocess.run(Paths.sqlite3, [database, "PRAGMA integrity_check"])
        #expect(
            integrity.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(integrity.stdout) \(integrity.stderr)")
        // Checkpointed and every connection closed, the writer last: the database is one file.
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"), "no -wal after a clean stop")
        #expect(!FileManager.default.fileExists(atPath: database + "-shm"), "no -shm after a clean stop")
    }

    @Test(
        "a stop while another process reads an older snapshot: the server says the -wal holds committed writes and must stay with the file, and it does"
    )
    func blockedCheckpointAtStopIsReported() throws {
        let directory = try Paths.makeTemporaryDirectory("blocked-checkpoint")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("blocked.sqlite").path
        let server = try ServerProcess(database: database, directory: directory)
        defer { server.killNow() }
        try Self.registerApp(server)
        // A reader that holds one read transaction, begun before the next write, until killed.
        let readerOutput = directory.appendingPathComponent("reader.out").path
        let reader = try ChildProcess(
            Paths.python,
            [
                "-c",
                """
                import sqlite3, sys, time
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('BEGIN')
                c.execute('SELECT count(*) FROM audit').fetchall()
                print('reading', flush=True)
                time.sleep(60)
                """,
                database,
            ], standardOutput: readerOutput, standardError: readerOutput)
        defer { reader.killAndWait() }
        let deadline = Date().addingTimeInterval(10)
        while (try? String(contentsOfFile: readerOutput, encoding: .utf8))?.contains("reading") != true, Date() < deadline {
            usleep(20_000)
        }
        let written = try Subprocess.adminCurl([
            "-X", "PUT", "-H", "Content-Type: application/json", "-o", "/dev/null", "-w", "%{http_code}",
            "--data", #"{"status": "denied"}"#,
            "\(server.baseURL)/v1/users/u1/apps/\(Self.app)/authorizations/camera",
        ])
        #expect(written.stdout == "200", "\(written.stdout) \(written.stderr)")

        server.send(SIGTERM)
        #expect(server.waitForExit(timeout: 30) == 0)
        let log = server.log()
        #expect(log.contains("the checkpoint at shutdown was blocked"), "\(log)")
        #expect(log.contains("must stay beside the database file") && log.contains("\(database)-wal"), "\(log)")
        #expect(!log.contains("database checkpointed and closed"), "\(log)")
        reader.killAndWait()
        var info = stat()
        #expect(stat(database + "-wal", &info) == 0 && info.st_size > 0, "the -wal holds the write")
        let status = try CopyToPostgresTests.sqlite(
            database, "SELECT status FROM authorizations WHERE user = 'u1' AND service = 'camera'")
        #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) == "denied", "\(status)")
    }
}
