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

    @Test func backupReplacesAnExistingFile() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("live.sqlite"))
        try pool.writeWithoutTransaction { try $0.execute("CREATE TABLE t (x); INSERT INTO t VALUES (42)") }
        let destination = directory.file("backup.sqlite")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: destination))
        try pool.backup(to: destination)
        let copy = try Database(path: destination, mode: .readOnly)
        #expect(try copy.withStatement("SELECT x FROM t") { try $0.step() ? $0.int(at: 0) : -1 } == 42)
    }
}
