import Foundation
import PostgresTestServer
import Synchronization
import TestThreads
import Testing

@testable import PostgresStore

/// A migration behind a serving replica's long transaction (an export's snapshot, say) does not
/// hold the table's other statements for as long as that lasts: it waits at most its lock wait,
/// steps back so that what queued behind it runs, says so, and tries again until it can.
@Suite struct PostgresMigrationLockTests {
    /// A connection whose statements end after 10 s: a migration that waited without end would
    /// fail the test rather than hang it.
    static func bounded(_ database: String) throws -> PostgresConnection {
        let connection = try PostgresConnection(database)
        try connection.execute("SET statement_timeout = 10000")
        return connection
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aMigrationBehindALongReadStepsBackAndTriesAgain() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let first = PostgresMigration(id: "1-table", sql: "CREATE TABLE t (x integer); INSERT INTO t VALUES (1)")
        let second = PostgresMigration(id: "2-column", sql: "ALTER TABLE t ADD COLUMN y integer")
        #expect(try PostgresMigrator([first]).migrate(PostgresConnection(database)) == ["1-table"])

        // A long read of the table, as an export's snapshot holds it.
        let reader = try PostgresConnection(database)
        try reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT * FROM t")
        let waits = Mutex<[Int]>([])
        let outcome = Mutex<Result<[String], any Error>?>(nil)
        let migrating = Thread {
            let result = Result {
                try PostgresMigrator([first, second]).migrate(
                    Self.bounded(database), lockWait: .milliseconds(200), attempts: 30
                ) { migration, failed, _ in
                    if migration == "2-column" { waits.withLock { $0.append(failed) } }
                }
            }
            outcome.withLock { $0 = result }
        }
        migrating.start()
        let deadline = Date().addingTimeInterval(10)
        while waits.withLock({ $0.count }) < 2, Date() < deadline { usleep(20_000) }
        #expect(waits.withLock { $0 }.starts(with: [1, 2]), "told of each attempt that gave up")

        // Another replica's statement on the table is not stuck behind the migration for as
        // long as the read lasts: at most one lock wait.
        let other = try PostgresConnection(database)
        try other.execute("SET lock_timeout = 3000")  // fails the test rather than hang it
        let started = Date()
        try other.execute("SELECT count(*) FROM t")
        #expect(Date().timeIntervalSince(started) < 2, "queued behind the migration \(Date().timeIntervalSince(started)) s")
        #expect(outcome.withLock { $0 } == nil, "not applied while the read holds the table")

        try reader.execute("COMMIT")
        while outcome.withLock({ $0 }) == nil, Date() < deadline { usleep(20_000) }
        let applied = try #require(outcome.withLock { $0 })
        #expect(try applied.get() == ["2-column"])
        #expect(try PostgresMigrator([first, second]).appliedIDs(PostgresConnection(database)) == ["1-table", "2-column"])
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func theLastAttemptsFailureIsThrown() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let first = PostgresMigration(id: "1-table", sql: "CREATE TABLE t (x integer)")
        let second = PostgresMigration(id: "2-column", sql: "ALTER TABLE t ADD COLUMN y integer")
        _ = try PostgresMigrator([first]).migrate(PostgresConnection(database))
        let reader = try PostgresConnection(database)
        try reader.execute("BEGIN; SELECT * FROM t")
        let failures = Mutex(0)
        #expect {
            try PostgresMigrator([first, second]).migrate(
                Self.bounded(database), lockWait: .milliseconds(100), attempts: 2
            ) { _, _, _ in failures.withLock { $0 += 1 } }
        } throws: { ($0 as? PostgresError)?.sqlState == "55P03" }
        #expect(failures.withLock { $0 } == 1, "told once, then the second failure is thrown")
        #expect(try PostgresMigrator([first, second]).appliedIDs(PostgresConnection(database)) == ["1-table"])
        try reader.execute("ROLLBACK")
    }
}
