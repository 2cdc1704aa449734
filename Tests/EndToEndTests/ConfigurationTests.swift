import Foundation
import LiveTestSupport
import PermissionWire
import TestThreads
import Testing

/// Settings precedence (flags > environment > config file > default) and refusal of bad values.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct ConfigurationTests {
    @Test("flags beat the environment, which beats the config file, which beats the defaults")
    func precedence() throws {
        let directory = try Paths.makeTemporaryDirectory("precedence")
        defer { Paths.removeTemporary(directory) }
        let file = directory.appendingPathComponent("permission.conf")
        try Data(
            """
            # prompt-ttl is overridden twice, once-ttl once, idle-timeout not at all
            PERMISSION_PROMPT_TTL=111
            PERMISSION_ONCE_TTL=222
            PERMISSION_IDLE_TIMEOUT="33"
            PERMISSION_EVENT_LOOPS=3

            """.utf8
        ).write(to: file)
        let server = try ServerProcess(
            database: directory.appendingPathComponent("p.sqlite").path, directory: directory,
            extraArguments: ["--prompt-ttl", "45"],
            environment: ["PERMISSION_CONFIG": file.path, "PERMISSION_PROMPT_TTL": "77", "PERMISSION_ONCE_TTL": "88"])
        defer { server.killNow() }
        let log = server.log()
        #expect(log.contains("prompt-ttl=45 (flag)"), "\(log)")
        #expect(log.contains("once-ttl=88 (environment)"), "\(log)")
        #expect(log.contains("idle-timeout=33 (file)"), "\(log)")
        #expect(log.contains("max-connections=1024 (default)"), "\(log)")
        #expect(log.contains("event-loops=3 (file)"), "\(log)")
        #expect(log.contains("port=0 (flag)"), "\(log)")

        // The flag's prompt TTL is the one in force: a prompt expires 45 s after it is created.
        let register = try Subprocess.adminCurl([
            "-X", "PUT", "-H", "Content-Type: application/json",
            "--data", #"{"name": "Cam", "purposeStrings": {"NSCameraUsageDescription": "Scan."}}"#,
            "\(server.baseURL)/v1/apps/com.example.cam",
        ])
        #expect(register.status == 0)
        let request = try Subprocess.adminCurl([
            "-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"level": "full"}"#,
            "\(server.baseURL)/v1/users/u1/apps/com.example.cam/authorizations/camera/request",
        ])
        let outcome = try StrictJSON.parse(Array(request.stdout.utf8)).objectValue
        let prompt = try #require(outcome?["prompt"]?.objectValue, "\(request.stdout)")
        let created = try #require(prompt["createdAt"]?.stringValue.flatMap(Self.date))
        let expires = try #require(prompt["expiresAt"]?.stringValue.flatMap(Self.date))
        #expect(abs(expires.timeIntervalSince(created) - 45) < 0.01)
    }

    @Test("the failed-authentication allowance comes from the config file, the environment or the flag")
    func failedAuthenticationAllowance() throws {
        let directory = try Paths.makeTemporaryDirectory("allowance")
        defer { Paths.removeTemporary(directory) }
        let file = directory.appendingPathComponent("permission.conf")
        try Data("PERMISSION_AUTH_FAILURE_BURST=7\nPERMISSION_AUTH_FAILURE_REFILL=1\n".utf8).write(to: file)
        let cases: [(arguments: [String], environment: [String: String], burst: Int, source: String)] = [
            ([], ["PERMISSION_CONFIG": file.path], 7, "file"),
            ([], ["PERMISSION_CONFIG": file.path, "PERMISSION_AUTH_FAILURE_BURST": "3"], 3, "environment"),
            (["--auth-failure-burst", "2"], ["PERMISSION_AUTH_FAILURE_BURST": "3"], 2, "flag"),
        ]
        for (index, entry) in cases.enumerated() {
            let server = try ServerProcess(
                database: directory.appendingPathComponent("p\(index).sqlite").path, directory: directory,
                extraArguments: entry.arguments, environment: entry.environment)
            defer { server.killNow() }
            #expect(server.log().contains("auth-failure-burst=\(entry.burst) (\(entry.source))"), "\(server.log())")
            // One curl run, so that the attempts come faster than the allowance refills (1/s).
            var arguments = ["-w", "%{http_code}\\n", "-H", "Authorization: Bearer pk_0123456789abcdef_wrong"]
            for _ in 0..<(entry.burst + 1) { arguments += ["-o", "/dev/null", "\(server.baseURL)/v1/apps"] }
            let result = try Subprocess.curl(arguments)
            let codes = result.stdout.split(separator: "\n").map(String.init)
            #expect(codes == Array(repeating: "401", count: entry.burst) + ["429"], "\(entry.source): \(codes)")
        }
    }

    @Test(
        "invalid settings are refused before anything starts, naming the setting and its source",
        arguments: [
            (["--port", "70000"], [:], "--port / PERMISSION_PORT", "(from flag)"),
            ([], ["PERMISSION_LOG_FORMAT": "xml"], "--log-format / PERMISSION_LOG_FORMAT", "(from environment)"),
            (["--prompt-ttl", "soon"], [:], "--prompt-ttl / PERMISSION_PROMPT_TTL", "integer"),
            (["--config", "/nonexistent/permission.conf"], [:], "cannot read config file", "/nonexistent"),
            (["--host", ""], [:], "--host / PERMISSION_HOST", "non-empty"),
            (["--auth-failure-burst", "0"], [:], "--auth-failure-burst / PERMISSION_AUTH_FAILURE_BURST", "integer"),
            (
                [], ["PERMISSION_AUTH_FAILURE_REFILL": "fast"], "--auth-failure-refill / PERMISSION_AUTH_FAILURE_REFILL",
                "(from environment)"
            ),
            (["--event-loops", "1000"], [:], "--event-loops / PERMISSION_EVENT_LOOPS", "integer"),
            (["--export-timeout", "0"], [:], "--export-timeout / PERMISSION_EXPORT_TIMEOUT", "1...86400"),
            (["--read-cache-entries=-1"], [:], "--read-cache-entries / PERMISSION_READ_CACHE_ENTRIES", "0...100000000"),
            (
                [], ["PERMISSION_READ_CACHE_ENTRIES": "all"], "--read-cache-entries / PERMISSION_READ_CACHE_ENTRIES",
                "(from environment)"
            ),
            (
                ["--max-connections-per-address=-1"], [:],
                "--max-connections-per-address / PERMISSION_MAX_CONNECTIONS_PER_ADDRESS", "0...1000000"
            ),
            (
                [], ["PERMISSION_MAX_CONNECTIONS_PER_ADDRESS": "many"],
                "--max-connections-per-address / PERMISSION_MAX_CONNECTIONS_PER_ADDRESS", "(from environment)"
            ),
            (
                ["--max-event-streams-per-key", "0"], [:], "--max-event-streams-per-key / PERMISSION_MAX_EVENT_STREAMS_PER_KEY",
                "1...128"
            ),
            // A password file beside a SQLite path (any readable file with a first line will do).
            (
                ["--database-password-file", "/etc/os-release"], [:],
                "--database-password-file / PERMISSION_DATABASE_PASSWORD_FILE", "only with a PostgreSQL URI"
            ),
            (
                [], ["PERMISSION_MAX_EVENT_STREAMS": "500"], "--max-event-streams / PERMISSION_MAX_EVENT_STREAMS",
                "(from environment)"
            ),
            (["--no-such-flag"], [:], "Unknown option", "--no-such-flag"),
            (["--consent-session-ttl", "59"], [:], "--consent-session-ttl / PERMISSION_CONSENT_SESSION_TTL", "60...86400"),
            (["--ended-retention", "315360001"], [:], "--ended-retention / PERMISSION_ENDED_RETENTION", "0...315360000"),
            (
                [], ["PERMISSION_ENDED_RETENTION": "a month"], "--ended-retention / PERMISSION_ENDED_RETENTION",
                "(from environment)"
            ),
            (["--database-pool-size", "1"], [:], "--database-pool-size / PERMISSION_DATABASE_POOL_SIZE", "2...1000"),
            // Settings that would do nothing here are said, not ignored.
            (
                [], ["PERMISSION_DATABASE_POOL_SIZE": "8"], "--database-pool-size / PERMISSION_DATABASE_POOL_SIZE",
                "only with a PostgreSQL URI"
            ),
            (
                ["--database-start-timeout", "30"], [:], "--database-start-timeout / PERMISSION_DATABASE_START_TIMEOUT",
                "only with a PostgreSQL URI"
            ),
            (
                [], ["PERMISSION_DATABASE_START_TIMEOUT": "3601"],
                "--database-start-timeout / PERMISSION_DATABASE_START_TIMEOUT", "0...3600"
            ),
            (["--metrics", "off", "--metrics-port", "9999"], [:], "--metrics-port / PERMISSION_METRICS_PORT", "--metrics off"),
            (
                [], ["PERMISSION_DATABASE_POOL_SIZE": "lots"], "--database-pool-size / PERMISSION_DATABASE_POOL_SIZE",
                "(from environment)"
            ),
            (["--max-grant-duration", "59"], [:], "--max-grant-duration / PERMISSION_MAX_GRANT_DURATION", "60...315360000"),
            (["--max-pending-prompts", "0"], [:], "--max-pending-prompts / PERMISSION_MAX_PENDING_PROMPTS", "1...100"),
            (
                ["--location-alert-intervals", "3,1x"], [:],
                "--location-alert-intervals / PERMISSION_LOCATION_ALERT_INTERVALS", "comma-separated durations"
            ),
            (
                [], ["PERMISSION_LOCATION_ALERT_INTERVALS": "0s"],
                "--location-alert-intervals / PERMISSION_LOCATION_ALERT_INTERVALS", "(from environment)"
            ),
            (
                ["--location-alert-threshold", "0"], [:],
                "--location-alert-threshold / PERMISSION_LOCATION_ALERT_THRESHOLD", "1...1000000"
            ),
            (
                [], ["PERMISSION_MAX_PENDING_PROMPTS": "101"], "--max-pending-prompts / PERMISSION_MAX_PENDING_PROMPTS",
                "(from environment)"
            ),
            (
                [], ["PERMISSION_CONSENT_COOKIE_SECURE": "maybe"], "--consent-cookie-secure / PERMISSION_CONSENT_COOKIE_SECURE",
                "true, false"
            ),
            (["--public-url", "ftp://example.com"], [:], "--public-url / PERMISSION_PUBLIC_URL", "absolute http or https URL"),
            (["--public-url", "https://example.com/?a=1"], [:], "--public-url / PERMISSION_PUBLIC_URL", "query"),
            (["--public-url", "https://example.com/#x"], [:], "--public-url / PERMISSION_PUBLIC_URL", "(from flag)"),
            (["--public-url", "/consent"], [:], "--public-url / PERMISSION_PUBLIC_URL", "(from flag)"),
            (["--public-url", "https://example.com/base"], [:], "--public-url / PERMISSION_PUBLIC_URL", "without path"),
            (
                [], ["PERMISSION_PUBLIC_URL": "https://user@example.com"], "--public-url / PERMISSION_PUBLIC_URL",
                "(from environment)"
            ),
        ] as [([String], [String: String], String, String)])
    func invalidSettingsAreRejected(arguments: [String], environment: [String: String], names: String, detail: String) throws {
        let directory = try Paths.makeTemporaryDirectory("invalid")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("never.sqlite").path
        let result = try Subprocess.run(
            Paths.serverBinary, ["serve", "--database", database] + arguments, environment: environment, timeout: 20)
        #expect(result.status == 64, "exit status \(result.status): \(result.stderr)")
        #expect(result.stderr.contains(names), "\(result.stderr)")
        #expect(result.stderr.contains(detail), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database), "nothing was created")
    }

    /// libpq's `key=value` form is not taken: read as a path, it became a SQLite file named
    /// after it, password and all. Refused (64), with the password hidden, and nothing created.
    @Test("a key=value connection string in --database is refused without showing its password")
    func keyValueConnectionStringIsRefused() throws {
        let value = "host=/nonexistent-socket-dir dbname=app password=S3cretPassw0rdXYZ"
        for (arguments, environment) in [
            (["migrate", "--database", value], [String: String]()), (["serve"], ["PERMISSION_DATABASE": " " + value]),
        ] {
            let result = try Subprocess.run(Paths.serverBinary, arguments, environment: environment, timeout: 20)
            defer { try? FileManager.default.removeItem(atPath: "host=") }
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("key=value connection string is not taken"), "\(result.stderr)")
            #expect(result.stderr.contains("password=***"), "\(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("S3cretPassw0rdXYZ"))
            #expect(!FileManager.default.fileExists(atPath: "host="), "nothing was created")
        }
    }

    /// A raw `@` in a URI's password: libpq would connect to host `ter2XYZ@db` with password
    /// `hun`, and its error would quote the rest of the password. Refused (64) before that.
    @Test("a PostgreSQL URI with a raw '@' in its password is refused without showing it")
    func ambiguousURIIsRefused() throws {
        let value = "postgresql://app:hunQ@ter2XYZ@127.0.0.1:1/app"
        for (arguments, environment) in [
            (["migrate", "--database", value], [String: String]()), (["serve"], ["PERMISSION_DATABASE": value]),
        ] {
            let result = try Subprocess.run(Paths.serverBinary, arguments, environment: environment, timeout: 20)
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("percent-encode them (%40, %2F, %3F)"), "\(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("ter2XYZ"), "\(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("hunQ"), "\(result.stderr)")
        }
        let copy = try Subprocess.run(
            Paths.serverBinary, ["copy", "--from", "/nonexistent.sqlite", "--to", value], environment: [:], timeout: 20)
        #expect(copy.status == 64, "\(copy.stderr)")
        #expect(!(copy.stdout + copy.stderr).contains("ter2XYZ"), "\(copy.stderr)")
    }

    @Test("a config file written with CRLF line ends is read as one with LF")
    func configFileWithCRLFLineEnds() throws {
        let directory = try Paths.makeTemporaryDirectory("crlf")
        defer { Paths.removeTemporary(directory) }
        let file = directory.appendingPathComponent("permission.conf")
        try Data("# written on Windows\r\nPERMISSION_PROMPT_TTL=120\r\nPERMISSION_ONCE_TTL='900'\r\n".utf8).write(to: file)
        let server = try ServerProcess(
            database: directory.appendingPathComponent("crlf.sqlite").path, directory: directory,
            environment: ["PERMISSION_CONFIG": file.path])
        defer { server.killNow() }
        #expect(server.log().contains("prompt-ttl=120 (file)") && server.log().contains("once-ttl=900 (file)"), "\(server.log())")
    }

    @Test("a config file line naming an unknown setting is refused with its line number")
    func unknownConfigFileSetting() throws {
        let directory = try Paths.makeTemporaryDirectory("badfile")
        defer { Paths.removeTemporary(directory) }
        let file = directory.appendingPathComponent("bad.conf")
        try Data("PERMISSION_PORT=0\nPERMISSION_PROT=1\n".utf8).write(to: file)
        let result = try Subprocess.run(Paths.serverBinary, ["serve", "--config", file.path], timeout: 20)
        #expect(result.status == 64)
        #expect(result.stderr.contains("line 2: unknown setting PERMISSION_PROT"), "\(result.stderr)")
    }

    @Test("a PERMISSION_ variable of the environment that is no setting is named in a warning, with the one meant")
    func unknownEnvironmentVariablesAreWarnedOf() throws {
        let directory = try Paths.makeTemporaryDirectory("badenv")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("m.sqlite").path
        let result = try SubcommandTests.server(
            ["migrate", "--database", database],
            environment: [
                "PERMISSION_AUDIT_KEYFILE": directory.appendingPathComponent("my.key").path, "PERMISSION_LOG_FORMT": "json",
                "PERMISSION_WHATEVER_ELSE": "1", "PERMISSION_URL": "http://127.0.0.1:8080", "PERMISSION_KEY": "pk_x",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("ignoring an environment variable") }
        #expect(warnings.count == 3, "\(result.stderr)")
        #expect(warnings.contains { $0.contains("did-you-mean=PERMISSION_AUDIT_KEY_FILE variable=PERMISSION_AUDIT_KEYFILE") })
        #expect(warnings.contains { $0.contains("did-you-mean=PERMISSION_LOG_FORMAT variable=PERMISSION_LOG_FORMT") })
        #expect(warnings.contains { $0.hasSuffix("variable=PERMISSION_WHATEVER_ELSE") }, "no guess when none is near")
        #expect(!result.stderr.contains("PERMISSION_URL") && !result.stderr.contains("PERMISSION_KEY="), "permctl's are expected")
    }

    @Test(
        "each subcommand's --help lists the settings it reads, --help-hidden all of them",
        arguments: [
            (["serve"], nil),
            (
                ["migrate"],
                ["--database", "--database-password-file", "--audit-key-file", "--log-format", "--log-level", "--config"]
            ),
            (
                ["keys", "create"],
                ["--database", "--database-password-file", "--audit-key-file", "--log-format", "--log-level", "--config"]
            ),
            (
                ["audit", "rotate-key"],
                ["--database", "--database-password-file", "--audit-key-file", "--log-format", "--log-level", "--config"]
            ),
            (
                ["backup"],
                ["--database", "--database-password-file", "--audit-key-file", "--log-format", "--log-level", "--config"]
            ),
            (["audit", "verify"], ["--database", "--database-password-file", "--log-format", "--log-level", "--config"]),
            (["copy"], ["--database-password-file", "--audit-key-file", "--log-format", "--log-level", "--config"]),
            (["healthcheck"], ["--host", "--port", "--config"]),
        ] as [([String], [String]?)])
    func eachSubcommandsHelpListsTheSettingsItReads(command: [String], reads: [String]?) throws {
        // Every setting's flag, from the generated table.
        let table = try Subprocess.run(Paths.serverBinary, ["settings-table"]).stdout
        let every = Set(
            table.split(separator: "\n").filter { $0.hasPrefix("| `--") }.compactMap {
                $0.split(separator: "`").dropFirst().first.map(String.init)
            })
        #expect(every.count >= 30 && every.contains("--max-body-bytes"))
        func flags(_ help: String) -> Set<String> {
            Set(
                help.split(separator: "\n").compactMap { line in
                    line.hasPrefix("  --") ? line.dropFirst(2).split(separator: " ").first.map(String.init) : nil
                }
            ).intersection(every)
        }
        let help = try Subprocess.run(Paths.serverBinary, command + ["--help"])
        #expect(help.status == 0)
        #expect(flags(help.stdout) == reads.map(Set.init) ?? every, "\(help.stdout)")
        let hidden = try Subprocess.run(Paths.serverBinary, command + ["--help-hidden"])
        #expect(hidden.status == 0)
        #expect(flags(hidden.stdout) == every, "\(hidden.stdout)")
    }

    @Test("a setting's flag a subcommand does not read is accepted and checked, with a warning that names it")
    func aFlagTheSubcommandDoesNotReadIsWarnedOf() throws {
        let directory = try Paths.makeTemporaryDirectory("unread-flag")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("m.sqlite").path
        let result = try SubcommandTests.server(["migrate", "--database", database, "--max-body-bytes", "100000", "--port", "9"])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("ignoring a flag this command does not read") }
        #expect(warnings.count == 2, "\(result.stderr)")
        #expect(warnings.first?.hasSuffix("flag=--max-body-bytes") == true && warnings.last?.hasSuffix("flag=--port") == true)
        let checked = try SubcommandTests.server(["migrate", "--database", database, "--max-body-bytes", "lots"])
        #expect(checked.status == 64 && checked.stderr.contains("--max-body-bytes"), "\(checked.stderr)")
        let read = try SubcommandTests.server(["migrate", "--database", database, "--log-level", "warning"])
        #expect(read.status == 0 && !read.stderr.contains("ignoring a flag"), "\(read.stderr)")
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
