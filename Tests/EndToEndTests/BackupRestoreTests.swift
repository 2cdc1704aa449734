import Foundation
import LiveTestSupport
import TestThreads
import Testing

/// The "Backup and restore" procedure of docs/operations.md, step by step, against the real binary: back up
/// while serving, stop, wipe the database and its `-wal`/`-shm`, copy the backup into place,
/// start, and find exactly the data of the backup with an intact audit chain.
@Suite(.serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct BackupRestoreTests {
    @Test(
        "backup --force replaces an earlier backup only: never a directory, another file, or the serving deployment's own files")
    func forceReplacesOnlyABackup() throws {
        let directory = try Paths.makeTemporaryDirectory("backup-force")
        defer { Paths.removeTemporary(directory) }
        let data = directory.appendingPathComponent("data").path
        let database = data + "/permissions.sqlite"
        let server = try ServerProcess(database: database, directory: directory, environment: OperationsTests.keyEnvironment)
        defer { server.killNow() }
        #expect(["200", "201"].contains(try OperationsTests.putApp(server, "com.example.kept")))
        let deployment = try FileManager.default.contentsOfDirectory(atPath: data).sorted()
        #expect(deployment.contains("permissions.sqlite.audit-key") && deployment.contains("permissions.sqlite-wal"))
        func backup(to target: String) throws -> ProcessResult {
            try Subprocess.run(Paths.serverBinary, ["backup", "--force", "--to", target, "--database", database])
        }
        // The directory that holds the deployment, each of its files, another directory, a text file.
        let notes = directory.appendingPathComponent("notes.txt").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: notes))
        let cases: [(target: String, status: Int32, says: String)] = [
            (data, 73, "not a regular file"),
            (database + "-wal", 64, "a file of the database it copies"),
            (database + "-shm", 64, "a file of the database it copies"),
            (database + ".audit-key", 64, "a file of the database it copies"),
            (data + "/../data/permissions.sqlite", 64, "a file of the database it copies"),
            (notes, 73, "not an SQLite database"),
        ]
        for (target, status, says) in cases {
            let refused = try backup(to: target)
            #expect(refused.status == status, "\(target): \(refused.stdout) \(refused.stderr)")
            #expect(refused.stderr.contains(says), "\(target): \(refused.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: data).sorted() == deployment)
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "keep me")

        // Another deployment's database, served: a wrong path with --force must not replace it.
        let otherData = directory.appendingPathComponent("other").path
        let otherDatabase = otherData + "/permissions.sqlite"
        let other = try ServerProcess(
            database: otherDatabase, directory: directory, environment: OperationsTests.keyEnvironment)
        defer { other.killNow() }
        #expect(["200", "201"].contains(try OperationsTests.putApp(other, "com.example.other")))
        let otherFiles = try FileManager.default.contentsOfDirectory(atPath: otherData).sorted()
        let served = try backup(to: otherDatabase)
        #expect(served.status == 73, "\(served.stdout) \(served.stderr)")
        #expect(served.stderr.contains("a database a permission-server is serving"), "\(served.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: otherData).sorted() == otherFiles)
        #expect(try OperationsTests.putApp(other, "com.example.other2") == "201", "it still serves its own file")
        other.send(SIGKILL)
        _ = other.waitForExit(timeout: 10)
        // Killed before it checkpointed: its latest writes are only in its -wal.
        let unclean = try backup(to: otherDatabase)
        #expect(unclean.status == 73 && unclean.stderr.contains("not closed cleanly"), "\(unclean.stderr)")
        #expect(try OperationsTests.sqlite(otherDatabase, "SELECT count(*) FROM apps") == "2")
        #expect(["200", "201"].contains(try OperationsTests.putApp(server, "com.example.after")))
        #expect(try OperationsTests.sqlite(database, "SELECT count(*) FROM apps WHERE id = 'com.example.kept'") == "1")

        // An earlier backup is replaced.
        let earlier = directory.appendingPathComponent("backup.sqlite").path
        #expect(try backup(to: earlier).status == 0)
        #expect(try backup(to: earlier).status == 0)
        #expect(try OperationsTests.sqlite(earlier, "SELECT count(*) FROM apps") == "2")
        server.send(SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0, "\(server.log())")
    }

    @Test("backup while serving, wipe, restore: the backed-up data is there, later writes are not, the audit chain verifies")
    func backupWipeRestore() throws {
        let directory = try Paths.makeTemporaryDirectory("backup")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("permissions.sqlite").path
        let backup = directory.appendingPathComponent("backup.sqlite").path
        let first = try ServerProcess(database: database, directory: directory, environment: OperationsTests.keyEnvironment)
        defer { first.killNow() }
        for index in 0..<5 { #expect(["200", "201"].contains(try OperationsTests.putApp(first, "com.example.kept\(index)"))) }

        // 1. Back up while the server is serving (and writing).
        let copy = try Subprocess.run(Paths.serverBinary, ["backup", "--to", backup, "--database", database])
        #expect(copy.status == 0, "backup: \(copy.stdout) \(copy.stderr)")
        #expect(["200", "201"].contains(try OperationsTests.putApp(first, "com.example.after")))
        let backedUpAudit = try OperationsTests.sqlite(backup, "SELECT seq, action, app FROM audit ORDER BY seq")
        #expect(backedUpAudit.split(separator: "\n").count >= 5)
        // What a consumer read last before the restore: the entry of com.example.after.
        let readLast = try OperationsTests.sqlite(database, "SELECT seq || ' ' || hash FROM audit ORDER BY seq DESC LIMIT 1")
            .split(separator: " ").map(String.init)
        try #require(readLast.count == 2)

        // 2. Stop the server.
        first.send(SIGTERM)
        #expect(first.waitForExit(timeout: 20) == 0, "\(first.log())")

        // 3. Wipe the database file and its -wal and -shm, then copy the backup into place.
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
            try FileManager.default.removeItem(atPath: database + suffix)
        }
        try FileManager.default.copyItem(atPath: backup, toPath: database)

        // 4. Start, check, verify the audit chain.
        let second = try ServerProcess(database: database, directory: directory, environment: OperationsTests.keyEnvironment)
        defer { second.killNow() }
        for index in 0..<5 {
            #expect(try OperationsTests.get("\(second.baseURL)/v1/apps/com.example.kept\(index)", key: true).status == "200")
        }
        #expect(try OperationsTests.get("\(second.baseURL)/v1/apps/com.example.after", key: true).status == "404")
        let verify = try Subprocess.run(Paths.serverBinary, ["audit", "verify", "--database", database])
        #expect(verify.status == 0, "audit verify: \(verify.stdout) \(verify.stderr)")
        let restoredAudit = try OperationsTests.sqlite(database, "SELECT seq, action, app FROM audit ORDER BY seq")
        #expect(restoredAudit.hasPrefix(backedUpAudit), "the restored log starts with the backed-up one")

        // 5. Once the restored log has grown past what the consumer read, its position is within
        //    the log again: only the hash it read there tells that the entry is another one.
        for index in 0..<3 { #expect(["200", "201"].contains(try OperationsTests.putApp(second, "com.example.new\(index)"))) }
        let (seq, hash) = (readLast[0], readLast[1])
        let position = "\(second.baseURL)/v1/audit?after=\(seq)"
        #expect(try OperationsTests.get(position, key: true).status == "200")
        let diverged = try OperationsTests.get(position + "&afterHash=\(hash)", key: true)
        #expect(diverged.status == "409")
        #expect(diverged.body.contains("/problems/log-diverged"), "\(diverged.body)")
        second.send(SIGTERM)
        #expect(second.waitForExit(timeout: 20) == 0, "\(second.log())")
    }
}
