import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// The writer's WAL writes go through the `CSQLiteWALGather` VFS: a commit's frames are buffered
/// and reach the file in a few large writes when SQLite syncs the WAL, before the commit returns
/// and before any other connection can see it.
@Suite struct WALGatherTests {
    private static let rowBytes = 4_000  // about a page a row

    private func makePool(_ directory: TemporaryDirectory, gathering: Bool = true) throws -> DatabasePool {
        let pool = try DatabasePool(
            path: directory.file("db.sqlite"), configuration: DatabaseConfiguration(gathersWALWrites: gathering))
        try pool.writeWithoutTransaction { database in
            try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, filler TEXT NOT NULL)")
        }
        return pool
    }

    private func insert(_ database: Database, _ ids: Range<Int>) throws {
        for id in ids {
            try database.withStatement("INSERT INTO t (id, filler) VALUES (?, ?)") { statement in
                statement.bind(id, at: 1)
                statement.bind(String(repeating: Character(UnicodeScalar(97 + id % 26)!), count: Self.rowBytes), at: 2)
                try statement.execute()
            }
        }
    }

    /// What another connection reads: the rows, and the bytes of their text.
    private func contents(_ pool: DatabasePool) throws -> [Int] {
        try pool.read { database in
            try database.withStatement("SELECT count(*), coalesce(sum(length(filler)), 0) FROM t") {
                try $0.step() ? [$0.int(at: 0), $0.int(at: 1)] : []
            }
        }
    }

    private func counts(_ pool: DatabasePool) throws -> (requested: Int64, performed: Int64, pending: Int64)? {
        pool.writeWithoutTransaction { $0.walWriteCounts }
    }

    @Test func aCommitReachesTheFileInAFewWritesBeforeItReturns() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        let before = try #require(try counts(pool))
        try pool.write { database in try insert(database, 0..<40) }
        let after = try #require(try counts(pool))
        // 40 pages and more (the table's interior pages), each a frame of two writes.
        #expect(after.requested - before.requested >= 80)
        // About 170 KB: three 64 KiB writes, with room for the WAL header's own.
        #expect(after.performed - before.performed <= 6)
        #expect(after.pending == 0, "the commit returned with frames still buffered")
        #expect(try contents(pool) == [40, 40 * Self.rowBytes])
        // One more commit, on the WAL as it is now.
        try pool.write { database in try insert(database, 40..<50) }
        #expect(try counts(pool)?.pending == 0)
        #expect(try contents(pool) == [50, 50 * Self.rowBytes])
    }

    /// A transaction larger than the writer's page cache spills frames to the WAL before its
    /// commit and reads them back: those reads see the buffered frames.
    @Test func theWriterReadsBackFramesItSpilled() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory)
        try pool.writeWithoutTransaction { try $0.execute("PRAGMA cache_size = 10") }
        let total = try pool.write { database -> Int in
            try insert(database, 0..<300)
            // Every page again, most of them spilled to the WAL by now.
            return try database.withStatement("SELECT sum(length(filler)) FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        #expect(total == 300 * Self.rowBytes)
        #expect(try counts(pool)?.pending == 0)
        #expect(try contents(pool) == [300, 300 * Self.rowBytes])
        let check = try pool.writeWithoutTransaction { database in
            try database.withStatement("PRAGMA integrity_check") { try $0.step() ? $0.string(at: 0) : nil }
        }
        #expect(check == "ok")
    }

    /// A rolled-back transaction leaves nothing another connection or a reopened file sees.
    @Test func aRolledBackTransactionLeavesNothingBehind() throws {
        struct Abort: Error {}
        let directory = try TemporaryDirectory()
        do {
            let pool = try makePool(directory)
            try pool.write { database in try insert(database, 0..<5) }
            try pool.writeWithoutTransaction { try $0.execute("PRAGMA cache_size = 10") }
            #expect(throws: Abort.self) {
                try pool.write { database in
                    try insert(database, 5..<200)
                    throw Abort()
                }
            }
            #expect(try contents(pool) == [5, 5 * Self.rowBytes])
            try pool.write { database in try insert(database, 5..<8) }
            #expect(try contents(pool) == [8, 8 * Self.rowBytes])
            pool.close()
        }
        let reopened = try DatabasePool(path: directory.file("db.sqlite"))
        #expect(try contents(reopened) == [8, 8 * Self.rowBytes])
    }

    @Test func withoutGatheringTheWALIsTheDefaultVFSs() throws {
        let directory = try TemporaryDirectory()
        let pool = try makePool(directory, gathering: false)
        try pool.write { database in try insert(database, 0..<3) }
        #expect(try counts(pool) == nil)
        #expect(try contents(pool) == [3, 3 * Self.rowBytes])
    }

    /// Gathering is safe only while SQLite syncs the WAL before a commit becomes visible.
    @Test func gatheringRefusesALowerSynchronousLevel() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite, gatheringWALWrites: true)
        try database.checkSyncedBeforeVisible()
        try database.execute("PRAGMA synchronous = NORMAL")
        #expect(throws: SQLiteError.self) { try database.checkSyncedBeforeVisible() }
    }
}
