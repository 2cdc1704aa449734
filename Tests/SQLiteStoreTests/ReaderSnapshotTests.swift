import Foundation
import Testing

@testable import SQLiteStore

/// Pooled readers reuse their read snapshot between commits of this process; a commit made by
/// another connection (another process: the `keys` subcommand on a live file) must still become
/// visible within `ReaderPool.maximumSnapshotAge`.
@Suite struct ReaderSnapshotTests {
    @Test func anotherConnectionsCommitBecomesVisibleWithinTheSnapshotAge() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("snapshots.sqlite")
        let pool = try DatabasePool(path: path)
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        func count() throws -> Int {
            try pool.read { database in try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 } }
        }
        #expect(try count() == 0)  // the reader now holds a snapshot

        let other = try Database(path: path, mode: .readWrite)
        try other.execute("INSERT INTO t VALUES (1)")

        let deadline = Date().addingTimeInterval(Double(ReaderPool.maximumSnapshotAge) / 1e9 + 1)
        var seen = try count()
        while seen == 0 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            seen = try count()
        }
        #expect(seen == 1)
    }
}
