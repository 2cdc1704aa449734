import Dispatch
import Foundation
import Synchronization
import TestSupport
import TestThreads
import Testing

@testable import SQLiteStore

/// Writes handed to the writer without a waiting thread (`DatabaseWriter.submit`): the
/// completion comes once the batch is durable and readable, with the body's result or error,
/// and submitted writes group-commit like blocking ones.
@Suite struct DatabaseWriterSubmitTests {
    struct BodyError: Error, Equatable { let id: Int }

    private func makePool(_ directory: TemporaryDirectory) throws -> DatabasePool {
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        try pool.writeWithoutTransaction { database in
            try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        }
        return pool
    }

    private static func insert(_ database: Database, _ id: Int) throws -> Int {
        try database.withStatement("INSERT INTO t (id) VALUES (?)") { statement in
            statement.bind(id, at: 1)
            try statement.execute()
        }
        return id
    }

    private func count(_ pool: DatabasePool) throws -> Int {
        try pool.read { database in try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 } }
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func theCompletionComesAfterTheCommitWithTheResult() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let seen = Mutex<(Result<Int, any Error>, Int)?>(nil)
        let done = DispatchSemaphore(value: 0)
        pool.writer.submit({ database in try Self.insert(database, 7) }) { result in
            // Committed and visible to readers by now.
            let visible = (try? self.count(pool)) ?? -1
            seen.withLock { $0 = (result, visible) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 20) == .success)
        let (result, visible) = try #require(seen.withLock { $0 })
        #expect(try result.get() == 7)
        #expect(visible == 1)
        #expect(pool.writer.currentStatistics.commits == 1)
    }

    /// 200 submissions from 8 threads at once: every one completes once, the failing ones with
    /// their own error and nothing written, the others committed, in fewer commits than writes.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func submittedWritesGroupCommitAndFailAlone() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let outcomes = Mutex<[Int: Result<Int, any Error>]>([:])
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for step in 0..<25 {
                let id = thread * 25 + step
                group.enter()
                pool.writer.submit({ database in
                    if id % 10 == 3 { throw BodyError(id: id) }
                    return try Self.insert(database, id)
                }) { result in
                    outcomes.withLock { $0[id] = result }
                    group.leave()
                }
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        let all = outcomes.withLock { $0 }
        #expect(all.count == 200)
        for (id, result) in all {
            if id % 10 == 3 {
                #expect(throws: BodyError(id: id)) { try result.get() }
            } else {
                #expect(try result.get() == id)
            }
        }
        #expect(try count(pool) == 180)
        let statistics = pool.writer.currentStatistics
        #expect(statistics.committedWrites == 180)
        #expect(statistics.failedWrites == 20)
        #expect(statistics.commits < 180)
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aClosedWriterCompletesWithAnError() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        pool.close()
        let failed = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        pool.writer.submit({ database in try Self.insert(database, 1) }) { result in
            if case .failure(let error) = result { failed.withLock { $0 = error } }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(failed.withLock { $0 } is SQLiteError)
    }
}
