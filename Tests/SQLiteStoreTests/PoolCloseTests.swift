import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// `DatabasePool.close()`: a clean stop leaves the database as one file, and nothing uses a
/// closed connection afterwards.
@Suite struct PoolCloseTests {
    private func makePool(_ directory: TemporaryDirectory) throws -> DatabasePool {
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        try pool.writeWithoutTransaction { database in
            try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        }
        return pool
    }

    private func insert(_ pool: DatabasePool, _ id: Int) throws {
        try pool.write { database in
            try database.withStatement("INSERT INTO t (id) VALUES (?)") { statement in
                statement.bind(id, at: 1)
                try statement.execute()
            }
        }
    }

    private func count(_ pool: DatabasePool) throws -> Int {
        try pool.read { database in try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 } }
    }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test("closing the pool removes the -wal and -shm files and keeps every committed row")
    func closeLeavesOneFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        let pool = try makePool(directory)
        for id in 1...20 { try insert(pool, id) }
        // Readers open, one of them holding a snapshot between reads, as in the server.
        onThreads(4) { _ in
            do {
                _ = try pool.read { database in try database.withStatement("SELECT 1") { try $0.step() } }
            } catch {
                Issue.record("read: \(error)")
            }
        }
        #expect(try count(pool) == 20)
        #expect(exists(path + "-wal") && exists(path + "-shm"), "WAL mode while open")

        pool.close()
        #expect(!exists(path + "-wal"), "the last connection removed the WAL")
        #expect(!exists(path + "-shm"), "and the shared-memory file")

        let reopened = try DatabasePool(path: path)
        #expect(try count(reopened) == 20)
    }

    @Test("reads and writes after close fail with SQLITE_MISUSE and change nothing")
    func useAfterCloseIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        let pool = try makePool(directory)
        try insert(pool, 1)
        pool.close()

        #expect(throws: SQLiteError.self) { try count(pool) }
        do {
            try insert(pool, 2)
            Issue.record("a write after close succeeded")
        } catch let error as SQLiteError {
            #expect(error.code == 21)
        }
        #expect(try count(DatabasePool(path: path)) == 1)
    }

    @Test("a reader checked out when the pool closes is closed when it comes back")
    func readerInFlightClosesOnCheckin() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        let pool = try makePool(directory)
        try insert(pool, 1)
        let seen = try pool.read { database -> Int in
            pool.readers.close()  // the stop arrives while this read runs
            return try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        #expect(seen == 1, "the read in flight finishes on its open connection")
        #expect(pool.readers.connectionCount == 1)
        #expect(throws: SQLiteError.self) { try count(pool) }
        pool.writer.close()
        #expect(!exists(path + "-wal") && !exists(path + "-shm"), "no connection was left open")
    }

    @Test("releasing the pool without close() also leaves one file (the readers close first)")
    func releaseLeavesOneFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        do {
            let pool = try makePool(directory)
            try insert(pool, 1)
            #expect(try count(pool) == 1)  // a reader is open
            #expect(exists(path + "-wal") && exists(path + "-shm"))
        }
        #expect(!exists(path + "-wal"), "the writer closed last and removed the WAL")
        #expect(!exists(path + "-shm"))
        #expect(try count(DatabasePool(path: path)) == 1)
    }

    @Test("closing twice is harmless")
    func closeTwice() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        pool.close()
        pool.close()
        #expect(throws: SQLiteError.self) { try count(pool) }
    }
}
