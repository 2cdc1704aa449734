import Foundation
import LiveTestSupport
import PermissionWire
import PostgresTestServer
import TestProcesses
import TestThreads
import Testing

/// SPEC §12 and §6: no secret leaves the process except where it is the answer (the response of
/// `POST /v1/keys`, the stdout of `keys create`). A run uses every kind of key and every way a
/// key is refused, at the most verbose log level, then everything the run produced is searched
/// for every secret it used: the server's log (text and JSON), the subcommands' stderr,
/// `/metrics`, the audit log, the key list, the refusals' bodies, the database file and its WAL,
/// and the crash report of a server that received SIGSEGV.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct SecretsInOutputTests {
    /// What the run produced, by where it came from.
    private struct Produced {
        var outputs: [(source: String, bytes: [UInt8])] = []

        mutating func add(_ source: String, _ text: String) { outputs.append((source, Array(text.utf8))) }
        mutating func addFile(_ source: String, _ path: String) {
            if let data = FileManager.default.contents(atPath: path) { outputs.append((source, Array(data))) }
        }
    }

    @Test("no secret appears in anything a run produces", arguments: ["text", "json"])
    func noSecretInAnyOutput(logFormat: String) throws {
        let directory = try Paths.makeTemporaryDirectory("secrets-\(logFormat)")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("secrets.sqlite").path
        let bootstrap = "bootstrap-secret-\(logFormat)-0123456789abcdefghijklmnopqrstuv"
        var secrets = [bootstrap]
        var produced = Produced()
        let flags = ["--log-level", "trace", "--log-format", logFormat]
        let server = try ServerProcess(
            database: database, directory: directory, extraArguments: flags,
            environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": bootstrap])
        defer { server.killNow() }
        let base = server.baseURL

        func call(_ method: String, _ path: String, authorization: String?, body: String? = nil) throws -> ProcessResult {
            var arguments = ["-i", "-X", method]
            if let authorization { arguments += ["-H", "Authorization: \(authorization)"] }
            if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
            let result = try Subprocess.curl(arguments + ["\(base)\(path)"])
            return result
        }
        func issue(_ body: String) throws -> IssuedAPIKey {
            let result = try Subprocess.curl([
                "-H", "Authorization: Bearer \(bootstrap)", "-H", "Content-Type: application/json", "--data", body,
                "\(base)/v1/keys",
            ])
            return try WireDecoder.decodeResponse(IssuedAPIKey.self, from: Array(result.stdout.utf8))
        }

        // Keys of every role, through the API and the subcommand.
        _ = try call(
            "PUT", "/v1/apps/com.example.secret", authorization: "Bearer \(bootstrap)",
            body: #"{"name": "Secret", "purposeStrings": {"NSCameraUsageDescription": "Scans."}}"#)
        let admin = try issue(#"{"role": "admin", "name": "second admin"}"#)
        let auditor = try issue(#"{"role": "auditor", "name": "auditor"}"#)
        let app = try issue(#"{"role": "app", "app": "com.example.secret", "name": "app"}"#)
        secrets += [admin.secret, auditor.secret, app.secret]
        let created = try Subprocess.run(
            Paths.serverBinary, ["keys", "create", "--role", "consent", "--name", "cli", "--database", database] + flags)
        #expect(created.status == 0, "\(created.stderr)")
        let consent = String(created.stdout.split(whereSeparator: \.isWhitespace).last ?? "")
        #expect(consent.hasPrefix("pk_"))
        secrets.append(consent)
        produced.add("keys create stderr", created.stderr)
        // The server sees another process's commit once its readers' reused snapshots end (at
        // most 100 ms, `ReaderPool`): wait, bounded, for the key the subcommand made, slowly
        // enough that the refusals meanwhile stay within the failure limiter's burst of 10.
        let deadline = Date().addingTimeInterval(5)
        while try call("GET", "/v1/users/u1/settings", authorization: "Bearer \(consent)").stdout.hasPrefix("HTTP/1.1 401"),
            Date() < deadline
        {
            usleep(200_000)
        }

        // Each key used for what it may do.
        for (key, path) in [
            (admin.secret, "/v1/apps"), (auditor.secret, "/v1/audit"), (consent, "/v1/users/u1/settings"),
            (app.secret, "/v1/users/u1/apps/com.example.secret/authorizations/camera"),
        ] {
            let result = try call("GET", path, authorization: "Bearer \(key)")
            #expect(result.stdout.hasPrefix("HTTP/1.1 200"), "\(path): \(result.stdout)")
            produced.add("GET \(path)", result.stdout)
        }
        // An event stream of the auditor, ended by revoking its key.
        let streamOutput = directory.appendingPathComponent("stream.out")
        let stream = try ChildProcess(
            Paths.curl,
            ["-sS", "-N", "-i", "--max-time", "20", "-H", "Authorization: Bearer \(auditor.secret)", "\(base)/v1/events"],
            standardOutput: streamOutput.path)
        defer { stream.killAndWait() }
        _ = server.log(waitingFor: "/v1/events")

        // Every way a key is refused: wrong secret for a real id, too long, another scheme,
        // revoked (through the API and the subcommand), and enough failures for 429.
        let wrong = "pk_\(admin.key.id)_" + String(repeating: "W", count: 43)
        let tooLong = admin.secret + String(repeating: "x", count: 300)
        secrets += [wrong]
        var refusals = [
            try call("GET", "/v1/apps", authorization: "Bearer \(wrong)"),
            try call("GET", "/v1/apps", authorization: "bearer \(tooLong)"),
            try call("GET", "/v1/apps", authorization: "Basic \(admin.secret)"),
            try call("DELETE", "/v1/keys/\(auditor.key.id)", authorization: "Bearer \(admin.secret)"),
            try call("GET", "/v1/audit", authorization: "Bearer \(auditor.secret)"),
        ]
        #expect(stream.wait(timeout: 15) != nil, "the revoked key's stream ends")
        let revoked = try Subprocess.run(
            Paths.serverBinary, ["keys", "revoke", app.key.id, "--database", database] + flags)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        produced.add("keys revoke stderr", revoked.stderr)
        for _ in 0..<15 { refusals.append(try call("GET", "/v1/apps", authorization: "Bearer \(wrong)")) }
        #expect(refusals.contains { $0.stdout.hasPrefix("HTTP/1.1 429") }, "the failures reached the limit")
        #expect(refusals.contains { $0.stdout.hasPrefix("HTTP/1.1 401") })
        for (index, refusal) in refusals.enumerated() { produced.add("refusal \(index)", refusal.stdout) }
        produced.add("event stream", (try? String(contentsOf: streamOutput, encoding: .utf8)) ?? "")

        // What operators read.
        produced.add("/metrics", try call("GET", "/metrics", authorization: nil).stdout)
        produced.add("/v1/audit", try call("GET", "/v1/audit?limit=1000", authorization: "Bearer \(admin.secret)").stdout)
        produced.add("/v1/keys", try call("GET", "/v1/keys", authorization: "Bearer \(admin.secret)").stdout)
        produced.add("audit verify", try call("GET", "/v1/audit/verify", authorization: "Bearer \(admin.secret)").stdout)
        produced.addFile("database -wal (running)", database + "-wal")

        // A clean stop, then a second run on the same file that crashes.
        server.send(SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)
        produced.add("server log", server.log())
        produced.addFile("database", database)
        let crashed = try ServerProcess(
            database: database, directory: directory, extraArguments: flags,
            environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": bootstrap])
        defer { crashed.killNow() }
        _ = try call("GET", "/v1/apps", authorization: "Bearer \(admin.secret)")
        crashed.send(SIGSEGV)
        let report = crashed.log(waitingFor: "Backtrace took", timeout: 30)
        #expect(report.contains("Program crashed"), "the crash report is part of what is searched: \(report.suffix(2_000))")
        crashed.killNow()
        produced.add("crashed server log", crashed.log())

        #expect(produced.outputs.count >= 20)
        for secret in secrets {
            let forms = [Array(secret.utf8), Array(try Self.hexSHA256(secret).utf8)]
            for (source, bytes) in produced.outputs {
                for form in forms {
                    #expect(!Self.contains(bytes, form), "\(source) holds a secret (or its hash in hex)")
                }
            }
        }
        // The answers that are meant to carry a secret do: the search would find one.
        #expect(Self.contains(Array(created.stdout.utf8), Array(consent.utf8)))
    }

    @Test(
        "a password in a PostgreSQL --database is not in the log, nor in the keys create command the no-admin-key warning gives, which takes it from a file"
    )
    func postgresPasswordNotInAdminKeyHint() throws {
        let postgres = try PostgresServer.shared.get()
        let directory = try Paths.makeTemporaryDirectory("secrets-postgres-hint")
        defer { Paths.removeTemporary(directory) }
        let (uri, _) = try CopyToPostgresTests.freshDatabase(postgres)
        let server = try ServerProcess(
            database: uri + "&password=\(postgres.password)", directory: directory,
            environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": "", "PGPASSWORD": ""])
        defer { server.killNow() }
        let log = server.log(waitingFor: "no active admin key")
        #expect(!log.contains(postgres.password), "\(log)")
        let line = String(log.split(separator: "\n").first { $0.contains("no active admin key") } ?? "")
        let command = try #require(line.split(separator: "`").dropFirst().first, "the line quotes a command: \(line)")
        #expect(command.hasSuffix("--database '\(uri)' --database-password-file FILE"), "\(command)")

        // The command as written, with the password in a file, makes a key the server accepts.
        let passwordFile = directory.appendingPathComponent("db-password").path
        try Data("\(postgres.password)\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        let created = try Subprocess.run(
            Paths.serverBinary,
            [
                "keys", "create", "--role", "admin", "--name", "admin", "--database", uri, "--database-password-file",
                passwordFile, "--log-level", "error",
            ],
            environment: ["PERMISSION_AUDIT_KEY": ServerProcess.auditKey, "PGPASSWORD": ""])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(!created.stderr.contains(postgres.password))
        server.send(SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)
        #expect(!server.log().contains(postgres.password))
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    /// The SHA-256 of `text` in hex, as the store keeps a key (computed by Python's hashlib).
    private static func hexSHA256(_ text: String) throws -> String {
        let result = try Subprocess.python(
            "import hashlib, sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())", [text])
        let digest = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(digest.count == 64)
        return digest
    }
}
