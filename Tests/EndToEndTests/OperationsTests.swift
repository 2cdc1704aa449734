import Foundation
import LiveTestSupport
import PermissionWire
import TestThreads
import Testing

/// `/metrics` and backup/restore against the real binary (docs/operations.md).
@Suite(.serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct OperationsTests {
    static let adminKey = "ops-admin-secret-0123456789abcdefghijklmnop"
    static let keyEnvironment = ["PERMISSION_BOOTSTRAP_ADMIN_KEY": adminKey]

    /// `curl` status code and body of a GET, with the admin key when `key`.
    static func get(_ url: String, key: Bool = false) throws -> (status: String, body: String) {
        let marker = "\n--status:"
        var arguments = ["-s", "-w", "\(marker)%{http_code}"]
        if key { arguments += ["-H", "Authorization: Bearer \(adminKey)"] }
        let result = try Subprocess.curl(arguments + [url])
        guard let range = result.stdout.range(of: marker, options: .backwards) else { return ("", result.stdout) }
        return (String(result.stdout[range.upperBound...]), String(result.stdout[..<range.lowerBound]))
    }

    /// Registers `app` with the admin key; the HTTP status.
    static func putApp(_ server: ServerProcess, _ app: String, key: String = adminKey) throws -> String {
        try Subprocess.curl([
            "-s", "-X", "PUT", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(key)",
            "-o", "/dev/null", "-w", "%{http_code}", "--data",
            #"{"name": "Ops", "purposeStrings": {"NSCameraUsageDescription": "Scan codes."}}"#,
            "\(server.baseURL)/v1/apps/\(app)",
        ]).stdout
    }

    /// Runs `body` with a server started on a new database (`NAME.sqlite`) in a temporary
    /// directory named after `name`, with `arguments` and `environment` (the bootstrap admin key
    /// unless given); kills the server and removes the directory when `body` returns.
    static func withServer(
        _ name: String, arguments: [String] = [], environment: [String: String] = keyEnvironment,
        _ body: (ServerProcess, _ database: String) throws -> Void
    ) throws {
        let directory = try Paths.makeTemporaryDirectory(name)
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("\(name).sqlite").path
        let server = try ServerProcess(
            database: database, directory: directory, extraArguments: arguments, environment: environment)
        defer { server.killNow() }
        try body(server, database)
    }

    /// The value of the sample line `series` (name with labels, exactly as exposed).
    static func sample(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    static func sqlite(_ database: String, _ sql: String) throws -> String {
        let result = try Subprocess.run(Paths.sqlite3, [database, sql])
        #expect(result.status == 0, "sqlite3: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// sqlite3, another process, stores a denied camera record for u1 and `app` behind the
    /// server's back.
    static func denyBehindTheServer(_ database: String, app: String) throws {
        _ = try sqlite(
            database,
            """
            INSERT INTO authorizations (user, app, service, status, level, provisional, once, expires_at, reason, purpose,
                declined_levels, updated_at, version)
            VALUES ('u1', '\(app)', 'camera', 'denied', NULL, 0, 0, NULL, 'userSet', NULL, '', 1795000000000, 1)
            """)
    }

    /// GETs `url` with the admin key until it answers a denied status or 5 s pass; the last body.
    static func waitForDenied(_ url: String) throws -> String {
        let deadline = Date() + 5
        var body = try get(url, key: true).body
        while !body.contains(#""status":"denied""#) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            body = try get(url, key: true).body
        }
        return body
    }

    @Test("a scrape after traffic shows requests by route and status, latencies, connections, writes and the audit head")
    func scrapeAfterTraffic() throws {
        try Self.withServer("metrics") { server, database in
            for _ in 0..<3 { #expect(try Self.get("\(server.baseURL)/healthz").status == "200") }
            #expect(try Self.get("\(server.baseURL)/no/such/route").status == "404")
            let created = try Self.putApp(server, "com.example.metrics")
            #expect(created == "201" || created == "200")
            #expect(try Self.get("\(server.baseURL)/v1/apps/com.example.metrics").status == "401")
            // An app without the microphone's purpose string asks for it: 422, counted by key.
            let refused = try Subprocess.curl([
                "-s", "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(Self.adminKey)",
                "-o", "/dev/null", "-w", "%{http_code}", "--data", #"{"level": "full"}"#,
                "\(server.baseURL)/v1/users/u1/apps/com.example.metrics/authorizations/microphone/request",
            ]).stdout
            #expect(refused == "422")

            // The scrape's own connection is open while it is answered, and it runs on a worker
            // thread; the previous requests' connections and workers are let go by other threads
            // just after their answers, so the scrape is taken again until they have been.
            var scrape = try Self.get("\(server.baseURL)/metrics")
            _ = try ReplicaTests.within(5) {
                scrape = try Self.get("\(server.baseURL)/metrics")
                return Self.sample(scrape.body, #"http_open_connections{listener="api"}"#) == 1
                    && Self.sample(scrape.body, #"http_worker_threads{listener="api",state="busy"}"#) == 1
            }
            #expect(scrape.status == "200")
            let text = scrape.body
            #expect(Self.sample(text, #"http_requests_total{route="/healthz",method="GET",status="200"}"#) == 3)
            #expect(Self.sample(text, #"http_requests_total{route="unmatched",method="GET",status="404"}"#) == 1)
            #expect(
                Self.sample(text, #"permission_missing_purpose_strings_total{key="NSMicrophoneUsageDescription"}"#) == 1,
                "SPEC §4: the refusal is logged and counted")
            #expect(Self.sample(text, #"http_requests_total{route="/v1/apps/{app}",method="PUT",status="\#(created)"}"#) == 1)
            #expect(Self.sample(text, #"http_requests_total{route="/v1/apps/{app}",method="GET",status="401"}"#) == 1)
            #expect(Self.sample(text, #"http_request_duration_seconds_count{route="/healthz",method="GET"}"#) == 3)
            #expect(Self.sample(text, #"http_request_duration_seconds_bucket{route="/healthz",method="GET",le="+Inf"}"#) == 3)
            #expect(text.contains("# TYPE http_request_duration_seconds histogram"))
            #expect(Self.sample(text, #"http_open_connections{listener="api"}"#) == 1)
            let seq = try #require(Double(try Self.sqlite(database, "SELECT max(seq) FROM audit")))
            #expect(seq >= 1)
            #expect(Self.sample(text, "permission_audit_seq") == seq)
            for status in ["authorized", "denied", "notDetermined"] {
                let count = try Self.sqlite(database, "SELECT count(*) FROM authorizations WHERE status = '\(status)'")
                #expect(Self.sample(text, #"permission_authorizations{status="\#(status)"}"#) == Double(count))
            }
            let transactions = try #require(Self.sample(text, "sqlite_write_transaction_duration_seconds_count"))
            #expect(transactions >= 1)
            #expect(Self.sample(text, "sqlite_write_transaction_writes_count") == transactions)
            #expect(Self.sample(text, #"sqlite_writes_total{outcome="committed"}"#).map { $0 >= 1 } == true)
            // A handful of writes: the log is small, nothing was checkpointed yet.
            #expect(Self.sample(text, "sqlite_wal_pages").map { $0 >= 1 && $0 < 1_000 } == true)
            #expect(Self.sample(text, #"sqlite_wal_checkpoints_total{by="checkpointer"}"#) == 0)
            #expect(Self.sample(text, #"sqlite_wal_checkpoints_total{by="writer"}"#) == 0)
            #expect(Self.sample(text, "sqlite_wal_checkpoint_failures_total") == 0)
            #expect(Self.sample(text, #"sqlite_wal_scrubs_total{outcome="emptied"}"#) == 0, "no erasure")
            #expect(Self.sample(text, "sqlite_wal_scrub_waiting_seconds") == 0, "none waits")
            #expect(Self.sample(text, #"http_worker_threads{listener="api",state="busy"}"#) == 1)
            #expect(Self.sample(text, #"http_worker_threads{listener="api",state="idle"}"#).map { $0 >= 0 } == true)
        }
    }

    @Test(
        "the status read cache: warmed at start, hits counted, and a row changed by another process is served soon after (checked every 100 ms)"
    )
    func readCacheSeesAnotherProcessesWrite() throws {
        try Self.withServer("read-cache") { server, database in
            #expect(server.log(waitingFor: "read cache warmed").contains("read cache warmed records=0"))
            let created = try Self.putApp(server, "com.example.cache")
            #expect(created == "201")
            let url = "\(server.baseURL)/v1/users/u1/apps/com.example.cache/authorizations/camera"
            for _ in 0..<2 { #expect(try Self.get(url, key: true).body.contains(#""status":"notDetermined""#)) }
            var text = try Self.get("\(server.baseURL)/metrics").body
            #expect(Self.sample(text, #"permission_read_cache_lookups_total{result="miss"}"#) == 1)
            #expect(Self.sample(text, #"permission_read_cache_lookups_total{result="hit"}"#) == 1)
            #expect(Self.sample(text, "permission_read_cache_entries") == 1)
            #expect(Self.sample(text, "permission_read_cache_evictions_total") == 0)

            try Self.denyBehindTheServer(database, app: "com.example.cache")
            let body = try Self.waitForDenied(url)
            #expect(body.contains(#""status":"denied""#), "\(body)")
            text = try Self.get("\(server.baseURL)/metrics").body
            #expect(Self.sample(text, "permission_read_cache_clears_total").map { $0 >= 1 } == true)
        }
    }

    @Test(
        "the newest audit entry deleted behind the server, around its trigger: the server logs it as critical and counts it"
    )
    func aLogChangedBehindTheServerIsReported() throws {
        try Self.withServer("audit-rewrite") { server, database in
            #expect(try Self.putApp(server, "com.example.witness") == "201")
            let seq = try Self.sqlite(database, "SELECT max(seq) FROM audit")
            let hash = try Self.sqlite(database, "SELECT hash FROM audit WHERE seq = \(seq)")
            _ = try Self.sqlite(
                database,
                """
                DROP TRIGGER audit_never_deleted; DELETE FROM audit WHERE seq = \(seq);
                CREATE TRIGGER audit_never_deleted BEFORE DELETE ON audit
                    BEGIN SELECT RAISE(ABORT, 'audit entries are never deleted'); END;
                """)
            let log = server.log(waitingFor: "the audit log lost or changed an entry")
            #expect(log.contains("critical"), "\(log.suffix(2000))")
            #expect(
                log.contains("seq=\(seq)") && log.contains("hash=\(hash)") && log.contains("found=no entry"),
                "\(log.suffix(2000))")
            let text = try Self.get("\(server.baseURL)/metrics").body
            #expect(Self.sample(text, "permission_audit_rewrites_total") == 1)
        }
    }

    @Test(
        "the newest audit entry deleted under an open event stream: the stream ends, the server gives the seq out again, and the client's resume is told the log diverged"
    )
    func aStreamEndsWhenTheLogGoesBack() throws {
        try Self.withServer("stream-log-back") { server, database in
            #expect(try Self.putApp(server, "com.example.one") == "201")
            #expect(try Self.putApp(server, "com.example.two") == "201")
            let seq = try Self.sqlite(database, "SELECT max(seq) FROM audit")
            let hash = try Self.sqlite(database, "SELECT hash FROM audit WHERE seq = \(seq)")
            let directory = URL(fileURLWithPath: database).deletingLastPathComponent()
            let stream = try StreamingCurl(
                url: "\(server.baseURL)/v1/events?after=\(Int(seq)! - 1)", key: Self.adminKey, directory: directory)
            #expect(stream.waitFor("id: \(seq)\n", timeout: 10), "\(stream.text)")
            _ = try Self.sqlite(
                database,
                """
                DROP TRIGGER audit_never_deleted; DELETE FROM audit WHERE seq = \(seq);
                CREATE TRIGGER audit_never_deleted BEFORE DELETE ON audit
                    BEGIN SELECT RAISE(ABORT, 'audit entries are never deleted'); END;
                """)
            #expect(stream.waitForExit(timeout: 10), "the stream ends: \(stream.text)")
            #expect(server.log(waitingFor: "event stream ended: the audit log went back").contains("warning"))
            // Reads show the file's head, not the one shown before: the deleted seq is beyond it.
            #expect(try Self.get("\(server.baseURL)/v1/audit?after=\(seq)", key: true).status == "409")

            // The seq is given out again, and the metric shows the head the file has.
            #expect(try Self.putApp(server, "com.example.three") == "201")
            #expect(try Self.sqlite(database, "SELECT max(seq) FROM audit") == seq)
            let text = try Self.get("\(server.baseURL)/metrics").body
            #expect(Self.sample(text, "permission_audit_seq") == Double(seq), "\(text.prefix(3000))")
            let resumed = try Subprocess.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "-H",
                "Authorization: Bearer \(Self.adminKey)", "-H", "Last-Event-ID: \(seq)", "-H",
                "Last-Event-Hash: \(hash)", "\(server.baseURL)/v1/events",
            ])
            #expect(resumed.stdout == "409", "log-diverged: \(resumed.stdout)")
        }
    }

    @Test("--read-cache-entries 2: a third record read evicts the one stored first, counted on /metrics, and nothing empties")
    func readCacheEvictsItsOldestRecord() throws {
        try Self.withServer("read-cache-evicts", arguments: ["--read-cache-entries", "2"]) { server, _ in
            #expect(try Self.putApp(server, "com.example.small") == "201")
            func url(_ user: String) -> String {
                "\(server.baseURL)/v1/users/\(user)/apps/com.example.small/authorizations/camera"
            }
            for user in ["u1", "u2", "u3"] {
                let written = try Subprocess.curl([
                    "-s", "-X", "PUT", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(Self.adminKey)",
                    "-o", "/dev/null", "-w", "%{http_code}", "--data", #"{"status": "denied"}"#, url(user),
                ]).stdout
                #expect(written == "200", "\(user)")
            }
            // u1, u2 and u3 read into a cache of two: u1 evicted; u1 again: u2 evicted; u3 still held.
            for user in ["u1", "u2", "u3", "u1", "u3"] {
                #expect(try Self.get(url(user), key: true).body.contains(#""status":"denied""#), "\(user)")
            }
            let text = try Self.get("\(server.baseURL)/metrics").body
            #expect(Self.sample(text, "permission_read_cache_evictions_total") == 2)
            #expect(Self.sample(text, "permission_read_cache_clears_total") == 0)
            #expect(Self.sample(text, #"permission_read_cache_lookups_total{result="miss"}"#) == 4)
            #expect(Self.sample(text, #"permission_read_cache_lookups_total{result="hit"}"#) == 1)
        }
    }

    @Test("--read-cache-entries 0: no warm-up, no cache series, every status read from the database")
    func readCacheOff() throws {
        try Self.withServer("read-cache-off", arguments: ["--read-cache-entries", "0"]) { server, database in
            #expect(try Self.putApp(server, "com.example.nocache") == "201")
            let url = "\(server.baseURL)/v1/users/u1/apps/com.example.nocache/authorizations/camera"
            #expect(try Self.get(url, key: true).body.contains(#""status":"notDetermined""#))
            try Self.denyBehindTheServer(database, app: "com.example.nocache")
            // The reader pool's snapshots end within 100 ms (ReaderPool.maximumSnapshotAge).
            let body = try Self.waitForDenied(url)
            #expect(body.contains(#""status":"denied""#), "\(body)")
            #expect(!(try Self.get("\(server.baseURL)/metrics").body.contains("permission_read_cache")))
            #expect(!server.log().contains("read cache"))
        }
    }

    /// sqlite3, another process, stores a policy restricting the camera for everyone.
    static func restrictBehindTheServer(_ database: String) throws {
        _ = try sqlite(
            database,
            """
            INSERT INTO policies (id, service, app, user, effect, level, updated_at)
            VALUES ('behind-the-server', 'camera', NULL, NULL, 'restrict', NULL, 1795000000000)
            """)
    }

    @Test(
        "a restricting policy stored by another process for a service no policy named is honoured soon after, with the read cache on and off",
        arguments: [[], ["--read-cache-entries", "0"]])
    func policyStoredBehindTheServer(extraArguments: [String]) throws {
        try Self.withServer("policy-behind", arguments: extraArguments) { server, database in
            #expect(try Self.putApp(server, "com.example.policy") == "201")
            let url = "\(server.baseURL)/v1/users/u1/apps/com.example.policy/authorizations/camera"
            for _ in 0..<2 { #expect(try Self.get(url, key: true).body.contains(#""status":"notDetermined""#)) }
            try Self.restrictBehindTheServer(database)
            let deadline = Date() + 5
            var body = try Self.get(url, key: true).body
            while !body.contains(#""status":"restricted""#) && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.05)
                body = try Self.get(url, key: true).body
            }
            #expect(body.contains(#""status":"restricted""#), "\(body)")
        }
    }

    @Test("admin-only metrics on a separate port: 401 without a key, 200 with the admin key, absent from the main port")
    func adminOnlySeparatePort() throws {
        try Self.withServer("metrics-admin", arguments: ["--metrics", "admin", "--metrics-port", "0"]) { server, _ in
            let log = server.log(waitingFor: "metrics on ")
            let line = try #require(log.split(separator: "\n").first { $0.contains("metrics on ") }, "\(log)")
            let port = try #require(
                ServerProcess.listeningPort(
                    in: "listening on "
                        + line.components(separatedBy: "metrics on ")[1]
                        .replacingOccurrences(of: "/metrics", with: " ")))
            let url = "http://127.0.0.1:\(port)/metrics"
            #expect(try Self.get(url).status == "401")
            // The 401's connection is let go by its event loop just after its answer.
            var scrape = try Self.get(url, key: true)
            _ = try ReplicaTests.within(5) {
                scrape = try Self.get(url, key: true)
                return Self.sample(scrape.body, #"http_open_connections{listener="metrics"}"#) == 1
            }
            #expect(scrape.status == "200")
            #expect(scrape.body.contains("# TYPE http_requests_total counter"))
            #expect(Self.sample(scrape.body, #"http_open_connections{listener="metrics"}"#) == 1)
            #expect(try Self.get("\(server.baseURL)/metrics", key: true).status == "404")

            // A key revoked through the API is refused on the metrics port at once, not after the
            // key cache's 5 s: both listeners share one authenticator.
            let issued = try Subprocess.curl([
                "-H", "Authorization: Bearer \(Self.adminKey)", "-H", "Content-Type: application/json",
                "--data", #"{"role": "admin", "name": "scraper"}"#, "\(server.baseURL)/v1/keys",
            ])
            let scraper = try WireDecoder.decodeResponse(IssuedAPIKey.self, from: Array(issued.stdout.utf8))
            let withScraper = ["-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(scraper.secret)", url]
            #expect(try Subprocess.curl(withScraper).stdout == "200")
            let revoked = try Subprocess.curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE", "-H", "Authorization: Bearer \(Self.adminKey)",
                "\(server.baseURL)/v1/keys/\(scraper.key.id)",
            ])
            #expect(revoked.stdout == "204")
            #expect(try Subprocess.curl(withScraper).stdout == "401")
        }
    }

    @Test("--metrics off: no /metrics route")
    func metricsOff() throws {
        try Self.withServer("metrics-off", environment: ["PERMISSION_METRICS": "off"]) { server, _ in
            let status = try Self.get("\(server.baseURL)/metrics").status
            #expect(status == "404")
        }
    }

    @Test("--max-connections-per-address 1: the second connection from 127.0.0.1 gets 429 and is counted, 127.0.0.2 is served")
    func perAddressShare() throws {
        try Self.withServer("share", arguments: ["--max-connections-per-address", "1"], environment: [:]) { server, _ in
            // Holds one keep-alive connection, opens a second, then scrapes from another loopback address.
            let script = """
                import socket, sys
                port = int(sys.argv[1])
                def connect(source):
                    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
                    return s
                def read_response(s):
                    data = b""
                    while b"\\r\\n\\r\\n" not in data:
                        chunk = s.recv(65536)
                        if not chunk: break
                        data += chunk
                    head, _, body = data.partition(b"\\r\\n\\r\\n")
                    length = 0
                    for line in head.split(b"\\r\\n")[1:]:
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length": length = int(value.strip())
                    while len(body) < length:
                        chunk = s.recv(65536)
                        if not chunk: break
                        body += chunk
                    return head.decode(), body.decode()
                held = connect("127.0.0.1")
                held.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n")
                print("held:", read_response(held)[0].split("\\r\\n")[0])
                over = connect("127.0.0.1")
                head, body = read_response(over)
                print("over:", head.split("\\r\\n")[0])
                print("retry-after:", "Retry-After: 1" in head, "close:", "Connection: close" in head)
                print("request-id:", "\\r\\nX-Request-Id: " in head)
                print("body:", body)
                other = connect("127.0.0.2")
                other.sendall(b"GET /metrics HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n")
                head, body = read_response(other)
                print("other:", head.split("\\r\\n")[0])
                for line in body.split("\\n"):
                    if line.startswith("http_connections_refused_total"): print(line)
                """
            let result = try Subprocess.python(script, [String(server.port)], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            let out = result.stdout
            #expect(out.contains("held: HTTP/1.1 200"), "\(out)")
            #expect(out.contains("over: HTTP/1.1 429"), "\(out)")
            #expect(out.contains("retry-after: True close: True"), "\(out)")
            #expect(out.contains("request-id: True"), "\(out)")
            #expect(out.contains("\"status\":429"), "\(out)")
            #expect(out.contains("\"type\":\"https://permissions.example/problems/too-many-requests\""), "\(out)")
            #expect(out.contains("other: HTTP/1.1 200"), "\(out)")
            #expect(out.contains("http_connections_refused_total{listener=\"api\"} 1"), "\(out)")
        }
    }

    /// A server whose open-file limit is below what --max-connections needs (a container's
    /// soft limit of 1,024, say) says so at start; once descriptors run out it closes the
    /// connection idle the longest for each new one, as at the connection cap, so idle clients
    /// cannot keep others out. A soft limit below the hard one is raised to it.
    @Test(
        "out of file descriptors before --max-connections, the longest idle connection makes room",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func outOfDescriptorsReclaimsIdleConnections() throws {
        let directory = try Paths.makeTemporaryDirectory("nofile")
        defer { Paths.removeTemporary(directory) }
        let low = try ServerProcess(
            database: directory.appendingPathComponent("low.sqlite").path, directory: directory,
            environment: Self.keyEnvironment, openFiles: (soft: 100, hard: 100))
        defer { low.killNow() }
        #expect(low.log().contains("the open-file limit is below what --max-connections needs"), "\(low.log())")
        // 150 clients, one after another: each asks once and stays open, idle. Past the limit
        // each is served only once an older one is closed for it.
        let script = """
            import socket, sys
            port = int(sys.argv[1])
            held, served = [], 0
            for i in range(150):
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
                s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n")
                data = b""
                try:
                    while b"\\r\\n\\r\\n" not in data:
                        chunk = s.recv(4096)
                        if not chunk: break
                        data += chunk
                except socket.timeout:
                    pass
                if data.startswith(b"HTTP/1.1 200"): served += 1
                held.append(s)
            print("served:", served)
            """
        let result = try Subprocess.python(script, [String(low.port)], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("served: 150"), "\(result.stdout) \(low.log())")
        #expect(low.log().contains("out of file descriptors before --max-connections"), "\(low.log())")
        let metrics = try Self.get("\(low.baseURL)/metrics")
        let reclaimed = Self.sample(metrics.body, "http_connections_reclaimed_total{listener=\"api\"}") ?? 0
        #expect(reclaimed >= 50, "\(metrics.body)")

        let raised = try ServerProcess(
            database: directory.appendingPathComponent("raised.sqlite").path, directory: directory,
            environment: Self.keyEnvironment, openFiles: (soft: 100, hard: 4_096))
        defer { raised.killNow() }
        let log = raised.log()
        #expect(log.contains("raised the open-file limit to its hard limit"), "\(log)")
        #expect(!log.contains("the open-file limit is below"), "\(log)")
    }

    /// Idle keep-alive connections hold a kilobyte of output buffer each, not their largest
    /// answer: 300 connections that each read the 200 KiB OpenAPI document once and stay open
    /// add a few MiB to the server's resident memory, not 60. (glibc's mmap threshold is pinned
    /// so that a freed buffer leaves the resident set at once.)
    @Test("idle keep-alive connections give a large answer's buffer back")
    func idleConnectionsKeepNoLargeBuffers() throws {
        try Self.withServer(
            "buffers", arguments: ["--max-connections-per-address", "0"],
            environment: Self.keyEnvironment.merging(["MALLOC_MMAP_THRESHOLD_": "131072"]) { $1 }
        ) { server, _ in
            let script = """
                import socket, sys
                port, pid = int(sys.argv[1]), sys.argv[2]
                def rss():
                    for line in open(f"/proc/{pid}/status"):
                        if line.startswith("VmRSS:"): return int(line.split()[1])
                def fetch(s):
                    s.sendall(b"GET /openapi.yaml HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n")
                    data = b""
                    while b"\\r\\n\\r\\n" not in data: data += s.recv(65536)
                    head, _, body = data.partition(b"\\r\\n\\r\\n")
                    length = [int(l.split(b":")[1]) for l in head.split(b"\\r\\n") if l.lower().startswith(b"content-length:")][0]
                    while len(body) < length: body += s.recv(65536)
                    return length
                warm = socket.create_connection(("127.0.0.1", port), timeout=10)
                size = fetch(warm)
                before = rss()
                held = []
                for i in range(300):
                    s = socket.create_connection(("127.0.0.1", port), timeout=10)
                    fetch(s)
                    held.append(s)
                print("size:", size, "grown-kib:", rss() - before)
                """
            let result = try Subprocess.python(script, [String(server.port), String(server.pid)], timeout: 120)
            #expect(result.status == 0, "\(result.stderr)")
            let fields = result.stdout.split(separator: " ")
            let size = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            let grown = fields.last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? .max
            #expect(size > 150_000, "\(result.stdout)")
            #expect(grown < 30 * 1024, "300 idle connections grew the server by \(grown) KiB: \(result.stdout)")
        }
    }
}
