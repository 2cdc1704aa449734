import Foundation
import LiveTestSupport
import TestProcesses
import TestThreads
import Testing

/// `migrate`, `backup`, `healthcheck`, and the refusal of a database newer than the code.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct SubcommandTests {
    static func server(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try Subprocess.run(Paths.serverBinary, arguments, environment: environment, timeout: 30)
    }

    @Test("migrate applies the schema once, then reports the file up to date")
    func migrateReportsWhatItApplied() throws {
        let directory = try Paths.makeTemporaryDirectory("migrate")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("nested/dir/m.sqlite").path
        let first = try Self.server(["migrate", "--database", database])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("applied "), "\(first.stdout)")
        // A new database is made (a service manager runs migrate before the first start), and said.
        let warning = first.stderr.split(separator: "\n").filter { $0.contains("no database was at --database") }
        #expect(warning.count == 1 && warning[0].contains("warning") && warning[0].contains("database=\(database)"))
        #expect(warning.first?.contains("directory=/") == true, "\(first.stderr)")
        let tables = try Subprocess.run(Paths.sqlite3, [database, "SELECT count(*) FROM schema_migrations"])
        #expect(Int(tables.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 1)
        let second = try Self.server(["migrate"], environment: ["PERMISSION_DATABASE": database])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("up to date"), "\(second.stdout)")
        #expect(!second.stderr.contains("no database was"), "\(second.stderr)")
    }

    @Test("a database newer than the code is refused by serve and migrate, with a clear message")
    func newerDatabaseIsRefused() throws {
        let directory = try Paths.makeTemporaryDirectory("newer")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("n.sqlite").path
        #expect(try Self.server(["migrate", "--database", database]).status == 0)
        let future = try Subprocess.run(
            Paths.sqlite3,
            [
                database, "INSERT INTO schema_migrations (id, applied_order) VALUES ('999-from-the-future', 999)",
            ])
        #expect(future.status == 0, "\(future.stderr)")
        let serve = try Self.server(["serve", "--port", "0", "--database", database])
        #expect(serve.status == 65, "serve exit status \(serve.status): \(serve.stderr)")
        #expect(serve.stderr.contains("newer than this program"), "\(serve.stderr)")
        #expect(serve.stderr.contains("999-from-the-future"), "\(serve.stderr)")
        #expect(
            serve.stderr.contains("Run the newer version that migrated it")
                && serve.stderr.contains("restore the backup taken before the upgrade"), "what to do: \(serve.stderr)")
        #expect(!serve.stderr.contains("listening on"))
        let migrate = try Self.server(["migrate", "--database", database])
        #expect(migrate.status == 65 && migrate.stderr.contains("Run the newer version"), "\(migrate.stderr)")
    }

    @Test(
        "audit verify refuses with 65 and what to do a file a newer version migrated, or one from before the current entry format; an earlier backup missing only later migrations verifies"
    )
    func auditVerifyReadsTheMigrations() throws {
        let directory = try Paths.makeTemporaryDirectory("verify-versions")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("v.sqlite").path
        #expect(try Self.server(["keys", "create", "--role", "admin", "--name", "a", "--database", database]).status == 0)
        func variant(_ name: String, _ sql: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: database, toPath: path)
            let changed = try Subprocess.run(Paths.sqlite3, [path, sql])
            #expect(changed.status == 0, "\(changed.stderr)")
            return path
        }
        let newer = try variant(
            "newer.sqlite", "INSERT INTO schema_migrations (id, applied_order) VALUES ('999-from-the-future', 999)")
        let fromNewer = try Self.server(["audit", "verify", "--database", newer])
        #expect(fromNewer.status == 65, "\(fromNewer.stdout) \(fromNewer.stderr)")
        #expect(
            fromNewer.stderr.contains("newer than this program") && fromNewer.stderr.contains("999-from-the-future")
                && fromNewer.stderr.contains("Run the newer version"), "\(fromNewer.stderr)")
        #expect(!fromNewer.stdout.contains("audit chain"), "no verdict: \(fromNewer.stdout)")

        // The audit log as a version before 8-sealed-personal-fields left it.
        let older = try variant(
            "older.sqlite", "ALTER TABLE audit DROP COLUMN personal; DELETE FROM schema_migrations WHERE applied_order >= 8")
        let fromOlder = try Self.server(["audit", "verify", "--database", older])
        #expect(fromOlder.status == 65, "\(fromOlder.stdout) \(fromOlder.stderr)")
        #expect(
            fromOlder.stderr.contains("8-sealed-personal-fields") && fromOlder.stderr.contains("verify a migrated copy"),
            "\(fromOlder.stderr)")
        #expect(!fromOlder.stderr.contains("no such column"), "\(fromOlder.stderr)")
        let pythonOlder = try AuditChainTests.python(older)
        #expect(pythonOlder.status == 65, "the Python verifier too: \(pythonOlder.stdout) \(pythonOlder.stderr)")
        #expect(pythonOlder.stderr.contains("8-sealed-personal-fields"), "\(pythonOlder.stderr)")

        // A backup of the version before (the last migration not applied yet) verifies as it is.
        let previous = try variant(
            "previous.sqlite",
            "ALTER TABLE apps DROP COLUMN development_language; DELETE FROM schema_migrations WHERE id = '15-development-language'"
        )
        let fromPrevious = try Self.server(["audit", "verify", "--database", previous])
        #expect(
            fromPrevious.status == 0 && fromPrevious.stdout.hasPrefix("audit chain intact: 1 of 1"),
            "\(fromPrevious.stdout) \(fromPrevious.stderr)")
    }

    @Test("backup copies a serving database consistently and refuses to overwrite without --force")
    func backupWhileServing() throws {
        let directory = try Paths.makeTemporaryDirectory("backup")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("live.sqlite").path
        let copy = directory.appendingPathComponent("copy.sqlite").path
        let server = try ServerProcess(database: database, directory: directory)
        defer { server.killNow() }
        try DurabilityTests.registerApp(server)
        let write = try Subprocess.adminCurl([
            "-X", "PUT", "-H", "Content-Type: application/json", "--data", #"{"status": "denied"}"#,
            "\(server.baseURL)/v1/users/u1/apps/\(DurabilityTests.app)/authorizations/camera",
        ])
        #expect(write.status == 0)

        let backup = try Self.server(["backup", "--database", database, "--to", copy])
        #expect(backup.status == 0, "\(backup.stderr)")
        let integrity = try Subprocess.run(Paths.sqlite3, [copy, "PRAGMA integrity_check"])
        #expect(integrity.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
        let rows = try Subprocess.run(Paths.sqlite3, [copy, "SELECT status FROM authorizations WHERE user = 'u1'"])
        #expect(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "denied", "\(rows.stdout) \(rows.stderr)")

        let before = try Data(contentsOf: URL(fileURLWithPath: copy))
        let refused = try Self.server(["backup", "--database", database, "--to", copy])
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == before, "the existing file is untouched")
        let forced = try Self.server(["backup", "--database", database, "--to", copy, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        // Another backup to the same path holds its lock (here this process, as such a backup
        // would): refused with 69, the earlier backup untouched.
        let lock = open(copy + ".lock", O_RDWR | O_CLOEXEC)
        #expect(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
        let overlapping = try Self.server(["backup", "--database", database, "--to", copy, "--force"])
        close(lock)
        #expect(overlapping.status == 69, "\(overlapping.stderr)")
        #expect(overlapping.stderr.contains("another backup to"), "\(overlapping.stderr)")
        #expect(!FileManager.default.fileExists(atPath: copy + ".partial"))
        #expect(try Self.server(["backup", "--database", database, "--to", copy, "--force"]).status == 0)

        let missing = try Self.server([
            "backup", "--database", directory.appendingPathComponent("none.sqlite").path, "--to", copy + "2",
        ])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("none.sqlite").path))
    }

    /// The events of the directory `directory` as inotify(7) reports them, one `EVENT name` line
    /// each, written to `output` until the process is killed.
    static func watchDirectory(_ directory: String, output: String) throws -> ChildProcess {
        let script = """
            import ctypes, os, struct, sys
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(0)
            labels = {0x100: 'CREATE', 0x200: 'DELETE', 0x40: 'MOVED_FROM', 0x80: 'MOVED_TO'}
            libc.inotify_add_watch(fd, sys.argv[1].encode(), sum(labels))
            print('watching', flush=True)
            while True:
                data, i = os.read(fd, 65536), 0
                while i < len(data):
                    _, mask, _, length = struct.unpack_from('iIII', data, i)
                    name = data[i + 16:i + 16 + length].rstrip(b'\\0').decode()
                    i += 16 + length
                    for bit, label in labels.items():
                        if mask & bit:
                            print(label, name, flush=True)
            """
        let watcher = try ChildProcess(
            Paths.python, ["-c", script, directory], standardOutput: output, standardError: output)
        let deadline = Date().addingTimeInterval(10)
        while (try? String(contentsOfFile: output, encoding: .utf8))?.contains("watching") != true, Date() < deadline {
            usleep(20_000)
        }
        return watcher
    }

    @Test("backup --force replaces an earlier backup in one rename: the path is never without a backup")
    func forcedBackupReplacesInOneStep() throws {
        let directory = try Paths.makeTemporaryDirectory("backup-force")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("live.sqlite").path
        let backups = directory.appendingPathComponent("backups").path
        let copy = backups + "/copy.sqlite"
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: false)
        #expect(try Self.server(["migrate", "--database", database]).status == 0)
        #expect(try Self.server(["backup", "--database", database, "--to", copy]).status == 0)
        // An earlier backup a reader opened in WAL mode left its (empty) -wal and -shm beside.
        #expect(FileManager.default.createFile(atPath: copy + "-wal", contents: Data()))
        #expect(FileManager.default.createFile(atPath: copy + "-shm", contents: Data(count: 32_768)))

        let events = directory.appendingPathComponent("events.out").path
        let watcher = try Self.watchDirectory(backups, output: events)
        defer { watcher.killAndWait() }
        let forced = try Self.server(["backup", "--database", database, "--to", copy, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(5)
        while !seen.contains("DELETE copy.sqlite-shm"), Date() < deadline {
            usleep(20_000)
            seen = ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        watcher.killAndWait()
        #expect(seen.contains("MOVED_TO copy.sqlite"), "\(seen)")
        #expect(!seen.contains("DELETE copy.sqlite"), "the earlier backup was removed before the new one took its place: \(seen)")
        let renamed = seen.firstIndex(of: "MOVED_TO copy.sqlite") ?? seen.endIndex
        let sidecarsGone = seen.firstIndex(of: "DELETE copy.sqlite-wal") ?? -1
        #expect(sidecarsGone > renamed, "the earlier backup's -wal goes after the rename: \(seen)")
        for leftover in ["-wal", "-shm", ".partial"] {
            #expect(!FileManager.default.fileExists(atPath: copy + leftover), "\(leftover) left")
        }
        let integrity = try Subprocess.run(Paths.sqlite3, [copy, "PRAGMA integrity_check"])
        #expect(integrity.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }

    @Test("backup logs its progress at info: at its first step, then at most one line every 5 s")
    func backupProgressAtInfo() throws {
        let directory = try Paths.makeTemporaryDirectory("backup-progress")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("big.sqlite").path
        #expect(try Self.server(["migrate", "--database", database]).status == 0)
        // About 40 MB: 3 steps of 4,096 pages, all well within 5 s.
        let filled = try Subprocess.run(
            Paths.sqlite3,
            [
                database,
                "CREATE TABLE filler (b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) "
                    + "INSERT INTO filler SELECT randomblob(4000) FROM n;",
            ])
        #expect(filled.status == 0, "\(filled.stderr)")
        let backup = try Self.server(["backup", "--database", database, "--to", database + ".bak"])
        #expect(backup.status == 0, "\(backup.stderr)")
        // At info: the first step, then at most one line every 5 s (one, unless the machine is slow).
        let lines = backup.stderr.split(separator: "\n").filter { $0.contains("backup progress") }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("info") && $0.contains("total=") }, "\(backup.stderr)")
        #expect(lines.count <= 3, "at most one a 5 s: \(backup.stderr)")
        let verbose = try Self.server([
            "backup", "--database", database, "--to", database + ".bak", "--force", "--log-level", "debug",
        ])
        let steps = verbose.stderr.split(separator: "\n").filter { $0.contains("backup progress") }
        #expect(steps.count >= 3 && steps.last?.contains("percent=100") == true, "\(verbose.stderr)")
    }

    @Test("healthcheck exits 0 when /readyz answers 200 and 1 when nothing listens")
    func healthcheckProbesReadiness() throws {
        let directory = try Paths.makeTemporaryDirectory("health")
        defer { Paths.removeTemporary(directory) }
        let server = try ServerProcess(database: directory.appendingPathComponent("h.sqlite").path, directory: directory)
        let healthy = try Self.server(["healthcheck", "--port", "\(server.port)"])
        #expect(healthy.status == 0, "\(healthy.stdout) \(healthy.stderr)")
        let viaEnvironment = try Self.server(
            ["healthcheck"], environment: ["PERMISSION_HOST": "0.0.0.0", "PERMISSION_PORT": "\(server.port)"])
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.stdout) \(viaEnvironment.stderr)")
        let notFound = try Self.server(["healthcheck", "--port", "\(server.port)", "--path", "/nope"])
        #expect(notFound.status == 1, "\(notFound.stdout)")
        let port = server.port
        server.killNow()
        let down = try Self.server(["healthcheck", "--port", "\(port)", "--timeout", "2"])
        #expect(down.status == 1, "\(down.stdout) \(down.stderr)")
        #expect(down.stdout.contains("unhealthy"), "\(down.stdout)")
    }
}
