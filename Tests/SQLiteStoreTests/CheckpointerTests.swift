import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// The WAL is copied back into the file by the checkpointer's own connection, not in the
/// writer's commits, and stays bounded even when the checkpointer falls behind.
@Suite struct CheckpointerTests {
    private static let threshold = 20

    private func makePool(_ directory: TemporaryDirectory) throws -> DatabasePool {
        let pool = try DatabasePool(
            path: directory.file("db.sqlite"), configuration: DatabaseConfiguration(checkpointPages: Self.threshold))
        try pool.writeWithoutTransaction { database in
            try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, filler TEXT NOT NULL)")
        }
        return pool
    }

    /// One commit of a row about a page long (4 KiB of text, each row its own page or more).
    private func insert(_ pool: DatabasePool, _ id: Int) throws {
        try pool.write { database in
            try database.withStatement("INSERT INTO t (id, filler) VALUES (?, ?)") { statement in
                statement.bind(id, at: 1)
                statement.bind(String(repeating: "x", count: 4_000), at: 2)
                try statement.execute()
            }
        }
    }

    private func count(_ pool: DatabasePool) throws -> Int {
        try pool.read { database in try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 } }
    }

    /// The WAL file's size in pages (of 4 KiB, plus each frame's 24-byte header).
    private func walPages(_ directory: TemporaryDirectory) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: directory.file("db.sqlite-wal"))[.size] as? Int) ?? 0
        return size / (4_096 + 24)
    }

    /// Polls `condition` for up to 20 s.
    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date.now.addingTimeInterval(20)
        while Date.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return condition()
    }

    @Test func theCheckpointerCopiesTheWALBackAndKeepsItBounded() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let checkpointer = pool.writer.checkpointer
        for id in 0..<400 { try insert(pool, id) }
        #expect(eventually { checkpointer.statistics.checkpoints >= 1 })
        #expect(checkpointer.statistics.failures == 0)
        // 400 pages went through a WAL that restarted behind the checkpoints. It grows past the
        // writer's fallback bound only by the commit that crossed it: a writer refused while
        // the checkpointer's thread holds the checkpoint lock waits for it and tries again.
        #expect(walPages(directory) <= Self.threshold * Checkpointer.writerFallbackFactor + 16)
        #expect(try count(pool) == 400)
        pool.close()
        #expect(!FileManager.default.fileExists(atPath: directory.file("db.sqlite-wal")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("db.sqlite-shm")))
        // Everything is in the file itself.
        let reopened = try DatabasePool(path: directory.file("db.sqlite"))
        #expect(try count(reopened) == 400)
    }

    /// A checkpointer that does not run leaves the writer to checkpoint in its commits, as
    /// SQLite would, once the WAL is `writerFallbackFactor` times the threshold.
    @Test func theWriterCheckpointsItselfWhenTheCheckpointerFallsBehind() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let checkpointer = pool.writer.checkpointer
        checkpointer.hold(true)
        let checkpointsBefore = checkpointer.statistics.checkpoints
        for id in 0..<(Self.threshold * Checkpointer.writerFallbackFactor * 3) { try insert(pool, id) }
        #expect(checkpointer.statistics.writerCheckpoints >= 1)
        #expect(walPages(directory) <= Self.threshold * Checkpointer.writerFallbackFactor + 16)
        #expect(checkpointer.statistics.checkpoints == checkpointsBefore)
        checkpointer.hold(false)
        for id in 1_000..<1_100 { try insert(pool, id) }
        #expect(eventually { checkpointer.statistics.checkpoints > checkpointsBefore })
        #expect(try count(pool) == Self.threshold * Checkpointer.writerFallbackFactor * 3 + 100)
    }

    /// Below the threshold nothing is checkpointed; the hook reports the WAL's pages.
    @Test func smallWALsAreLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        for id in 0..<3 { try insert(pool, id) }
        let statistics = pool.writer.checkpointer.statistics
        #expect(statistics.walPages > 0 && statistics.walPages < Self.threshold)
        #expect(statistics.checkpoints == 0 && statistics.writerCheckpoints == 0)
    }

    /// A reader idle in the pool on the newest snapshot (its read transaction kept open between
    /// reads, by design) does not hold a scrub off: the attempt ends the idle snapshots first,
    /// as a commit does, so only a snapshot in use (an export, a backup) puts it off.
    @Test func anIdleReaderDoesNotPutAScrubOff() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let checkpointer = pool.writer.checkpointer
        for id in 0..<5 { try insert(pool, id) }
        #expect(try count(pool) == 5)  // its reader goes back to the pool with its snapshot
        #expect(walPages(directory) >= 5)

        checkpointer.scrubWAL()
        #expect(eventually { checkpointer.statistics.scrubs == 1 })
        #expect(checkpointer.statistics.scrubRetries == 0, "the first attempt emptied it")
        let size = try FileManager.default.attributesOfItem(atPath: directory.file("db.sqlite-wal"))[.size] as? Int
        #expect(size == 0, "truncated")
        #expect(try count(pool) == 5)
    }

    /// After an erasure: the WAL emptied to nothing, once no reader holds an older snapshot,
    /// and the writer not held up meanwhile beyond the attempts' short waits.
    @Test func aScrubEmptiesTheWALOnceNoReaderHoldsAnOlderSnapshot() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let checkpointer = pool.writer.checkpointer
        for id in 0..<5 { try insert(pool, id) }
        let snapshot = try pool.snapshot()
        #expect(try snapshot.read { try $0.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 } } == 5)
        for id in 5..<10 { try insert(pool, id) }  // the snapshot is older now
        #expect(walPages(directory) >= 10)

        checkpointer.scrubWAL()
        #expect(eventually { checkpointer.statistics.scrubRetries >= 2 }, "tried, and again later")
        #expect(checkpointer.statistics.scrubs == 0 && walPages(directory) >= 10)
        let waiting = try #require(checkpointer.statistics.scrubWaitingSince, "a put-off scrub is waiting")
        #expect(checkpointer.statistics.scrubWaiting(at: waiting + .seconds(3)) == .seconds(3))
        try insert(pool, 10)  // writes go on meanwhile
        snapshot.close()
        #expect(eventually { checkpointer.statistics.scrubs == 1 })
        #expect(checkpointer.statistics.scrubWaitingSince == nil, "none waits once the WAL is emptied")
        #expect(checkpointer.statistics.scrubWaiting() == .zero)
        let size = try FileManager.default.attributesOfItem(atPath: directory.file("db.sqlite-wal"))[.size] as? Int
        #expect(size == 0, "truncated")
        #expect(try count(pool) == 11)
        try insert(pool, 11)
        #expect(try count(pool) == 12)
    }
}
