import Foundation
import LiveTestSupport
import TestProcesses
import TestThreads
import Testing

/// The first minutes with the server: what it says when it cannot start, when nobody can use
/// it yet, and when its database file is already served. Real processes, real files.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct StartupTests {
    @Test("a bad bootstrap key refuses to start with a sentence naming the variable, before the database is touched")
    func badBootstrapKeyIsASentence() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-bad-key")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("data/db.sqlite").path
        let secret = "short-secret-value"
        let refused = try SubcommandTests.server(
            ["serve", "--port", "0", "--database", database], environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": secret])
        let output = refused.stdout + refused.stderr
        #expect(refused.status == 64)
        #expect(output.contains("refusing to start: PERMISSION_BOOTSTRAP_ADMIN_KEY must be"), "\(output)")
        #expect(!output.contains("invalidArgument("), "no enum dump: \(output)")
        #expect(!output.contains(secret), "the refused secret is not echoed")
        #expect(!FileManager.default.fileExists(atPath: database), "nothing was created for a run that never starts")
    }

    @Test("every event is one line of text: a libpq error's newline and tab are written out, in either format")
    func everyEventIsOneLine() throws {
        // Nothing listens on port 1: libpq's message is "...failed: Connection refused\n\tIs the server running...".
        let uri = "postgres://permissions@127.0.0.1:1/permissions?sslmode=disable&connect_timeout=2"
        for format in ["text", "json"] {
            let refused = try SubcommandTests.server(
                ["serve", "--port", "0", "--database", uri, "--database-start-timeout", "0", "--log-format", format],
                environment: ["PERMISSION_AUDIT_KEY": ServerProcess.auditKey])
            #expect(refused.status == 69, "\(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            let failure = lines.filter { $0.contains("cannot open the database") }
            #expect(failure.count == 1, "\(format): \(refused.stderr)")
            #expect(
                failure.first?.contains("Connection refused\\n\\tIs the server running") == true, "\(format): \(refused.stderr)")
            for line in lines {
                let start = format == "json" ? line.hasPrefix("{\"at\":\"20") : line.hasPrefix("20")
                #expect(start, "\(format): a line that is not an event of its own: \(line)")
            }
        }
    }

    @Test("a subcommand's refusal is a sentence too (keys create with a bad role, an app key without its app)")
    func subcommandRefusalsAreSentences() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-refusals")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let role = try KeysSubcommandTests.keys(["create", "--role", "owner", "--name", "x"], database: database)
        #expect(role.status == 64)
        #expect(role.stderr == "error: role: must be admin, consent, app or auditor\n", "\(role.stderr)")
        let app = try KeysSubcommandTests.keys(["create", "--role", "app", "--name", "x"], database: database)
        #expect(app.status == 64)
        #expect(app.stderr == "error: app: an app key must name its app\n", "\(app.stderr)")
    }

    @Test("the command the no-admin-key line gives works in a shell for a database path with a space and a quote")
    func theHintsCommandQuotesItsPath() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-quoted")
        defer { Paths.removeTemporary(directory) }
        let odd = directory.appendingPathComponent("it's my data")
        try FileManager.default.createDirectory(at: odd, withIntermediateDirectories: true)
        let database = odd.appendingPathComponent("db.sqlite").path
        let server = try ServerProcess(
            database: database, directory: directory, environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": ""])
        defer { server.killNow() }
        let line = String(
            server.log(waitingFor: "no active admin key").split(separator: "\n").first {
                $0.contains("no active admin key")
            } ?? "")
        let command = try #require(line.split(separator: "`").dropFirst().first.map(String.init), "\(line)")
        #expect(command.hasPrefix("permission-server keys create"), "\(command)")
        let created = try Subprocess.run(
            "/bin/sh", ["-c", "\"$0\"" + command.dropFirst("permission-server".count) + " --log-level error", Paths.serverBinary])
        #expect(created.status == 0, "\(command): \(created.stderr)")
        #expect(created.stdout.contains("pk_"), "\(created.stdout)")
    }

    @Test("with no admin key the server says how to get one, and that command works while it runs")
    func noAdminKeySaysHowToGetOne() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-no-key")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let server = try ServerProcess(
            database: database, directory: directory, environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": ""])
        defer { server.killNow() }
        let apps = "\(server.baseURL)/v1/apps"
        #expect(try KeysSubcommandTests.status(apps, key: nil) == "401")
        let log = server.log()
        let warnings = log.split(separator: "\n").filter { $0.contains("no active admin key") }
        #expect(warnings.count == 1, "one line says it: \(log)")
        // The command in the line, run as written (with the built binary for `permission-server`).
        let line = String(warnings.first ?? "")
        let command = try #require(line.split(separator: "`").dropFirst().first, "the line quotes a command: \(line)")
        let words = command.split(separator: " ").map(String.init)
        #expect(Array(words.prefix(3)) == ["permission-server", "keys", "create"], "\(command)")
        #expect(words.contains(database), "the command names the server's database: \(command)")
        let created = try Subprocess.run(Paths.serverBinary, Array(words.dropFirst()) + ["--log-level", "error"])
        #expect(created.status == 0, "\(created.stderr)")
        let secret = try #require(created.stdout.split(whereSeparator: \.isWhitespace).last.map(String.init))
        #expect(secret.hasPrefix("pk_"))
        // Another process's commit reaches the server's readers within about 100 ms (the writer's
        // `data_version` check), later on a loaded machine: poll, bounded and slowly enough to stay
        // within the failed-authentication allowance (10 at once).
        var status = try KeysSubcommandTests.status(apps, key: secret)
        let deadline = Date().addingTimeInterval(5)
        while status != "200" && Date() < deadline {
            usleep(250_000)
            status = try KeysSubcommandTests.status(apps, key: secret)
        }
        #expect(status == "200", "the new key works without a restart")

        // With an admin key, the next start says nothing of the kind.
        server.send(SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)
        let again = try ServerProcess(
            database: database, directory: directory, environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": ""])
        defer { again.killNow() }
        #expect(!again.log().contains("no active admin key"), "\(again.log())")
    }

    @Test(
        "a --database that cannot be a file, or is not a database, is refused with a sentence: not 69 (retry later), and no key file is made"
    )
    func aDatabaseThatCannotBeOpenedIsRefused() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-unopenable")
        defer { Paths.removeTemporary(directory) }
        let folder = directory.appendingPathComponent("folder").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let asDirectory = try SubcommandTests.server(["serve", "--host", "127.0.0.1", "--port", "0", "--database", folder])
        #expect(asDirectory.status == 73, "\(asDirectory.stderr)")
        #expect(asDirectory.stderr.contains("refusing to start: cannot open"), "\(asDirectory.stderr)")
        // The other subcommands that open it the same: 73 too, not 1 with SQLite's "disk I/O error".
        for command in [["migrate"], ["keys", "create", "--role", "admin", "--name", "a"], ["keys", "list"]] {
            let refused = try SubcommandTests.server(command + ["--database", folder])
            #expect(refused.status == 73, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("cannot open the database: the path is a directory"), "\(refused.stderr)")
        }
        // rotate-key takes the file's lock first: the same 73, not the 66 of a missing file.
        let newKey = try AuditKeyRotationTests.keyFile(directory, "new.key", byte: 7)
        let rotated = try SubcommandTests.server(["audit", "rotate-key", "--new-key-file", newKey, "--database", folder])
        #expect(rotated.status == 73 && rotated.stderr.contains("Is a directory"), "\(rotated.stderr)")
        // A backup into a directory that does not exist: 73, as a file it cannot create.
        let source = directory.appendingPathComponent("db.sqlite").path
        #expect(try SubcommandTests.server(["migrate", "--database", source]).status == 0)
        let backup = try SubcommandTests.server(
            ["backup", "--database", source, "--to", directory.appendingPathComponent("missing/dir/b.sqlite").path])
        #expect(backup.status == 73 && backup.stderr.contains("its directory does not exist"), "\(backup.stderr)")
        // Into a directory no file may be created in (sysfs refuses root too): 73, not 1.
        let unwritable = try SubcommandTests.server(["backup", "--database", source, "--to", "/sys/b.sqlite"])
        #expect(
            unwritable.status == 73 && unwritable.stderr.contains("cannot create /sys/b.sqlite.lock beside the backup"),
            "\(unwritable.stderr)")
        // migrate makes a loose file private as serve does, and says so.
        chmod(source, 0o666)
        let tightened = try SubcommandTests.server(["migrate", "--database", source])
        #expect(tightened.status == 0)
        #expect(
            tightened.stderr.contains("made it private to its owner") && tightened.stderr.contains("was=666"),
            "\(tightened.stderr)")
        let notes = directory.appendingPathComponent("notes.txt").path
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: notes))
        let notDatabase = try SubcommandTests.server(["serve", "--host", "127.0.0.1", "--port", "0", "--database", notes])
        #expect(notDatabase.status == 1, "\(notDatabase.stderr)")
        #expect(notDatabase.stderr.contains("not a database"), "\(notDatabase.stderr)")
        #expect(!FileManager.default.fileExists(atPath: notes + ".audit-key"), "no key file for a file that is not a database")
        // keys list and revoke on a mistyped path: 66, nothing made.
        let missing = directory.appendingPathComponent("typo.sqlite").path
        for command in [["keys", "list"], ["keys", "revoke", "k_0123456789abcdef"]] {
            let refused = try SubcommandTests.server(command + ["--database", missing])
            #expect(refused.status == 66 && refused.stderr.contains("no database at --database"), "\(command): \(refused.stderr)")
        }
        #expect(
            !FileManager.default.fileExists(atPath: missing) && !FileManager.default.fileExists(atPath: missing + ".audit-key"))
    }

    @Test(
        "a database file whose directory is not writable is refused with 73 and a sentence saying SQLite makes its -wal and -shm there"
    )
    func unwritableDirectoryIsRefused() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-directory")
        defer { Paths.removeTemporary(directory) }
        let folder = directory.appendingPathComponent("data").path
        let database = folder + "/db.sqlite"
        #expect(try SubcommandTests.server(["migrate", "--database", database]).status == 0)
        // Files may be written in it, none made: chmod for a user, the immutable flag for root
        // (whom permissions do not stop).
        let locked =
            getuid() == 0
            ? try Subprocess.run("/usr/bin/chattr", ["+i", folder]).status == 0 : chmod(folder, 0o500) == 0
        try #require(locked, "the directory could not be made unwritable here")
        defer {
            if getuid() == 0 { _ = try? Subprocess.run("/usr/bin/chattr", ["-i", folder]) } else { chmod(folder, 0o700) }
        }
        #expect(access(database, R_OK | W_OK) == 0, "the file itself stays writable")
        for command in [["serve", "--host", "127.0.0.1", "--port", "0"], ["migrate"], ["keys", "list"]] {
            let refused = try SubcommandTests.server(command + ["--database", database])
            #expect(refused.status == 73, "\(command): \(refused.stderr)")
            #expect(
                refused.stderr.contains("its directory is not writable") && refused.stderr.contains("-wal and -shm"),
                "\(command): \(refused.stderr)")
        }
    }

    @Test(
        "PERMISSION_BOOTSTRAP_ADMIN_KEY makes the first admin key only: a later, different value beside an active admin key makes none"
    )
    func theBootstrapKeyIsTheFirstAdminKeyOnly() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-bootstrap")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let first = try ServerProcess(database: database, directory: directory)
        #expect(first.log().contains("bootstrap admin key created"), "\(first.log())")
        first.send(SIGTERM)
        #expect(first.waitForExit(timeout: 20) == 0)
        let other = "another-bootstrap-secret-0123456789abcdefghijklmnopqrstuvwxyz"
        let second = try ServerProcess(
            database: database, directory: directory, environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": other])
        defer { second.killNow() }
        #expect(second.log().contains("no key was created"), "\(second.log())")
        #expect(!second.log().contains("bootstrap admin key created"))
        func status(_ key: String) throws -> String {
            try Subprocess.run(
                "/usr/bin/curl",
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(key)",
                    second.baseURL + "/v1/keys",
                ]
            ).stdout
        }
        #expect(try status(other) == "401", "the later value is no key")
        #expect(try status(ServerProcess.adminKey) == "200", "the first admin key still works")
    }

    @Test("a second serve on the same file is refused with a sentence; the first keeps serving; the file is free after it stops")
    func secondServeOnOneFileIsRefused() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-two-serves")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let first = try ServerProcess(database: database, directory: directory)
        defer { first.killNow() }
        let second = try SubcommandTests.server(["serve", "--host", "127.0.0.1", "--port", "0", "--database", database])
        #expect(second.status == 69, "EX_UNAVAILABLE: \(second.stdout) \(second.stderr)")
        #expect(
            (second.stdout + second.stderr).contains(
                "refusing to start: another permission-server is already serving \(database)"),
            "\(second.stdout) \(second.stderr)")
        #expect(!(second.stdout + second.stderr).contains("listening on"))
        #expect(try KeysSubcommandTests.status("\(first.baseURL)/v1/apps", key: ServerProcess.adminKey) == "200")
        // The subcommands still open the file beside the running server.
        let listed = try KeysSubcommandTests.keys(["list"], database: database)
        #expect(listed.status == 0 && listed.stdout.contains("name=bootstrap"), "\(listed.stdout) \(listed.stderr)")
        // Another file in the same directory is another server's business.
        let neighbour = try ServerProcess(
            database: directory.appendingPathComponent("other.sqlite").path, directory: directory)
        neighbour.killNow()

        // A killed server's lock goes with its process: the next start succeeds at once.
        first.killNow()
        let next = try ServerProcess(database: database, directory: directory)
        defer { next.killNow() }
        #expect(try KeysSubcommandTests.status("\(next.baseURL)/v1/apps", key: ServerProcess.adminKey) == "200")
    }

    @Test("a serve whose address is taken exits 69 before it makes the database or its key, for the API and the metrics port")
    func aTakenAddressIsRefusedBeforeTheDatabaseIsMade() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-taken")
        defer { Paths.removeTemporary(directory) }
        let first = try ServerProcess(database: directory.appendingPathComponent("first.sqlite").path, directory: directory)
        defer { first.killNow() }
        let database = directory.appendingPathComponent("second.sqlite").path
        for ports in [["--port", "\(first.port)"], ["--port", "0", "--metrics-port", "\(first.port)"]] {
            let refused = try SubcommandTests.server(["serve", "--host", "127.0.0.1", "--database", database] + ports)
            #expect(refused.status == 69, "\(ports): \(refused.stderr)")
            let log = refused.stderr
            #expect(log.contains("cannot listen") && log.contains("port=\(first.port)"), "\(log)")
            for made in [database, database + ".audit-key", database + "-wal"] {
                #expect(!FileManager.default.fileExists(atPath: made), "\(ports): \(made) was made")
            }
        }
        #expect(try KeysSubcommandTests.status("\(first.baseURL)/v1/apps", key: ServerProcess.adminKey) == "200")
    }

    @Test("a command that migrates a database says which migrations it applied; a new database's schema is one line")
    func appliedMigrationsAreLogged() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-migrations")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("m.sqlite").path
        let created = try SubcommandTests.server(["keys", "create", "--role", "admin", "--name", "m", "--database", database])
        #expect(created.status == 0 && created.stderr.contains("made the database's schema"), "\(created.stderr)")
        #expect(!created.stderr.contains("applied a migration"), "\(created.stderr)")
        // The file as the version before the last migration left it.
        let undo = """
            DROP TRIGGER consent_sessions_fixed;
            CREATE TRIGGER consent_sessions_fixed BEFORE UPDATE OF expires_at ON consent_sessions
                WHEN NEW.expires_at IS NOT OLD.expires_at BEGIN SELECT RAISE(ABORT, 'fixed'); END;
            DELETE FROM schema_migrations WHERE id = '14-session-extension';
            """
        let older = try Subprocess.run(Paths.sqlite3, [database, undo])
        #expect(older.status == 0, "\(older.stderr)")
        let listed = try SubcommandTests.server(["keys", "list", "--database", database])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stderr.split(separator: "\n").filter { $0.contains("applied a migration") }
        #expect(lines.count == 1 && lines[0].contains("migration=14-session-extension"), "\(listed.stderr)")
        let again = try SubcommandTests.server(["keys", "list", "--database", database])
        #expect(!again.stderr.contains("applied a migration") && !again.stderr.contains("made the database"), "\(again.stderr)")
    }

    @Test(
        "the bootstrap key may come from the config file; a config file that cannot be read is named with the reason, not a dump")
    func bootstrapKeyFromTheConfigFile() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-config")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let secret = "config-file-admin-key-0123456789abcdefghijklmnop"
        let config = directory.appendingPathComponent("permission.env").path
        try Data("PERMISSION_BOOTSTRAP_ADMIN_KEY=\(secret)\n".utf8).write(to: URL(fileURLWithPath: config))
        let server = try ServerProcess(
            database: database, directory: directory, extraArguments: ["--config", config],
            environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": ""])
        defer { server.killNow() }
        #expect(try KeysSubcommandTests.status("\(server.baseURL)/v1/apps", key: secret) == "200")
        #expect(!server.log().contains(secret) && !server.log().contains("no active admin key"), "\(server.log())")

        for (path, reason) in [
            (directory.appendingPathComponent("missing.env").path, "No such file or directory"),
            (directory.path, "Is a directory"),
        ] {
            let refused = try SubcommandTests.server(["serve", "--config", path, "--database", database])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("cannot read config file \(path): \(reason)"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("NSCocoaErrorDomain"), "\(refused.stderr)")
        }
    }

    @Test(
        "a SIGTERM sent the moment the server says it listens is a graceful shutdown (exit 0), in every start")
    func sigtermOnTheListeningLineIsGraceful() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-sigterm")
        defer { Paths.removeTemporary(directory) }
        for round in 1...8 {
            let database = directory.appendingPathComponent("db-\(round).sqlite").path
            let log = directory.appendingPathComponent("server-\(round).log").path
            let server = try ChildProcess(
                BuiltProducts.serverBinary, ["serve", "--host", "127.0.0.1", "--port", "0", "--database", database],
                standardOutput: log, standardError: log)
            let deadline = Date().addingTimeInterval(20)
            var text = ""
            while Date() < deadline, server.isRunning {
                text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if text.contains("listening on ") { break }
                usleep(1_000)
            }
            #expect(text.contains("listening on "), "round \(round): \(text)")
            let signalled = server.kill(round.isMultiple(of: 2) ? SIGINT : SIGTERM)
            let ended = server.wait(timeout: 20)
            let after = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(
                signalled && ended == .exited(0),
                "round \(round): \(ended.map(String.init(describing:)) ?? "still running"); log:\n\(after)")
            #expect(after.contains("shutting down gracefully") && after.contains("stopped"), "round \(round): \(after)")
        }
    }

    @Test("a SIGTERM during the start ends the server as its default action does, never lost, and the file stays usable")
    func sigtermDuringTheStartEndsIt() throws {
        let directory = try Paths.makeTemporaryDirectory("startup-early-sigterm")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        for delay: useconds_t in [0, 2_000, 10_000, 40_000] {
            let server = try ChildProcess(
                BuiltProducts.serverBinary, ["serve", "--host", "127.0.0.1", "--port", "0", "--database", database])
            usleep(delay)
            server.kill(SIGTERM)
            let ended = server.wait(timeout: 20)
            // Before the server is ready to shut down gracefully the signal ends it (143 as a
            // shell says it); once ready, gracefully (0). Either way it ends.
            #expect(
                ended == .signaled(SIGTERM) || ended == .exited(0),
                "after \(delay) µs: \(ended.map(String.init(describing:)) ?? "still running")")
        }
        let next = try ServerProcess(database: database, directory: directory)
        defer { next.killNow() }
        #expect(try KeysSubcommandTests.status("\(next.baseURL)/v1/apps", key: ServerProcess.adminKey) == "200")
    }
}
