import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// Reads of a whole table (the read cache's warm-up, `/metrics`) run on a connection of their
/// own that maps nothing, has a small page cache and keeps no snapshot between scans.
@Suite struct ScanConnectionTests {
    func pragma(_ database: Database, _ name: String) throws -> Int64 {
        try database.withStatement("PRAGMA \(name)") { try $0.step() ? $0.int64(at: 0) : -1 }
    }

    @Test func aScanMapsNothingAndUsesASmallPageCache() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("scan.sqlite"))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        #expect(try pool.scan { try pragma($0, "mmap_size") } == 0)
        #expect(try pool.scan { try pragma($0, "cache_size") } == -Int64(DatabasePool.scanCacheSizeKiB))
        #expect(try pool.read { try pragma($0, "mmap_size") } == DatabaseConfiguration().mmapSize)
        #expect(try pool.read { try pragma($0, "cache_size") } == -Int64(DatabaseConfiguration().cacheSizeKiB))

        let small = try DatabasePool(
            path: directory.file("small.sqlite"), configuration: DatabaseConfiguration(cacheSizeKiB: 512))
        try small.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        #expect(try small.scan { try pragma($0, "cache_size") } == -512, "never more than the readers'")
    }

    /// Each scan sees every commit made before it, and leaves no read transaction open: a
    /// checkpoint that resets the WAL (which waits for every reader of an older snapshot) completes.
    @Test func aScanSeesEarlierCommitsAndHoldsNoSnapshotAfterwards() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("scan.sqlite"))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        for value in 1...3 {
            try pool.write { try $0.execute("INSERT INTO t VALUES (\(value))") }
            let count = try pool.scan { database in
                try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
            }
            #expect(count == value)
        }
        let busy = try pool.writeWithoutTransaction { database in
            try database.withStatement("PRAGMA wal_checkpoint(TRUNCATE)") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        #expect(busy == 0)
    }
}
