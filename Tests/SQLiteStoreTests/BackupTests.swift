import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

@Suite struct BackupTests {
    @Test func backupOfALiveDatabaseIsConsistentAndOpens() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("live.sqlite"))
        try pool.writeWithoutTransaction { database in
            try database.execute(
                """
                CREATE TABLE a (id INTEGER PRIMARY KEY, payload TEXT NOT NULL);
                CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER NOT NULL REFERENCES a (id))
                """)
        }
        // Every write adds one row to each table: a consistent copy has equal counts.
        @Sendable func addPair(_ database: Database, _ id: Int) throws {
            try database.withStatement("INSERT INTO a (id, payload) VALUES (?, ?)") { statement in
                statement.bind(id, at: 1)
                statement.bind(String(repeating: "x", count: 500), at: 2)
                try statement.execute()
            }
            try database.withStatement("INSERT INTO b (id, a_id) VALUES (?, ?)") { statement in
                statement.bind(id, at: 1)
                statement.bind(id, at: 2)
                try statement.execute()
            }
        }
        try pool.write { database in
            for id in 0..<2_000 { try addPair(database, id) }
        }
        let stop = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        let writeErrors = Collected<String>()
        Thread {
            var id = 10_000
            while stop.wait(timeout: .now()) == .timedOut {
                do {
                    try pool.write { database in try addPair(database, id) }
                } catch {
                    writeErrors.append("\(error)")
                }
                id += 1
            }
            stopped.signal()
        }.start()
        let progress = Collected<DatabasePool.BackupProgress>()
        let destination = directory.file("backup.sqlite")
        try pool.backup(to: destination, pagesPerStep: 8) { progress.append($0) }
        stop.signal()
        stopped.wait()
        #expect(writeErrors.elements.isEmpty)
        #expect(progress.elements.count > 1)
        #expect(progress.elements.last.map { $0.copied == $0.total } == true)
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))

        let copy = try Database(path: destination, mode: .readOnly)
        func scalar(_ sql: String) throws -> Int { try copy.withStatement(sql) { try $0.step() ? $0.int(at: 0) : -1 } }
        let rowsA = try scalar("SELECT count(*) FROM a")
        #expect(rowsA >= 2_000)
        #expect(try scalar("SELECT count(*) FROM b") == rowsA)
        #expect(try copy.withStatement("PRAGMA integrity_check") { try $0.step() ? $0.string(at: 0) : nil } == "ok")
    }

    /// A backup needs room for one copy of the database: its pages go into `.partial` itself,
    /// never through a `.partial-wal` of the same size first. The copy is a WAL database again
    /// (its header says so), as the file it was taken from.
    @Test func backupWritesNoLogBesideItsCopy() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("live.sqlite"))
        try pool.writeWithoutTransaction { database in
            try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
            try database.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
                    + "INSERT INTO t SELECT i, randomblob(1000) FROM n")
        }
        let destination = directory.file("backup.sqlite")
        let logSizes = Collected<Int>()
        try pool.backup(to: destination, pagesPerStep: 16) { _ in
            var info = stat()
            logSizes.append(stat(destination + ".partial-wal", &info) == 0 ? Int(info.st_size) : 0)
        }
        #expect(logSizes.elements.count > 10)
        #expect(logSizes.elements.allSatisfy { $0 == 0 }, "the copy went through a -wal: \(logSizes.elements.max() ?? 0) bytes")
        for leftover in [".partial", ".partial-wal", ".partial-shm", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: destination + leftover), "\(leftover) left")
        }
        let copy = try Database(path: destination, mode: .readOnly)
        #expect(try copy.withStatement("PRAGMA journal_mode") { try $0.step() ? $0.string(at: 0) : nil } == "wal")
        #expect(try copy.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 } == 2000)
    }

    @Test func backupReplacesAnEarlierBackupOrAnEmptyFile() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("live.sqlite"))
        try pool.writeWithoutTransaction { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (42)") }
        let destination = directory.file("backup.sqlite")
        try pool.backup(to: destination)
        try pool.writeWithoutTransaction { try $0.execute("UPDATE t SET x = 43") }
        try pool.backup(to: destination)  // the earlier backup, replaced
        let copy = try Database(path: destination, mode: .readOnly)
        #expect(try copy.withStatement("SELECT x FROM t") { try $0.step() ? $0.int(at: 0) : -1 } == 43)
        let empty = directory.file("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        try pool.backup(to: empty)
        #expect(try Database(path: empty, mode: .readOnly).withStatement("SELECT x FROM t") { try $0.step() } == true)
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
    }

    /// Two backups to one path at once (an overlapping cron run): the second is refused while
    /// the first holds `<to>.lock`, touching neither the first's copy nor the earlier backup.
    @Test func aSecondBackupToThePathIsRefusedWhileOneRuns() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("live.sqlite"))
        try pool.writeWithoutTransaction { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (42)") }
        let destination = directory.file("backup.sqlite")
        try pool.backup(to: destination)
        let lock = destination + ".lock"
        var status = stat()
        #expect(lstat(lock, &status) == 0 && status.st_mode & 0o777 == 0o600)
        try pool.writeWithoutTransaction { try $0.execute("UPDATE t SET x = 43") }

        var refused: (any Error)?
        try pool.backup(to: destination, pagesPerStep: 1) { _ in
            // While the first copies: a second backup of the same file to the same path.
            guard refused == nil else { return }
            refused = #expect(throws: DatabasePool.BackupRefusal.inProgress(destination)) {
                try pool.backup(to: destination)
            }
            #expect(FileManager.default.fileExists(atPath: destination + ".partial"), "the first's copy is left alone")
        }
        #expect(refused != nil)
        let copy = try Database(path: destination, mode: .readOnly)
        #expect(try copy.withStatement("SELECT x FROM t") { try $0.step() ? $0.int(at: 0) : -1 } == 43)
        // Released at the end: the next backup runs.
        try pool.backup(to: destination)
    }

    /// A backup replaces an earlier backup only: a directory (`removeItem` would take the whole
    /// tree), a file that is not an SQLite database, or a directory where a `-wal` would be, is
    /// refused before anything is written or removed.
    @Test func backupRefusesToReplaceAnythingButABackup() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("live.sqlite"))
        try pool.writeWithoutTransaction { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (42)") }

        let folder = directory.file("backups")
        try FileManager.default.createDirectory(atPath: folder + "/nested", withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: folder + "/nested/file.txt"))
        #expect(throws: DatabasePool.BackupRefusal.notAFile(folder)) { try pool.backup(to: folder) }
        #expect(try String(contentsOfFile: folder + "/nested/file.txt", encoding: .utf8) == "kept")

        let notes = directory.file("notes.txt")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: notes))
        #expect(throws: DatabasePool.BackupRefusal.notADatabase(notes)) { try pool.backup(to: notes) }
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "not a database")

        let walHeld = directory.file("held.sqlite")
        try FileManager.default.createDirectory(atPath: walHeld + "-wal/inside", withIntermediateDirectories: true)
        #expect(throws: DatabasePool.BackupRefusal.notAFile(walHeld + "-wal")) { try pool.backup(to: walHeld) }
        #expect(FileManager.default.fileExists(atPath: walHeld + "-wal/inside"))
        #expect(!FileManager.default.fileExists(atPath: walHeld))

        let link = directory.file("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.file("live.sqlite"))
        #expect(throws: DatabasePool.BackupRefusal.notAFile(link)) { try pool.backup(to: link) }
        for refused in [folder, notes, walHeld, link] {
            #expect(!FileManager.default.fileExists(atPath: refused + ".partial"))
        }
    }

    /// A database is an earlier backup only when nothing serves it and no `-wal` holds its latest
    /// pages: `--force` with a wrong path must not replace a live database (the server would go
    /// on writing into deleted files, and everything would be lost when it stopped).
    @Test func backupRefusesADatabaseInUse() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("live.sqlite"))
        try pool.writeWithoutTransaction { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (42)") }

        // Open elsewhere with pages in its log (a server, or one killed before it checkpointed).
        let inUse = directory.file("in-use.sqlite")
        let other = try DatabasePool(path: inUse)
        try other.writeWithoutTransaction { try $0.execute("CREATE TABLE kept (x); INSERT INTO kept VALUES (7)") }
        let log = try FileManager.default.attributesOfItem(atPath: inUse + "-wal")[.size] as? Int
        #expect((log ?? 0) > 0)
        #expect(throws: DatabasePool.BackupRefusal.hasLog(inUse)) { try pool.backup(to: inUse) }
        #expect(
            try other.read {
                try $0.withStatement("SELECT x FROM kept") {
                    _ = try $0.step()
                    return $0.int(at: 0)
                }
            } == 7)

        // Locked as `serve` locks its file, its log checkpointed away.
        let served = directory.file("served.sqlite")
        let database = try Database(path: served, mode: .readWrite)
        try database.execute("CREATE TABLE kept (x); INSERT INTO kept VALUES (8)")
        let lock = open(served, O_RDONLY | O_CLOEXEC)
        #expect(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
        #expect(throws: DatabasePool.BackupRefusal.serving(served)) { try pool.backup(to: served) }
        #expect(
            try database.withStatement("SELECT x FROM kept") {
                _ = try $0.step()
                return $0.int(at: 0)
            } == 8)
        close(lock)

        // Unlocked and closed cleanly: an earlier backup, replaced.
        database.close()
        try pool.backup(to: served)
        #expect(
            try Database(path: served, mode: .readOnly).withStatement("SELECT x FROM t") {
                _ = try $0.step()
                return $0.int(at: 0)
            } == 42)
    }

    /// A damaged source makes no backup: the copy is checked (`PRAGMA quick_check`) before it
    /// is moved into place, and a damaged one is removed with the reason, where it used to be
    /// kept as if it were good and found out only at the restore.
    @Test func aDamagedDatabaseMakesNoBackup() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("damaged.sqlite")
        let setup = try DatabasePool(path: path)
        try setup.writeWithoutTransaction { database in
            try database.execute(
                """
                CREATE TABLE t (x TEXT);
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO t SELECT printf('row %05d of a table over many pages', i) FROM n;
                """)
        }
        setup.close()
        // The table's third page overwritten: a b-tree page that no longer parses.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 2 * 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()

        let pool = try DatabasePool(path: path)
        let destination = directory.file("backup.sqlite")
        #expect {
            try pool.backup(to: destination)
        } throws: { error in
            "\(error)".contains("not intact (PRAGMA quick_check)")
        }
        #expect(!FileManager.default.fileExists(atPath: destination))
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
    }
}
