import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

@Suite struct DatabaseWriterTests {
    struct BodyError: Error, Equatable { let index: Int }

    private func makePool(_ directory: TemporaryDirectory) throws -> DatabasePool {
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        try pool.writeWithoutTransaction { database in
            try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL)")
        }
        return pool
    }

    private func count(_ pool: DatabasePool, _ sql: String = "SELECT count(*) FROM t") throws -> Int {
        try pool.read { database in try database.withStatement(sql) { try $0.step() ? $0.int(at: 0) : -1 } }
    }

    private func insert(_ database: Database, _ id: Int) throws {
        try database.withStatement("INSERT INTO t (id, writer) VALUES (?, ?)") { statement in
            statement.bind(id, at: 1)
            statement.bind(id % 64, at: 2)
            try statement.execute()
        }
    }

    @Test func writeReturnsTheBodyResultAndCommits() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let rowID = try pool.write { database -> Int64 in
            try insert(database, 7)
            return database.lastInsertRowID
        }
        #expect(rowID == 7)
        #expect(try count(pool) == 1)
        #expect(pool.writer.currentStatistics.commits == 1)
    }

    @Test func manyConcurrentWritersAllSucceedWithFewerCommitsThanWrites() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let failures = Collected<String>()
        let writers = 64, perWriter = 20
        onThreads(writers) { writer in
            for step in 0..<perWriter {
                do {
                    try pool.write { database in try insert(database, writer * perWriter + step) }
                } catch {
                    failures.append("\(error)")
                }
            }
        }
        #expect(failures.elements.isEmpty)
        #expect(try count(pool) == writers * perWriter)
        let statistics = pool.writer.currentStatistics
        #expect(statistics.committedWrites == writers * perWriter)
        #expect(statistics.commits < statistics.committedWrites)
        #expect(statistics.largestBatch > 1)
    }

    /// Holds the writer queue busy so that the next bodies are queued, then releases it: they
    /// run as one batch.
    private func oneBatch(
        _ pool: DatabasePool, count: Int, body: @escaping @Sendable (Database, Int) throws -> Void
    )
        -> [Int: Result<Void, any Error>]
    {
        let gate = DispatchSemaphore(value: 0)
        let blocking = DispatchSemaphore(value: 0)
        Thread {
            pool.writeWithoutTransaction { _ in
                blocking.signal()
                gate.wait()
            }
        }.start()
        blocking.wait()  // the writer queue is busy from here on
        let results = Collected<(Int, Result<Void, any Error>)>()
        let finished = DispatchSemaphore(value: 0)
        Thread {
            onThreads(count) { index in
                results.append((index, Result { try pool.write { database in try body(database, index) } }))
            }
            finished.signal()
        }.start()
        let deadline = DispatchTime.now() + .seconds(30)
        while pool.writer.pendingCount < count && DispatchTime.now() < deadline { usleep(1_000) }
        #expect(pool.writer.pendingCount == count, "the writers did not queue up in time")
        gate.signal()
        finished.wait()
        return Dictionary(uniqueKeysWithValues: results.elements)
    }

    /// Another process holds the write lock: the batch's `BEGIN` waits out the busy timeout
    /// once, and every body of the batch fails with it then, not one busy timeout after another
    /// (eight bodies would have waited 2.4 s, their callers answered only at the end).
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aLockHeldElsewhereFailsTheBatchAfterOneBusyTimeout() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.file("db.sqlite"), configuration: DatabaseConfiguration(busyTimeoutMilliseconds: 300))
        try pool.writeWithoutTransaction { database in
            try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL)")
        }
        let other = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        defer { other.close() }
        try other.execute("BEGIN IMMEDIATE")
        let started = ContinuousClock.now
        let results = oneBatch(pool, count: 8) { database, index in try insert(database, index) }
        let elapsed = ContinuousClock.now - started
        #expect(results.count == 8)
        for (_, result) in results {
            guard case .failure(let error) = result else {
                Issue.record("a body committed while another connection held the lock")
                continue
            }
            #expect((error as? SQLiteError)?.isBusy == true, "\(error)")
        }
        #expect(elapsed < .milliseconds(1_500), "the batch waited \(elapsed)")
        try other.execute("ROLLBACK")
        try pool.write { database in try insert(database, 100) }
        #expect(try count(pool) == 1)
    }

    @Test func aFailingBodyRollsBackOnlyItsOwnChanges() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let commitsBefore = pool.writer.currentStatistics.commits
        let results = oneBatch(pool, count: 10) { database, index in
            try insert(database, index)
            if index % 3 == 0 { throw BodyError(index: index) }
        }
        for index in 0..<10 {
            switch results[index] {
            case .success?: #expect(index % 3 != 0)
            case .failure(let error)?: #expect(error as? BodyError == BodyError(index: index))
            case nil: Issue.record("no result for \(index)")
            }
        }
        #expect(try count(pool) == 6)
        #expect(try count(pool, "SELECT count(*) FROM t WHERE id % 3 = 0") == 0)
        let statistics = pool.writer.currentStatistics
        #expect(statistics.commits == commitsBefore + 1)
        #expect(statistics.failedWrites == 4)
    }

    @Test func aFailedCommitFailsEveryBodyOfTheBatch() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        try pool.writeWithoutTransaction { database in
            try database.execute(
                """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (id INTEGER PRIMARY KEY,
                    parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)
                """)
        }
        // Body 0 breaks a deferred foreign key: only COMMIT notices.
        let results = oneBatch(pool, count: 5) { database, index in
            try insert(database, index)
            if index == 0 { try database.execute("INSERT INTO child (id, parent) VALUES (1, 999)") }
        }
        #expect(results.count == 5)
        for (_, result) in results {
            guard case .failure(let error) = result else {
                Issue.record("a body of the failed batch succeeded")
                continue
            }
            #expect((error as? SQLiteError)?.extendedCode == 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
        }
        #expect(try count(pool) == 0)
        // The writer recovers: the next write commits.
        try pool.write { database in try insert(database, 100) }
        #expect(try count(pool) == 1)
    }

    @Test func readsProceedWhileAWriteTransactionIsOpen() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        try pool.write { database in try insert(database, 1) }
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        Thread {
            do {
                try pool.write { database in
                    try insert(database, 2)
                    inside.signal()
                    release.wait()
                }
            } catch {
                Issue.record("write failed: \(error)")
            }
            writerDone.signal()
        }.start()
        inside.wait()  // the write transaction is open and holds the write lock
        let start = DispatchTime.now()
        #expect(try count(pool) == 1)  // the reader sees the last committed state, without waiting
        let elapsed = DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
        #expect(elapsed < 500_000_000)
        release.signal()
        writerDone.wait()
        #expect(try count(pool) == 2)
    }

    @Test func readsSeeEveryCompletedWriteAndIdleReadersHoldNoSnapshot() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        for id in 1...50 {
            #expect(try count(pool) == id - 1)
            #expect(try count(pool) == id - 1)  // a reused snapshot, still current
            try pool.write { database in try insert(database, id) }
        }
        // Several readers were used at once; all are idle now and none pins an old snapshot,
        // so a full checkpoint can reset the WAL.
        onThreads(4) { _ in
            for _ in 0..<20 {
                do {
                    _ = try pool.read { try $0.withStatement("SELECT count(*) FROM t") { try $0.step() } }
                } catch {
                    Issue.record("read failed: \(error)")
                }
            }
        }
        try pool.write { database in try insert(database, 1_000) }
        let checkpoint = try pool.writeWithoutTransaction { database in
            try database.withStatement("PRAGMA wal_checkpoint(TRUNCATE)") { statement -> [Int] in
                guard try statement.step() else { return [] }
                return [statement.int(at: 0), statement.int(at: 1), statement.int(at: 2)]
            }
        }
        #expect(checkpoint == [0, 0, 0])  // not busy; the WAL is empty afterwards
        #expect(try count(pool) == 51)
    }

    @Test func readerPoolReusesConnectionsAndCapsThem() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("db.sqlite"), configuration: .init(maximumReaderCount: 2))
        for _ in 0..<10 { #expect(try pool.read { try $0.withStatement("SELECT 1") { try $0.step() } }) }
        #expect(pool.readers.connectionCount == 1)
        onThreads(8) { _ in
            for _ in 0..<50 {
                do {
                    _ = try pool.read { try $0.withStatement("SELECT 1") { try $0.step() } }
                } catch {
                    Issue.record("read failed: \(error)")
                }
            }
        }
        #expect(pool.readers.connectionCount <= 2)
    }
}
