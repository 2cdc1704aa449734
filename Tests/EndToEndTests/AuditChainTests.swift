import Foundation
import LiveTestSupport
import TestProcesses
import TestThreads
import Testing

/// `permission-server audit verify` on a database the built server wrote: intact (agreeing
/// with the independent Python verifier of docs/audit-chain.md), then pointing at a row edited or
/// deleted with the sqlite3 shell; never writing the file. A backup on read-only storage is
/// verified too, and a file that cannot be verified has an exit code of its own, never 1.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct AuditChainTests {
    static func verify(_ database: String) throws -> ProcessResult {
        try Subprocess.run(Paths.serverBinary, ["audit", "verify", "--database", database], timeout: 30)
    }

    static func python(_ database: String) throws -> ProcessResult {
        let script = Paths.repositoryRoot.appendingPathComponent("scripts/verify-audit-chain.py").path
        return try Subprocess.run(Paths.python, [script, database], timeout: 30)
    }

    @Test("audit verify reports an intact chain, then the edited and the deleted entry")
    func verifySubcommand() throws {
        let directory = try Paths.makeTemporaryDirectory("chain")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("chain.sqlite").path
        do {
            let server = try ServerProcess(database: database, directory: directory)
            defer { server.killNow() }
            try DurabilityTests.registerApp(server)
            for user in 1...6 {
                let write = try Subprocess.adminCurl([
                    "-sf", "-X", "PUT", "-H", "Content-Type: application/json", "--data", #"{"status": "denied"}"#,
                    "\(server.baseURL)/v1/users/u\(user)/apps/\(DurabilityTests.app)/authorizations/camera",
                ])
                #expect(write.status == 0, "\(write.stderr)")
            }
            server.send(SIGTERM)
            #expect(server.waitForExit(timeout: 10) == 0)
        }
        let intact = try Self.verify(database)
        #expect(intact.status == 0, "\(intact.stderr)")
        let count = try Subprocess.run(Paths.sqlite3, [database, "SELECT count(*) FROM audit"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(count) ?? 0 >= 7)
        #expect(intact.stdout.contains("audit chain intact: \(count) of \(count) entries"), "\(intact.stdout)")
        let independent = try Self.python(database)
        #expect(independent.status == 0, "\(independent.stdout)")
        #expect(independent.stdout.contains("intact: \(count) entries"), "\(independent.stdout)")
        // The head hash both print is the same.
        let head = intact.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(head.map { independent.stdout.contains($0) } == true)

        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let edit = try Subprocess.run(
            Paths.sqlite3,
            [
                database, "DROP TRIGGER audit_never_updated; UPDATE audit SET to_status = 'authorized' WHERE seq = 4",
            ])
        #expect(edit.status == 0, "\(edit.stderr)")
        let edited = try Self.verify(database)
        #expect(edited.status == 1)
        #expect(edited.stdout.contains("broken at seq 4 (hashMismatch)"), "\(edited.stdout)")
        #expect(try Self.python(database).stdout.contains("broken at seq 4: hashMismatch"))
        #expect(before != (try Data(contentsOf: URL(fileURLWithPath: database))))

        let delete = try Subprocess.run(
            Paths.sqlite3,
            [
                database, "DROP TRIGGER audit_never_deleted; DELETE FROM audit WHERE seq = 2",
            ])
        #expect(delete.status == 0, "\(delete.stderr)")
        let afterDelete = try Data(contentsOf: URL(fileURLWithPath: database))
        let gap = try Self.verify(database)
        #expect(gap.status == 1)
        #expect(gap.stdout.contains("broken at seq 2 (seqGap): 1 of"), "\(gap.stdout)")
        // Read-only: verify never writes the file.
        #expect(afterDelete == (try Data(contentsOf: URL(fileURLWithPath: database))))
    }
    /// A key planted in the file (no `key.created` entry) and a key whose secret was swapped,
    /// both around the triggers: the chain stays intact, the keys' check names both, by the
    /// command (exit 1) and by `GET /v1/audit/verify` once served.
    @Test("audit verify names the API keys the log does not account for")
    func plantedKeysAreNamed() throws {
        let directory = try Paths.makeTemporaryDirectory("planted")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("planted.sqlite").path
        do {
            let server = try ServerProcess(database: database, directory: directory)
            defer { server.killNow() }
            let issued = try Subprocess.adminCurl([
                "-sf", "-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"role": "auditor"}"#,
                "\(server.baseURL)/v1/keys",
            ])
            #expect(issued.status == 0, "\(issued.stderr)")
            server.send(SIGTERM)
            #expect(server.waitForExit(timeout: 10) == 0)
        }
        let clean = try Self.verify(database)
        #expect(clean.status == 0 && !clean.stdout.contains("API key"), "\(clean.stdout)")

        let plant = try Subprocess.run(
            Paths.sqlite3,
            [
                database,
                """
                INSERT INTO api_keys VALUES ('deadbeefdeadbeef', 'admin', NULL, 'backdoor', randomblob(32), 0, NULL);
                DROP TRIGGER api_keys_hash_fixed;
                UPDATE api_keys SET secret_hash = randomblob(32) WHERE role = 'auditor';
                """,
            ])
        #expect(plant.status == 0, "\(plant.stderr)")
        let auditor = try Subprocess.run(Paths.sqlite3, [database, "SELECT id FROM api_keys WHERE role = 'auditor'"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let planted = try Self.verify(database)
        #expect(planted.status == 1, "\(planted.stdout)")
        #expect(planted.stdout.contains("audit chain intact"), "\(planted.stdout)")
        #expect(
            planted.stdout.contains("API key deadbeefdeadbeef (admin) is not accounted for by the audit log: noEntry"),
            "\(planted.stdout)")
        #expect(
            planted.stdout.contains("API key \(auditor) (auditor) is not accounted for by the audit log: secretDiffers"),
            "\(planted.stdout)")

        let server = try ServerProcess(database: database, directory: directory)
        defer { server.killNow() }
        let answer = try Subprocess.adminCurl(["-sf", "\(server.baseURL)/v1/audit/verify"])
        #expect(answer.status == 0, "\(answer.stderr)")
        #expect(answer.stdout.contains(#"{"id":"deadbeefdeadbeef","reason":"noEntry","role":"admin"}"#), "\(answer.stdout)")
        #expect(answer.stdout.contains(#""valid":true"#), "the chain itself is intact: \(answer.stdout)")
    }

    /// A directory no one may write: as root (CI), a read-only tmpfs mount, since permission
    /// bits do not stop root; otherwise mode 0555 with the file 0444. Either way SQLite cannot
    /// make the `-shm` file a WAL-mode reader needs.
    static func readOnlyCopy(of file: String, in directory: URL) throws -> (path: String, release: () -> Void) {
        let mountPoint = directory.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let copy = mountPoint.appendingPathComponent("backup.sqlite").path
        guard geteuid() == 0 else {
            try FileManager.default.copyItem(atPath: file, toPath: copy)
            #expect(chmod(copy, 0o444) == 0 && chmod(mountPoint.path, 0o555) == 0)
            return (copy, { _ = chmod(mountPoint.path, 0o755) })
        }
        let mount = try Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint.path])
        try #require(mount.status == 0, "root can mount a tmpfs: \(mount.stderr)")
        let release = { _ = try? Subprocess.run("/bin/umount", [mountPoint.path]) }
        try FileManager.default.copyItem(atPath: file, toPath: copy)
        let readOnly = try Subprocess.run("/bin/mount", ["-o", "remount,ro", mountPoint.path])
        if readOnly.status != 0 { release() }
        try #require(readOnly.status == 0, "root can remount it read-only: \(readOnly.stderr)")
        return (copy, release)
    }

    @Test("a backup on read-only storage verifies (read as immutable), by the command and the Python verifier, and backs up")
    func backupOnReadOnlyStorage() throws {
        let directory = try Paths.makeTemporaryDirectory("chain-ro")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("live.sqlite").path
        let backup = directory.appendingPathComponent("backup.sqlite").path
        let made = try SubcommandTests.server(["keys", "create", "--role", "admin", "--name", "ops", "--database", database])
        #expect(made.status == 0, "\(made.stderr)")
        let copied = try SubcommandTests.server(["backup", "--database", database, "--to", backup])
        #expect(copied.status == 0, "\(copied.stderr)")
        let expected = try Self.verify(backup)
        #expect(expected.status == 0 && expected.stdout.contains("audit chain intact: 1 of 1 entries"), "\(expected.stdout)")

        let (copy, release) = try Self.readOnlyCopy(of: backup, in: directory)
        defer { release() }
        #expect(!FileManager.default.isWritableFile(atPath: (copy as NSString).deletingLastPathComponent))
        let verified = try Self.verify(copy)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout == expected.stdout)
        #expect(verified.stderr.contains("the file is on read-only storage; reading it as immutable"), "\(verified.stderr)")
        let independent = try Self.python(copy)
        #expect(independent.status == 0, "\(independent.stdout)\(independent.stderr)")
        #expect(independent.stdout.contains("intact: 1 entries"), "\(independent.stdout)")
        #expect(!FileManager.default.fileExists(atPath: copy + "-shm"))

        // And it backs up from there, read the same way, into a copy that verifies.
        let again = directory.appendingPathComponent("from-read-only.sqlite").path
        let backedUp = try SubcommandTests.server(["backup", "--database", copy, "--to", again])
        #expect(backedUp.status == 0, "\(backedUp.stderr)")
        #expect(backedUp.stderr.contains("the file is on read-only storage; reading it as immutable"), "\(backedUp.stderr)")
        #expect(try Self.verify(again).stdout == expected.stdout)
        #expect(!FileManager.default.fileExists(atPath: copy + "-shm"))

        // The same file while a server holds it (its serve lock, as through a read-only mount of
        // a live volume): not read without SQLite's locks, which would let its writes tear the
        // copy; 69, and what to do instead.
        let signal = directory.appendingPathComponent("locked").path
        let holder = try ChildProcess(
            Paths.python,
            [
                "-c",
                "import fcntl, sys, time\nf = open(sys.argv[1], 'rb')\nfcntl.flock(f, fcntl.LOCK_EX)\n"
                    + "print('locked', flush=True)\ntime.sleep(60)",
                copy,
            ], standardOutput: signal)
        defer { _ = holder.killAndWait() }
        let deadline = Date().addingTimeInterval(10)
        while (try? String(contentsOfFile: signal, encoding: .utf8))?.contains("locked") != true, Date() < deadline {
            usleep(20_000)
        }
        for arguments in [["audit", "verify", "--database", copy], ["backup", "--database", copy, "--to", again + ".2"]] {
            let refused = try SubcommandTests.server(arguments)
            #expect(refused.status == 69, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("a permission-server is serving"), "\(refused.stderr)")
        }
        let independentRefused = try Self.python(copy)
        #expect(independentRefused.status == 69, "\(independentRefused.stdout)\(independentRefused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: again + ".2"))
    }

    @Test("a file that cannot be verified exits 66 (missing) or 65 (not a permission-server database), never 1")
    func unverifiableFilesHaveTheirOwnExitCodes() throws {
        let directory = try Paths.makeTemporaryDirectory("chain-bad")
        defer { Paths.removeTemporary(directory) }
        let garbage = directory.appendingPathComponent("garbage.sqlite").path
        try Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: garbage))
        let empty = directory.appendingPathComponent("empty.sqlite").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let other = directory.appendingPathComponent("other.sqlite").path
        #expect(try Subprocess.run(Paths.sqlite3, [other, "CREATE TABLE audit (seq INTEGER)"]).status == 0)
        let missing = directory.appendingPathComponent("missing.sqlite").path
        for (file, status, says) in [
            (garbage, Int32(65), "not an SQLite database"), (empty, 65, "no audit log with a hash chain"),
            (other, 65, "no audit log with a hash chain"), (missing, 66, "no database to verify"),
        ] {
            let result = try Self.verify(file)
            #expect(result.status == status, "\(file): \(result.stderr)")
            #expect(result.stderr.contains(says), "\(file): \(result.stderr)")
            let independent = try Self.python(file)
            #expect(independent.status == status, "\(file): \(independent.stderr)")
        }
    }
}
