import Foundation
import LiveTestSupport
import PostgresStore
import PostgresTestServer
import TestProcesses
import TestThreads
import Testing

/// The operator commands on a PostgreSQL URI and `copy`, with the real binary and the
/// tests' real PostgreSQL: a SQLite deployment built through the API moves into an empty
/// database with every row and the audit chain as it was.
@Suite(.serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct CopyToPostgresTests {
    /// Every row of each table, in key order, as comparable text: (SQLite query, PostgreSQL query).
    /// Booleans are 0/1 and hashes lower-case hex on both sides.
    static let tableQueries: [(table: String, sqlite: String, postgres: String)] = {
        let tables: [(String, [String], String)] = [
            ("apps", ["id", "name", "updated_at", "version"], "id"),
            ("app_purpose_strings", ["app", "key", "purpose"], "app, key"),
            ("app_localized_purpose_strings", ["app", "language", "key", "purpose"], "app, language, key"),
            ("services", ["id", "builtin", "specials"], "id"),
            ("service_levels", ["service", "rank", "level", "purpose_keys"], "service, rank"),
            ("policies", ["id", "service", "app", "user", "effect", "level", "updated_at"], "id"),
            ("user_settings", ["user", "location_services_enabled", "updated_at", "locale"], "user"),
            (
                "authorizations",
                [
                    "user", "app", "service", "status", "level", "provisional", "once", "expires_at", "reason", "purpose",
                    "purpose_hash", "declined_levels", "updated_at", "version", "purpose_language", "button_confirmed",
                    "purpose_key",
                ], "user, app, service"
            ),
            (
                "prompts",
                [
                    "id", "user", "app", "service", "kind", "requested_level", "options", "purpose", "purpose_key", "state",
                    "created_at", "expires_at", "ended_at", "choice", "purpose_language", "background_uses",
                ], "id"
            ),
            (
                "location_alerts",
                [
                    "user", "app", "started_at", "alerts_shown", "last_alert_at", "uses_since_alert", "recent_uses",
                    "due_at", "app_version",
                ], "user, app"
            ),
            ("api_keys", ["id", "role", "app", "name", "secret_hash", "created_at", "revoked_at"], "id"),
            ("audit_subjects", ["user", "pseudonym", "wrapped_key", "created_at"], "user"),
            ("version_floor", ["id", "version"], "id"),
            (
                "audit",
                [
                    "seq", "at", "actor_key", "actor_role", "action", "user", "app", "service", "from_status", "from_level",
                    "from_provisional", "from_once", "to_status", "to_level", "to_provisional", "to_once", "reason", "purpose",
                    "prompt_id", "request_id", "detail", "purpose_hash", "prev_hash", "hash", "personal",
                ], "seq"
            ),
        ]
        let booleans: Set = ["builtin", "location_services_enabled", "provisional", "once", "button_confirmed"]
        return tables.map { table, columns, order in
            let sqlite = columns.map { $0 == "secret_hash" ? "lower(hex(secret_hash))" : $0 }
            let postgres = columns.map { column in
                if column == "user" { return "user_id" }
                if column == "secret_hash" { return "encode(secret_hash, 'hex')" }
                return booleans.contains(column) ? "\(column)::int" : column
            }
            return (
                table,
                "SELECT \(sqlite.joined(separator: ", ")) FROM \(table) ORDER BY \(order)",
                "SELECT \(postgres.joined(separator: ", ")) FROM \(table) ORDER BY \(order.replacingOccurrences(of: "user", with: "user_id"))"
            )
        }
    }()

    /// A fresh database of the tests' PostgreSQL, as a URI for the Unix socket (no password in it).
    static func freshDatabase(_ server: PostgresServer) throws -> (uri: String, name: String) {
        let conninfo = try server.freshDatabase()
        guard let name = conninfo.split(separator: " ").first(where: { $0.hasPrefix("dbname=") })?.dropFirst(7) else {
            throw ServerProcess.StartupError(description: "no dbname in the test database's connection string")
        }
        return ("postgresql://postgres@/\(name)?host=\(server.directory)&port=\(server.port)", String(name))
    }

    static func psql(_ server: PostgresServer, _ database: String, _ sql: String) throws -> String {
        let result = try Subprocess.run(
            try PostgresServer.binDirectory() + "/psql",
            [
                "-X", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1", "-c", sql,
                "host=\(server.directory) port=\(server.port) user=postgres dbname=\(database)",
            ],
            environment: ["PGPASSWORD": server.password])
        #expect(result.status == 0, "psql: \(result.stderr)")
        return result.stdout
    }

    static func sqlite(_ database: String, _ sql: String) throws -> String {
        let result = try Subprocess.run(Paths.sqlite3, ["-separator", "|", database, sql])
        #expect(result.status == 0, "sqlite3: \(result.stderr)")
        return result.stdout
    }

    /// Changes through the API of a server on `database`: an app with a translated purpose
    /// string, a custom service, a prompt answered in the user's language and one left pending,
    /// a set authorization, user settings, a policy, a key issued and one revoked.
    static func buildDeployment(_ database: String, directory: URL) throws {
        let server = try ServerProcess(database: database, directory: directory)
        defer { server.killNow() }
        let base = server.baseURL
        func call(_ method: String, _ path: String, _ body: String? = nil) throws -> String {
            var arguments = ["-f", "-X", method, "\(base)\(path)"]
            if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
            let result = try Subprocess.adminCurl(arguments)
            #expect(result.status == 0, "\(method) \(path): \(result.stdout) \(result.stderr)")
            return result.stdout
        }
        _ = try call(
            "PUT", "/v1/apps/com.example.maps",
            #"""
            {"name": "Maps", "version": "2.4", "purposeStrings": {"NSLocationWhenInUseUsageDescription": "Directions.",
             "NSLocationAlwaysAndWhenInUseUsageDescription": "Directions in the background.",
             "NSCameraUsageDescription": "Scan codes.", "XHealthRecordsReadUsageDescription": "Steps."},
             "localizedPurposeStrings": {"de": {"NSLocationWhenInUseUsageDescription": "Wegbeschreibung."}}}
            """#)
        _ = try call("PUT", "/v1/users/u42/settings", #"{"locationServicesEnabled": true, "locale": "de-CH"}"#)
        _ = try call(
            "PUT", "/v1/services/healthRecords",
            #"""
            {"levels": ["read", "readWrite"], "purposeKeys": {"read": ["XHealthRecordsReadUsageDescription"],
             "readWrite": ["XHealthRecordsReadUsageDescription", "XHealthRecordsWriteUsageDescription"]}}
            """#)
        let requested = try call(
            "POST", "/v1/users/u42/apps/com.example.maps/authorizations/location/request", #"{"level": "whenInUse"}"#)
        #expect(requested.contains(#""purposeLanguage":"de""#), "the prompt in the user's language: \(requested)")
        let prompt = try firstID(in: requested[(requested.range(of: "\"prompt\"")?.upperBound ?? requested.startIndex)...])
        _ = try call("POST", "/v1/prompts/\(prompt)/decision", #"{"choice": "allowWhileUsing"}"#)
        _ = try call("POST", "/v1/users/u43/apps/com.example.maps/authorizations/location/request", #"{"level": "whenInUse"}"#)
        _ = try call(
            "PUT", "/v1/users/u44/apps/com.example.maps/authorizations/camera", #"{"status": "authorized", "level": "full"}"#)
        _ = try call("PUT", "/v1/users/u45/settings", #"{"locationServicesEnabled": false}"#)
        _ = try call(
            "PUT", "/v1/users/u46/apps/com.example.maps/authorizations/location", #"{"status": "authorized", "level": "always"}"#)
        let used = try call("POST", "/v1/users/u46/apps/com.example.maps/lifecycle", #"{"event": "backgroundLocationUsed"}"#)
        #expect(used.contains(#""usageRecorded":true"#), "a location alert schedule to copy: \(used)")
        _ = try call(
            "PUT", "/v1/policies/no-camera-u44", #"{"service": "camera", "app": null, "user": "u44", "effect": "restrict"}"#)
        // An erased user whose record had reached version 2: the version floor to copy.
        for status in ["authorized", "denied"] {
            let level = status == "authorized" ? #", "level": "full""# : ""
            _ = try call(
                "PUT", "/v1/users/u47/apps/com.example.maps/authorizations/camera", #"{"status": "\#(status)"\#(level)}"#)
        }
        _ = try call("DELETE", "/v1/users/u47")
        _ = try call("POST", "/v1/keys", #"{"role": "auditor", "name": "kept"}"#)
        let issued = try call("POST", "/v1/keys", #"{"role": "app", "app": "com.example.maps", "name": "gone"}"#)
        _ = try call("DELETE", "/v1/keys/\(try firstID(in: issued[...]))")
        server.send(SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)
    }

    /// The value of the first `"id"` member in `json`.
    static func firstID(in json: Substring) throws -> String {
        guard let range = json.range(of: #""id"\s*:\s*"[^"]+""#, options: .regularExpression) else {
            throw ServerProcess.StartupError(description: "no id in \(json)")
        }
        let member = json[range]
        return String(member[member.index(after: member.dropLast().lastIndex(of: "\"")!)...].dropLast())
    }

    @Test(
        "copy moves a SQLite deployment into an empty PostgreSQL database: every row, the chain verifying with the same head; the other commands on a URI"
    )
    func copyThenOperateOnPostgres() throws {
        let postgres = try PostgresServer.shared.get()
        let directory = try Paths.makeTemporaryDirectory("copy")
        defer { Paths.removeTemporary(directory) }
        let file = directory.appendingPathComponent("source.sqlite").path
        try Self.buildDeployment(file, directory: directory)
        let passwordFile = directory.appendingPathComponent("pgpassword").path
        let keyFile = file + ".audit-key"
        try Data("\(postgres.password)\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        let (uri, name) = try Self.freshDatabase(postgres)
        var outputs: [String] = []
        func server(_ arguments: [String]) throws -> ProcessResult {
            // The copy keeps the file's users' keys: every command on the copy takes the file's server key.
            let result = try SubcommandTests.server(
                arguments + ["--database-password-file", passwordFile],
                environment: ["PGPASSWORD": "", "PERMISSION_AUDIT_KEY_FILE": keyFile])
            outputs.append(result.stdout + result.stderr)
            return result
        }

        let onFile = try SubcommandTests.server(["audit", "verify", "--database", file])
        #expect(onFile.status == 0 && onFile.stdout.hasPrefix("audit chain intact:"), "\(onFile.stdout)")
        // An operator who ran `migrate` on the target first, with another key (or a copy that
        // failed there), bound the empty database to that key: the copy takes the file's over.
        let otherKey = try AuditKeyRotationTests.keyFile(directory, "other.key", byte: 9)
        let premigrated = try server(["migrate", "--database", uri, "--audit-key-file", otherKey])
        #expect(premigrated.status == 0, "\(premigrated.stderr)")
        let copied = try server(["copy", "--from", file, "--to", uri, "--progress-every", "2"])
        #expect(copied.status == 0, "\(copied.stdout) \(copied.stderr)")
        #expect(copied.stdout.contains(onFile.stdout.trimmingCharacters(in: .newlines)), "\(copied.stdout)")
        #expect(copied.stdout.contains("row(s) of audit") && copied.stderr.contains("copying rows"))

        let onPostgres = try server(["audit", "verify", "--database", uri])
        #expect(onPostgres.status == 0 && onPostgres.stdout == onFile.stdout, "\(onPostgres.stdout) \(onPostgres.stderr)")
        let keysOnFile = try SubcommandTests.server(["keys", "list", "--database", file])
        let keysOnPostgres = try server(["keys", "list", "--database", uri])
        #expect(keysOnPostgres.status == 0 && keysOnPostgres.stdout == keysOnFile.stdout)
        #expect(keysOnFile.stdout.contains("revoked") && keysOnFile.stdout.contains("active"))

        #expect(try Self.sqlite(file, "SELECT version FROM version_floor") == "2\n", "the erased record's version")
        for (table, sqliteQuery, postgresQuery) in Self.tableQueries {
            let expected = try Self.sqlite(file, sqliteQuery)
            #expect(!expected.isEmpty || table == "nothing", "\(table) is empty at the source")
            #expect(try Self.psql(postgres, name, postgresQuery) == expected, "\(table) differs")
        }

        // The copy is refused into a database that holds data now, and the data stays.
        let again = try server(["copy", "--from", file, "--to", uri])
        #expect(again.status == 73 && again.stderr.contains("the target database is not empty"), "\(again.stderr)")
        // And the other key opens it no more.
        let withOther = try server(["keys", "list", "--database", uri, "--audit-key-file", otherKey])
        #expect(withOther.status == 78 && withOther.stderr.contains("does not match"), "\(withOther.stderr)")
        #expect(try server(["audit", "verify", "--database", uri]).stdout == onFile.stdout)

        // keys on the URI write there; serve serves the copy; backup refuses it.
        let created = try server(["keys", "create", "--role", "admin", "--name", "pg", "--database", uri])
        #expect(created.status == 0 && created.stdout.contains("created admin key"))
        // A password written in the URI is redacted in the startup log line too.
        let secret = try #require(postgres.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let inline = uri.replacingOccurrences(of: "postgres@", with: "postgres:\(secret)@")
        let served = try ServerProcess(
            database: inline, directory: directory, environment: ["PERMISSION_AUDIT_KEY_FILE": keyFile])
        let ready = try Subprocess.curl(["-o", "/dev/null", "-w", "%{http_code}", served.baseURL + "/readyz"])
        #expect(ready.stdout == "200")
        let page = try Subprocess.adminCurl([served.baseURL + "/v1/audit?limit=1000"])
        #expect(page.stdout.contains("\"seq\":1}") && page.stdout.contains("key.created"), "\(page.stdout)")
        served.send(SIGTERM)
        #expect(served.waitForExit(timeout: 15) == 0)
        #expect(served.log().contains("postgres:***@"), "\(served.log())")
        #expect(!served.log().contains(postgres.password) && !served.log().contains(secret))
        let backedUp = try server(["backup", "--to", directory.appendingPathComponent("b.sqlite").path, "--database", uri])
        #expect(backedUp.status == 64 && backedUp.stderr.contains("pg_dump"), "\(backedUp.stderr)")

        // migrate on a URI: applies, then up to date.
        let (empty, _) = try Self.freshDatabase(postgres)
        let first = try server(["migrate", "--database", empty])
        #expect(first.status == 0 && first.stdout.contains("applied 1-permission-store"), "\(first.stdout) \(first.stderr)")
        let second = try server(["migrate", "--database", empty])
        #expect(second.status == 0 && second.stdout.contains("up to date"), "\(second.stdout) \(second.stderr)")
        #expect(second.stdout.contains("password=***"))

        // The password given through the file never appears in any output.
        for output in outputs { #expect(!output.contains(postgres.password), "password in: \(output)") }

        // A wrong password: a redacted error.
        let wrongFile = directory.appendingPathComponent("wrong").path
        let wrong = "wrong-Pa55word-\(UUID().uuidString)"
        try Data(wrong.utf8).write(to: URL(fileURLWithPath: wrongFile))
        let refused = try SubcommandTests.server(
            ["migrate", "--database", empty, "--database-password-file", wrongFile],
            environment: ["PGPASSWORD": "", "PERMISSION_AUDIT_KEY_FILE": keyFile])
        #expect(refused.status == 69 && refused.stderr.contains("password=***"), "\(refused.stderr)")
        #expect(refused.stderr.contains("authentication failed"), "\(refused.stderr)")
        #expect(!(refused.stdout + refused.stderr).contains(wrong))

        // A database that cannot be reached: 69 (worth retrying) from every command, as `audit
        // verify` and `audit rotate-key` always did, never the 1 of any other failure.
        let nowhere = "postgres://postgres@127.0.0.1:1/nowhere"
        let commands: [[String]] = [
            ["migrate", "--database", nowhere], ["keys", "list", "--database", nowhere],
            ["serve", "--port", "0", "--database", nowhere, "--database-start-timeout", "0"],
            ["copy", "--from", file, "--to", nowhere],
            ["audit", "verify", "--database", nowhere],
        ]
        for command in commands {
            let unreached = try server(command)
            #expect(unreached.status == 69, "\(command): \(unreached.stdout) \(unreached.stderr)")
            #expect(unreached.stderr.contains("Connection refused"), "\(command): \(unreached.stderr)")
        }
    }

    @Test(
        "a copy whose connection is lost before its commit exits 69 (worth running again) saying nothing was copied, and the copy run again is made"
    )
    func copyLosingItsConnection() throws {
        let postgres = try PostgresServer.shared.get()
        let directory = try Paths.makeTemporaryDirectory("copy-lost")
        defer { Paths.removeTemporary(directory) }
        let file = directory.appendingPathComponent("source.sqlite").path
        #expect(try SubcommandTests.server(["keys", "create", "--role", "admin", "--name", "a", "--database", file]).status == 0)
        let (uri, name) = try Self.freshDatabase(postgres)
        let environment = ["PGPASSWORD": postgres.password, "PERMISSION_AUDIT_KEY_FILE": file + ".audit-key"]
        #expect(try SubcommandTests.server(["migrate", "--database", uri], environment: environment).status == 0)
        // Another session holds the audit chain's head, which the copy locks first: the copy waits
        // there, before it writes anything, until its connection is cut.
        let holder = try ChildProcess(
            try PostgresServer.binDirectory() + "/psql",
            [
                "-X", "-v", "ON_ERROR_STOP=1", "-c",
                "BEGIN; SELECT 1 FROM audit_head WHERE id = 1 FOR UPDATE; SELECT pg_sleep(30); COMMIT;",
                "host=\(postgres.directory) port=\(postgres.port) user=postgres dbname=\(name) application_name=holder",
            ],
            environment: ["PGPASSWORD": postgres.password])
        defer { holder.killAndWait() }
        let copyLog = directory.appendingPathComponent("copy.log").path
        let copy = try ChildProcess(
            Paths.serverBinary, ["copy", "--from", file, "--to", uri],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, standardOutput: copyLog,
            standardError: copyLog)
        defer { copy.killAndWait() }
        let waiting = try ReplicaTests.within(10) {
            try Self.psql(
                postgres, "postgres",
                "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(name)' AND wait_event_type = 'Lock'"
            ).trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        #expect(waiting != nil, "the copy never waited for the head")
        _ = try Self.psql(postgres, "postgres", "ALTER DATABASE \"\(name)\" ALLOW_CONNECTIONS false")
        _ = try Self.psql(
            postgres, "postgres", "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(name)'")
        let ended = copy.wait(timeout: 20)
        _ = try Self.psql(postgres, "postgres", "ALTER DATABASE \"\(name)\" ALLOW_CONNECTIONS true")
        let log = (try? String(contentsOfFile: copyLog, encoding: .utf8)) ?? ""
        #expect(ended == .exited(69), "\(String(describing: ended)): \(log)")
        #expect(log.contains("copy failed, nothing was copied"), "\(log)")
        // Ended by the cut connection, not by its own lock wait (5 s) running out first.
        #expect(!log.contains("lock timeout") && !log.contains("55P03"), "\(log)")
        #expect(!log.contains(postgres.password))

        let again = try SubcommandTests.server(["copy", "--from", file, "--to", uri], environment: environment)
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
    }
}
