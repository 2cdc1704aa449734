import Foundation
import PermissionDomain
import PostgresTestServer
import StoreTestSupport
import TestThreads
import Testing

@testable import PostgresStore

/// Live: a database with synchronous replication whose standby does not answer. A write is
/// never acknowledged before its standby has it: its commit is given up at the answer timeout
/// (unavailable, its outcome unknown), and nobody sees it meanwhile. (PostgreSQL ends a
/// statement's `statement_timeout` before it commits, so the session's timeout never cancels
/// the wait, which would answer `COMMIT` for a transaction only the primary holds.)
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct PostgresSynchronousCommitTests {
    private static let now = Date(millisecondsSince1970: 1_795_000_000_000)

    private static func append(_ store: PostgresPermissionStore) throws -> Int64 {
        try store.write { try $0.append(AuditEntry(at: now, actor: .system, action: AuditAction("test.replicated"))) }
    }

    private static func headSeq(_ database: String) throws -> Int64? {
        let connection = try PostgresConnection(database)
        let rows = try connection.query(PreparedStatement("SELECT coalesce(max(seq), 0)::text FROM audit"))
        return Int64(try rows[0].string(at: 0))
    }

    @Test func aCommitWhoseStandbyDoesNotAnswerIsNotAcknowledged() throws {
        let server = try PostgresServer.start()  // its own: the setting is the whole server's
        defer { server.stop() }
        let database = try server.freshDatabase()
        let store = try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 2,
            readModel: .init(cacheEntries: 100, answerTimeout: .milliseconds(1_500)))
        defer { store.close() }
        let first = try Self.append(store)

        let admin = try PostgresConnection(server.connectionString())
        try admin.execute("ALTER SYSTEM SET synchronous_standby_names = 'ghost'")
        try admin.execute("SELECT pg_reload_conf()")
        Thread.sleep(forTimeInterval: 0.3)  // each backend reads it at its next command
        let started = ContinuousClock.now
        do {
            let seq = try Self.append(store)
            Issue.record("acknowledged as \(seq) after \(ContinuousClock.now - started), with no standby to have it")
        } catch PermissionError.unavailable(let why, _) {
            #expect(why == PermissionError.commitOutcomeUnknown)
        }
        // Until a standby has it, no one else sees it either.
        #expect(try Self.headSeq(database) == first)

        // Without the standby requirement the waiting commit completes: the outcome was unknown,
        // not a failure.
        try admin.execute("ALTER SYSTEM RESET synchronous_standby_names")
        try admin.execute("SELECT pg_reload_conf()")
        #expect(PostgresServer.waitUntil(seconds: 10) { (try? Self.headSeq(database)) == first + 1 })
        #expect(try Self.append(store) == first + 2)
    }
}

/// Live: a database whose `synchronous_commit` is `off` (a common tuning) does not make the
/// service acknowledge writes a crash can lose: its sessions turn it `on`. A stronger setting
/// (`remote_apply`) is left as it is.
@Test func theServicesSessionsCommitDurablyWhateverTheDatabaseSays() throws {
    for (setting, expected) in [("off", "on"), ("remote_apply", "remote_apply"), ("local", "local")] {
        let database = try PostgresServer.shared.get().freshDatabase()
        let name = try #require(database.split(separator: " ").first { $0.hasPrefix("dbname=") }?.dropFirst(7))
        try PostgresConnection(database).execute("ALTER DATABASE \(name) SET synchronous_commit = \(setting)")
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 2)
        defer { store.close() }
        let shown = try store.pool.withConnection { connection in
            try connection.query(PreparedStatement("SHOW synchronous_commit"))[0].string(at: 0)
        }
        #expect(shown == expected, "with \(setting)")
    }
}
