import Foundation
import PermissionDomain
import PostgresStore
import PostgresTestServer
import StoreTestSupport
import Synchronization
import TestThreads
import Testing

/// Live: ``PostgresPermissionStore`` on a real PostgreSQL (``PostgresServer/shared``), each test
/// in a database of its own. StoreConformanceTests and the API suite cover the store's semantics
/// (the API suite with `PERMISSION_TEST_STORE=postgres`); these cover what only PostgreSQL has: concurrent
/// writers and replicas on one chain, migrations, lost connections, lock timeouts.
@Suite struct PostgresPermissionStoreTests {
    private static let start = Date(millisecondsSince1970: 1_795_000_000_000)

    private func entry(_ index: Int, replica: String) -> AuditEntry {
        AuditEntry(
            at: Self.start.addingTimeInterval(Double(index)), actor: Actor(keyId: nil, role: "admin"),
            action: AuditAction("test.append"), user: try? UserID("u\(index)"),
            detail: ["replica": replica, "index": String(index), "z": "last", "a": "first"])
    }

    /// Runs `body(thread)` on `count` threads at once and waits for all of them (bounded).
    private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
        let group = DispatchGroup()
        let failures = Failures()
        for thread in 0..<count {
            group.enter()
            Thread {
                defer { group.leave() }
                do { try body(thread) } catch { failures.add(error) }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success)
        #expect(failures.all.isEmpty, "\(failures.all)")
    }

    /// The upsert of a record sets `StoredAuthorization.upsertAssignments` on a conflict: every
    /// column of the migrated table but the primary key (`UpsertAssignmentsTests` for SQLite).
    @Test(.timeLimit(.minutes(2)), .blocksItsThread) func theUpsertSetsEveryColumnButTheKey() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        _ = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        let rows = try PostgresConnection(database).query(
            PreparedStatement(
                """
                SELECT column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'authorizations'
                  AND column_name NOT IN (
                    SELECT a.attname FROM pg_index i
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                    WHERE i.indrelid = 'authorizations'::regclass AND i.indisprimary)
                """))
        let columns = try (0..<rows.count).map { try rows[$0].string(at: 0) }
        let assigned = try #require(StoredAuthorization.upsertAssignedColumns)
        #expect(!columns.isEmpty)
        #expect(assigned.count == Set(assigned).count, "a column set twice")
        #expect(Set(assigned) == Set(columns))
    }

    @Test(.timeLimit(.minutes(2)), .blocksItsThread) func concurrentAppendsFromThreadsAndTwoReplicasLeaveAGapFreeVerifiableChain()
        throws
    {
        let database = try PostgresServer.shared.get().freshDatabase()
        // Two replicas: two stores, each with its own pool, on the same database.
        let replicas = [
            try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 4),
            try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 4),
        ]
        let threads = 8
        let perThread = 25
        try onThreads(threads) { thread in
            let store = replicas[thread % 2]
            for index in 0..<perThread {
                let entry = self.entry(thread * perThread + index, replica: "r\(thread % 2)")
                let seq = try store.write { writer in
                    let before = try writer.lastAuditSeq()
                    let seq = try writer.append(entry)
                    #expect(seq == before + 1)  // no other writer between the read and the append
                    return seq
                }
                #expect(seq >= 1)
            }
        }
        #expect(replicas.allSatisfy { $0.openConnections <= 4 })
        let total = Int64(threads * perThread)
        for store in replicas {
            #expect(try store.read { try $0.lastAuditSeq() } == total)
            let entries = try store.read { try $0.audit(query: AuditQuery(after: 0, limit: 10_000)) }
            #expect(entries.map(\.seq) == Array(1...total))
            #expect(entries.first?.prevHash == String(repeating: "0", count: 64))
            for (earlier, later) in zip(entries, entries.dropFirst()) { #expect(later.prevHash == earlier.hash) }
            // detail is stored as text: its keys keep the order the domain wrote them in.
            #expect(entries.first.map { $0.detail.keys.sorted() } == ["a", "index", "replica", "z"])
            let report = try store.verifyAuditChain(batchSize: 7, progress: nil)
            #expect(report.isIntact)
            #expect(report.intactLength == total)
            #expect(report.totalEntries == total)
            #expect(report.lastIntactHash == entries.last?.hash)
        }
    }

    @Test func editedAuditRowBreaksTheChainAtThatRow() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        for index in 0..<5 { _ = try store.write { try $0.append(self.entry(index, replica: "a")) } }
        try PostgresConnection(database).execute(
            "ALTER TABLE audit DISABLE TRIGGER audit_never_updated; UPDATE audit SET detail = '{}' WHERE seq = 4")
        let report = try store.verifyAuditChain(batchSize: 2, progress: nil)
        #expect(report.failure == .hashMismatch)
        #expect(report.firstFailingSeq == 4)
        #expect(report.intactLength == 3)
    }

    @Test func appendOnlyAndGapFreeAreEnforcedByTheSchema() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        _ = try store.write { try $0.append(self.entry(0, replica: "a")) }
        let connection = try PostgresConnection(database)
        for sql in [
            "UPDATE audit SET detail = '{}' WHERE seq = 1", "DELETE FROM audit WHERE seq = 1", "TRUNCATE audit",
            "INSERT INTO audit (seq, at, actor_role, action) VALUES (3, 0, 'admin', 'x')",
        ] {
            let error = #expect(throws: PostgresError.self, "\(sql)") { try connection.execute(sql) }
            #expect(error?.sqlState == "P0001", "\(sql)")  // raise_exception from the triggers
        }
    }

    @Test func migrationsRacingFromTwoReplicasApplyOnce() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        try onThreads(4) { _ in _ = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        }
        let rows = try PostgresConnection(database).query(
            PreparedStatement("SELECT id FROM schema_migrations ORDER BY applied_order"))
        #expect(try (0..<rows.count).map { try rows[$0].string(at: 0) } == PostgresPermissionStore.knownMigrations)
        #expect(try PostgresPermissionStore.migrate(connectionString: database, keyring: .forTests) == [])
    }

    @Test func newerSchemaIsRefused() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        try store.checkReady()
        try PostgresConnection(database).execute(
            "INSERT INTO schema_migrations (id, applied_order) VALUES ('99-from-the-future', 99)")
        let refused = #expect(throws: MigrationError.self) {
            _ = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        }
        #expect(refused == .databaseNewerThanCode(unknownIDs: ["99-from-the-future"]))
        #expect(refused?.description.contains("newer than this program") == true)
        // A replica already running stays ready: a rolling update migrates before it stops
        // the old replicas, which must go on serving until they are replaced.
        try store.checkReady()
    }

    @Test func terminatedConnectionIsReplacedOnTheNextCall() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        _ = try store.write { try $0.append(self.entry(0, replica: "a")) }
        #expect(store.openConnections == 1)
        let admin = try PostgresConnection(database)
        let terminate = PreparedStatement(
            """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        #expect(try admin.query(terminate)[0].int64(at: 0) == 1)
        // The pooled connection is dead; the next read finds out, drops it and uses a new one.
        #expect(try store.read { try $0.lastAuditSeq() } == 1)
        #expect(try admin.query(terminate)[0].int64(at: 0) == 1)
        #expect(try store.write { try $0.append(self.entry(1, replica: "a")) } == 2)
        #expect(store.openConnections == 1)
        #expect(try store.verifyAuditChain(batchSize: 10, progress: nil).intactLength == 2)
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func chainHeadHeldPastTheLockTimeoutIsUnavailable() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        let other = try PostgresConnection(database)
        try other.execute("BEGIN; SELECT * FROM audit_head FOR UPDATE")
        let started = Date()
        let error = #expect(throws: PermissionError.self) { try store.write { try $0.append(self.entry(0, replica: "a")) } }
        guard case .unavailable = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(Date().timeIntervalSince(started) >= Double(PostgresPermissionStore.lockTimeoutMilliseconds) / 1000 - 0.5)
        try other.rollback()
        #expect(try store.write { try $0.append(self.entry(0, replica: "a")) } == 1)
    }

    @Test func unreachableDatabaseIsUnavailable() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        let admin = try PostgresConnection(try PostgresServer.shared.get().connectionString())
        // No new connections to the database, and the pooled one ended: a read cannot be served.
        let name = database.split(separator: " ").first { $0.hasPrefix("dbname=") }!.dropFirst("dbname=".count)
        try admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS false")
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
        let error = #expect(throws: PermissionError.self) { try store.read { try $0.lastAuditSeq() } }
        guard case .unavailable(let why, let cause) = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        // What a client is told names no host or port; libpq's message, for the log, does.
        #expect(why == PostgresPermissionStore.unreachable)
        #expect(cause?.contains("not currently accepting connections") == true, "\(cause ?? "no cause")")
        #expect(String(describing: error).contains(cause ?? "no cause"), "the log line carries it")
        try admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS true")
        #expect(try store.read { try $0.lastAuditSeq() } == 0)  // back by itself
    }
}

/// Errors collected from several threads.
final class Failures: Sendable {
    private let errors = Mutex<[String]>([])
    func add(_ error: any Error) { errors.withLock { $0.append(String(describing: error)) } }
    var all: [String] { errors.withLock { $0 } }
}
