import Foundation
import LiveTestSupport
import TestThreads
import Testing

/// The "Backup and restore" procedure of docs/operations.md, step by step, against the real binary: back up
/// while serving, stop, wipe the database and its `-wal`/`-shm`, copy the backup into place,
/// start, and find exactly the data of the backup with an intact audit chain.
@Suite(.serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct BackupRestoreTests {
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
        second.send(SIGTERM)
        #expect(second.waitForExit(timeout: 20) == 0, "\(second.log())")
    }
}
