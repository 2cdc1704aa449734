import Foundation
import LiveTestSupport
import PostgresTestServer
import TestThreads
import Testing

/// Faults of replicas on PostgreSQL (SPEC §9), live with the real binary: the database going
/// away and coming back, and a replica killed under write load.
@Suite(.serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct ReplicaFaultTests {
    typealias Cluster = ReplicaTests.Cluster

    static let camera = ReplicaTests.camera

    @Test("the database going away: writes answer 503 without hanging, /readyz turns false, and all recovers by itself")
    func databaseOutage() throws {
        let cluster = try Cluster("replicas-outage", count: 2)
        let postgres = try PostgresServer.shared.get()
        #expect(try cluster.call(0, "PUT", Self.camera, body: #"{"status":"denied"}"#).status == 200)
        #expect(try cluster.call(1, "GET", Self.camera).status == 200)
        func ready(_ replica: Int) throws -> String {
            try Subprocess.curl(["-o", "/dev/null", "-w", "%{http_code}", cluster.replicas[replica].baseURL + "/readyz"])
                .stdout
        }
        // The outage as the replicas see it: every connection cut, new ones refused.
        _ = try CopyToPostgresTests.psql(
            postgres, "postgres", "ALTER DATABASE \"\(cluster.name)\" ALLOW_CONNECTIONS false")
        _ = try CopyToPostgresTests.psql(
            postgres, "postgres",
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(cluster.name)'")
        let started = Date()
        let refused = try cluster.call(0, "PUT", Self.camera, body: #"{"status":"authorized","level":"full"}"#)
        #expect(refused.status == 503 && refused.body.contains("unavailable"), "\(refused.status) \(refused.body)")
        #expect(Date().timeIntervalSince(started) < 12, "the write hung")
        #expect(try ready(0) == "503")
        #expect(try ready(1) == "503")
        // Memory is not trusted once the log could not be read for a second: reads fail too.
        let stale = try ReplicaTests.within(5) { try cluster.call(1, "GET", Self.camera).status == 503 }
        #expect(stale != nil, "replica 1 kept answering from memory")
        // /metrics still answers, with what memory holds and the database's series left out:
        // an outage is when an operator reads it.
        func metrics(_ replica: Int) throws -> (status: String, text: String) {
            let answer = try Subprocess.curl(["-s", "-w", "\n%{http_code}", cluster.replicas[replica].baseURL + "/metrics"])
                .stdout
            let lines = answer.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
        }
        let unfresh = try ReplicaTests.within(5) { try metrics(1).text.contains("permission_read_model_fresh 0") }
        #expect(unfresh != nil, "memory is not trusted after a second without the log")
        let during = try metrics(1)
        #expect(during.status == "200", "\(during.text)")
        for line in ["permission_database_up 0", "permission_read_model_fresh 0", "http_open_connections{"] {
            #expect(during.text.contains(line), "\(line): \(during.text)")
        }
        #expect(!during.text.contains("permission_audit_seq "), "a figure the scrape could not read")
        // The change feed is refused before its head (503, to wait out), not opened and cut.
        let feed = try Subprocess.curl([
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "10", "-H", "Authorization: Bearer \(ServerProcess.adminKey)",
            cluster.replicas[1].baseURL + "/v1/events?after=0",
        ])
        #expect(feed.stdout == "503", "\(feed.stdout) \(feed.stderr)")

        _ = try CopyToPostgresTests.psql(
            postgres, "postgres", "ALTER DATABASE \"\(cluster.name)\" ALLOW_CONNECTIONS true")
        let back = try ReplicaTests.within(15) { try ready(0) == "200" && ready(1) == "200" }
        #expect(back != nil, "the replicas did not become ready again")
        let after = try metrics(1)
        #expect(after.text.contains("permission_database_up 1") && after.text.contains("permission_audit_seq "))
        // The replica keeps the database's time; on one host the two clocks agree.
        let offset = after.text.split(separator: "\n").first { $0.hasPrefix("permission_clock_offset_seconds ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
        #expect(offset.map { abs($0) < 0.5 } == true, "\(after.text)")
        let written = try cluster.call(0, "PUT", Self.camera, body: #"{"status":"denied"}"#)
        #expect(written.status == 200, "\(written.body)")
        let revision = written.headers["permission-revision"] ?? "0"
        let read = try cluster.call(1, "GET", Self.camera, headers: ["Permission-Consistency: at-least \(revision)"])
        #expect(read.status == 200 && read.body.contains(#""status":"denied""#), "\(read.body)")
        // Readiness asks the database itself, and a read may go to it too, so both can come back
        // before the follower's next poll; its recovery is logged at that poll.
        let recovered = ReplicaTests.within(10) { cluster.replicas[1].log().contains("reading the change log again") }
        let log = cluster.replicas[1].log()
        #expect(log.contains("cannot read the change log") && recovered != nil, "\(log)")
    }

    @Test("a replica started before its database can be reached keeps trying, then serves; one that waits too long exits 69")
    func startingBeforeTheDatabase() throws {
        let postgres = try PostgresServer.shared.get()
        let directory = try Paths.makeTemporaryDirectory("replicas-start-wait")
        defer { Paths.removeTemporary(directory) }
        let (uri, name) = try CopyToPostgresTests.freshDatabase(postgres)
        let passwordFile = directory.appendingPathComponent("pgpassword").path
        try Data("\(postgres.password)\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        @Sendable func connections(_ allowed: Bool) throws {
            _ = try CopyToPostgresTests.psql(
                postgres, "postgres", "ALTER DATABASE \"\(name)\" ALLOW_CONNECTIONS \(allowed)")
        }
        try connections(false)

        // Gives up after --database-start-timeout with 69, saying each time it tries again.
        let started = Date()
        let gaveUp = try SubcommandTests.server(
            [
                "serve", "--host", "127.0.0.1", "--port", "0", "--database", uri, "--database-password-file", passwordFile,
                "--database-start-timeout", "3",
            ], environment: ["PERMISSION_AUDIT_KEY": ServerProcess.auditKey])
        let waited = Date().timeIntervalSince(started)
        #expect(gaveUp.status == 69, "\(gaveUp.stderr)")
        #expect(waited >= 2 && waited < 15, "\(waited) s")
        #expect(gaveUp.stderr.contains("cannot reach the database yet; trying again"), "\(gaveUp.stderr)")
        #expect(gaveUp.stderr.contains("cannot open the database") && !gaveUp.stderr.contains("listening on"))
        #expect(!gaveUp.stderr.contains(postgres.password), "no password in the log")

        // Started while the database refuses connections, allowed once it has said it tries
        // again (or after 20 s): it serves.
        let allow = Thread {
            _ = ReplicaTests.within(20) {
                let logs = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                return logs.filter { $0.hasPrefix("server-") && $0.hasSuffix(".log") }.contains { name in
                    let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                    return text?.contains("cannot reach the database yet; trying again") == true
                }
            }
            try? connections(true)
        }
        allow.start()
        let replica = try ServerProcess(
            database: uri, directory: directory, extraArguments: ["--database-password-file", passwordFile], timeout: 30)
        defer { replica.killNow() }
        let log = replica.log()
        #expect(log.contains("cannot reach the database yet; trying again"), "\(log)")
        let status = try Subprocess.curl(["-o", "/dev/null", "-w", "%{http_code}", replica.baseURL + "/readyz"]).stdout
        #expect(status == "200")
    }

    /// The writer, in Python: eight threads write distinct records through replica 0 until it
    /// is killed (SIGKILL, after one second), then every acknowledged one is read back through
    /// replica 1. Prints the acknowledged and the missing counts.
    static let killScript = """
        import http.client, json, os, signal, sys, threading, time
        writer_port, reader_port, key, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
        headers = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
        acknowledged, lock = [], threading.Lock()
        def writer(index):
            n = 0
            while True:
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", writer_port, timeout=10)
                    connection.request("PUT", f"/v1/users/k{index}-{n}/apps/com.example.maps/authorizations/camera",
                        json.dumps({"status": "denied"}), headers)
                    if connection.getresponse().status == 200:
                        with lock:
                            acknowledged.append(f"k{index}-{n}")
                except Exception:
                    return
                n += 1
        threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)
        os.kill(pid, signal.SIGKILL)
        for thread in threads:
            thread.join()
        missing = 0
        reader = http.client.HTTPConnection("127.0.0.1", reader_port, timeout=10)
        for user in acknowledged:
            reader.request("GET", f"/v1/users/{user}/apps/com.example.maps/authorizations/camera", headers=headers)
            if '"status":"denied"' not in reader.getresponse().read().decode():
                missing += 1
        print(len(acknowledged), missing)
        """

    @Test("a replica killed with SIGKILL under write load: every acknowledged write is there, the chain intact")
    func killedReplicaLosesNothingAcknowledged() throws {
        let cluster = try Cluster("replicas-kill", count: 2)
        let result = try Subprocess.python(
            Self.killScript,
            [
                String(cluster.replicas[0].port), String(cluster.replicas[1].port), ServerProcess.adminKey,
                String(cluster.replicas[0].pid),
            ],
            timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let figures = result.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(figures.count == 2 && figures[0] > 0 && figures[1] == 0, "acknowledged, missing: \(result.stdout)")
        #expect(cluster.replicas[0].waitForExit(timeout: 10) != nil)
        let verified = try SubcommandTests.server([
            "audit", "verify", "--database", cluster.uri, "--database-password-file", cluster.passwordFile,
        ])
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
    }
}
