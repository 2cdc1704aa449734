import Foundation
import PermissionDomain

/// Applies ``PostgresSchema/migrations`` in order, each in its own transaction together with its
/// `schema_migrations` row, under a transaction-level advisory lock
/// (`pg_advisory_xact_lock`, https://www.postgresql.org/docs/15/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS):
/// replicas started together apply each migration exactly once, one after the other, and a crash
/// leaves each one applied or not. A database that has applied an id this code does not know is
/// refused (``MigrationError/databaseNewerThanCode(unknownIDs:)``).
struct PostgresMigrator: Sendable {
    /// The advisory lock key of the migrations ("permmigr" as a big-endian integer).
    static let lockKey: Int64 = 0x7065_726D_6D69_6772

    let migrations: [PostgresMigration]

    init(_ migrations: [PostgresMigration]) {
        var seen = Set<String>()
        for migration in migrations {
            precondition(seen.insert(migration.id).inserted, "duplicate migration id \(migration.id)")
        }
        self.migrations = migrations
    }

    private static let lock = PreparedStatement("SELECT pg_advisory_xact_lock($1::bigint)")
    private static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            id text COLLATE "C" PRIMARY KEY,
            applied_order integer NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """
    private static let tableExists = PreparedStatement("SELECT to_regclass('schema_migrations') IS NOT NULL")
    private static let applied = PreparedStatement("SELECT id FROM schema_migrations ORDER BY applied_order")
    private static let record = PreparedStatement(
        """
        INSERT INTO schema_migrations (id, applied_order)
        VALUES ($1, (SELECT count(*) FROM schema_migrations) + 1)
        """)

    /// The ids recorded as applied, in order; empty for a new database.
    func appliedIDs(_ connection: PostgresConnection) throws -> [String] {
        let exists = try connection.query(Self.tableExists)
        guard exists.count == 1, try exists[0].bool(at: 0) else { return [] }
        let rows = try connection.query(Self.applied)
        return try (0..<rows.count).map { try rows[$0].string(at: 0) }
    }

    /// The known migrations not yet applied, in order.
    /// - Throws: ``MigrationError/databaseNewerThanCode(unknownIDs:)``.
    func pendingMigrations(_ connection: PostgresConnection) throws -> [PostgresMigration] {
        let applied = try appliedIDs(connection)
        let known = Set(migrations.map(\.id))
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw MigrationError.databaseNewerThanCode(unknownIDs: unknown) }
        let appliedSet = Set(applied)
        return migrations.filter { !appliedSet.contains($0.id) }
    }

    /// Throws unless every known migration is applied and none is unknown.
    func checkMigrated(_ connection: PostgresConnection) throws {
        let pending = try pendingMigrations(connection)
        if !pending.isEmpty { throw MigrationError.pending(ids: pending.map(\.id)) }
    }

    /// Throws unless every known migration is applied (for readiness): migrations this code
    /// does not know, applied by a newer version during a rolling update, leave a running
    /// replica ready (a migration keeps the previous version working; docs/operations.md).
    func checkKnownApplied(_ connection: PostgresConnection) throws {
        let applied = Set(try appliedIDs(connection))
        let pending = migrations.filter { !applied.contains($0.id) }
        if !pending.isEmpty { throw MigrationError.pending(ids: pending.map(\.id)) }
    }

    /// How long a migration waits for a lock on what it changes before it gives up, lets what
    /// queued behind it run, and tries again (``migrate(_:lockWait:attempts:waiting:)``): well
    /// under the serving replicas' own lock wait (5 s), so that theirs, queued behind it, end
    /// in time.
    static let defaultLockWait: Duration = .milliseconds(500)
    /// How many times it tries: about ten minutes with the default wait and the pauses between
    /// tries, as long as an export may hold its snapshot (`--export-timeout`'s default).
    static let defaultLockAttempts = 400

    /// Applies the pending migrations and returns the ids applied now. Each transaction takes
    /// the advisory lock first and then looks at what is applied, so what another process
    /// applied meanwhile is seen (READ COMMITTED: each statement sees the latest commits).
    ///
    /// A migration's statements wait at most `lockWait` for a lock (`lock_timeout`): an
    /// `ALTER TABLE` behind a serving replica's long transaction (an export's snapshot) would
    /// otherwise hold every later statement on that table in the queue behind it, and the
    /// replicas of a rolling update with it. It then rolls back, says so through `waiting`,
    /// and tries again about a second later, at most `attempts` times; the last failure is thrown.
    /// - Parameter connection: outside any transaction.
    @discardableResult
    func migrate(
        _ connection: PostgresConnection, lockWait: Duration = defaultLockWait, attempts: Int = defaultLockAttempts,
        waiting: (_ migration: String, _ failed: Int, _ attempts: Int) -> Void = { _, _, _ in }
    ) throws -> [String] {
        var appliedNow: [String] = []
        var failed = 0
        while true {
            var trying: String?
            let next: String?
            do {
                next = try connection.inTransaction(.readCommitted) {
                    try connection.execute(Self.lock, [.int64(Self.lockKey)])
                    try connection.execute(Self.createTable)
                    guard let migration = try pendingMigrations(connection).first else { return nil }
                    trying = migration.id
                    try connection.execute("SET LOCAL lock_timeout = \(max(1, lockWait.nanoseconds / 1_000_000))")
                    try connection.execute(migration.sql)
                    try migration.dataStep?(connection)
                    try connection.execute(Self.record, [.text(migration.id)])
                    return migration.id
                }
            } catch let error as PostgresError where error.sqlState == "55P03" && failed + 1 < attempts {
                failed += 1
                waiting(trying ?? "?", failed, attempts)
                // 0.5-1.5 s: replicas that start together do not come back in step.
                Thread.sleep(forTimeInterval: Double.random(in: 0.5...1.5))
                continue
            }
            failed = 0
            guard let next else { return appliedNow }
            appliedNow.append(next)
        }
    }
}
