import Foundation
public import PermissionDomain

/// The permission store in one PostgreSQL database (issue 19), with the semantics of SQLite's
/// store: the same rows, orders, filters and audit chain, so the API behaves the same on both.
///
/// ``read(_:)`` runs its body in `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY` on a pooled
/// connection: one snapshot per body (https://www.postgresql.org/docs/15/transaction-iso.html#XACT-REPEATABLE-READ).
/// ``write(_:)`` is group-committed by the store's ``PostgresWriter``, as on SQLite: concurrent
/// writes share one `BEGIN` ... `COMMIT`, each body in a savepoint of its own, after the
/// transaction has locked the audit chain's head row (`audit_head`, `FOR UPDATE`): batches are
/// serialized across connections and across replicas on the same database, as SQLite's single
/// writer serializes them, so `seq` is gap-free and the chain linear. The commit is durable
/// when a write returns (`synchronous_commit` on, the default). No read cache yet.
///
/// A serialization failure or deadlock (40001, 40P01) runs the whole batch again, up to
/// ``maximumAttempts`` times: bodies are pure store calls. A connection found broken before
/// the commit was sent is replaced and the batch run once more. A lost database (class 08 and
/// shutdown states), a lock held past ``lockTimeoutMilliseconds`` (55P03), a pool with no free
/// connection, and a commit whose outcome is unknown become ``PermissionError/unavailable(why:)``.
/// A body's own error fails only that body (see ``PostgresWriter``).
public final class PostgresPermissionStore: PermissionStore {
    /// The default number of pooled connections.
    public static let defaultPoolSize = 4
    /// How long a statement waits for a row lock (the chain head) before it fails.
    public static let lockTimeoutMilliseconds = 5_000
    /// How many times a write batch (or a read) runs when it keeps losing serialization races or
    /// deadlocks.
    public static let maximumAttempts = 5

    /// The most writes committed in one transaction unless `open` is told otherwise (as
    /// SQLite's `DatabaseConfiguration.maximumBatchSize`).
    public static let defaultMaximumBatchSize = 256

    let pool: PostgresConnectionPool
    /// Group-commits ``write(_:)``.
    package let writer: PostgresWriter

    private init(pool: PostgresConnectionPool, maximumBatchSize: Int) {
        self.pool = pool
        self.writer = PostgresWriter(pool: pool, maximumBatchSize: maximumBatchSize)
        writer.onCommit { [weak self] sessions in self?.didCommit(sessions) }
    }

    /// Connects, applies pending migrations (under the migrations' advisory lock) and returns
    /// the store.
    /// - Parameters:
    ///   - connectionString: a libpq `key=value` string or `postgres://` URI; never logged.
    ///   - poolSize: the most connections open at once.
    ///   - checkoutTimeout: seconds a call waits for a free connection before it is unavailable.
    ///   - maximumBatchSize: the most writes committed together in one transaction (group
    ///     commit); at least 1.
    ///   - migrating: false to write nothing (`audit verify`): the schema must then be up to
    ///     date already.
    /// - Throws: ``MigrationError/databaseNewerThanCode(unknownIDs:)`` when the database
    ///   was migrated by a newer version, ``MigrationError/pending(ids:)`` when not migrating
    ///   and migrations are pending; ``PostgresError`` when it cannot be reached.
    public static func open(
        connectionString: String, poolSize: Int = defaultPoolSize, checkoutTimeout: Double = 5,
        maximumBatchSize: Int = defaultMaximumBatchSize, migrating: Bool = true
    ) throws -> PostgresPermissionStore {
        precondition(maximumBatchSize >= 1, "a batch holds at least one write")
        let pool = PostgresConnectionPool(
            conninfo: connectionString, capacity: poolSize, checkoutTimeout: checkoutTimeout,
            setUp: "SET lock_timeout = \(lockTimeoutMilliseconds)")
        if migrating {
            _ = try pool.withConnection { try PostgresSchema.migrator.migrate($0) }
        } else {
            try pool.withConnection { try PostgresSchema.migrator.checkMigrated($0) }
        }
        return PostgresPermissionStore(pool: pool, maximumBatchSize: maximumBatchSize)
    }

    /// Applies pending migrations to the database and returns their ids.
    @discardableResult
    public static func migrate(connectionString: String) throws -> [String] {
        try PostgresSchema.migrator.migrate(try PostgresConnection(connectionString))
    }

    /// The ids of the migrations this code knows, in order.
    public static var knownMigrations: [String] { PostgresSchema.migrator.migrations.map(\.id) }

    /// The number of open pooled connections (for tests).
    package var openConnections: Int { pool.openConnections }

    /// For `/readyz`: throws unless the database answers and every known migration is applied
    /// (and no unknown one).
    public func checkReady() throws {
        try run(begin: Self.beginRead, lockHead: false) { session in
            try PostgresSchema.migrator.checkMigrated(session.connection)
        }
    }

    public func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T {
        try run(begin: Self.beginRead, lockHead: false) { try body($0) }
    }

    public func write<T: Sendable>(_ body: @Sendable (any PermissionWriter) throws -> T) throws -> T {
        try writer.write { try body($0) }
    }

    /// The read model hooks in here: called after the commit is durable, before the writers
    /// return. Called on the writer queue once per committed batch, with the sessions of the
    /// bodies that committed, in the order they ran (a body rolled back to its savepoint is not
    /// among them); the batch's connection is still checked out, outside any transaction.
    func didCommit(_ sessions: [PostgresSession]) {}

    /// The group-commit counters (``PostgresWriter/Statistics``), for tests and metrics.
    package var writeStatistics: PostgresWriter.Statistics { writer.currentStatistics }

    static let beginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// The commit of a write failed on a lost connection: it may or may not have been applied,
    /// so it is never run again.
    private struct CommitOutcomeUnknown: Error {
        let underlying: PostgresError
    }

    /// Runs `body` in one transaction of its own, again on retryable failures (see the type's
    /// summary): reads, and the copy transaction; writes go through ``writer``.
    func run<T>(begin: String, lockHead: Bool, _ body: (PostgresSession) throws -> T) throws -> T {
        var attempt = 0
        var replacedConnection = false
        while true {
            attempt += 1
            do {
                return try pool.withConnection { connection in
                    try Self.transaction(on: connection, begin: begin, lockHead: lockHead, body)
                }
            } catch let error as PostgresError {
                if error.isRetryableTransactionFailure && attempt < Self.maximumAttempts { continue }
                if error.isConnectionFailure && !replacedConnection {
                    // The broken connection was dropped at checkin; nothing was committed.
                    replacedConnection = true
                    continue
                }
                throw Self.mapped(error)
            } catch let error as CommitOutcomeUnknown {
                throw PermissionError.unavailable(
                    why: "the database connection was lost during the commit: \(error.underlying.message)")
            } catch let error as PostgresPoolTimeout {
                throw PermissionError.unavailable(why: error.description)
            }
        }
    }

    private static func transaction<T>(
        on connection: PostgresConnection, begin: String, lockHead: Bool, _ body: (PostgresSession) throws -> T
    ) throws -> T {
        try connection.execute(begin)
        let session = PostgresSession(connection: connection)
        let result: T
        do {
            if lockHead { _ = try session.lockAuditChainHead() }
            result = try body(session)
        } catch {
            connection.rollbackIgnoringErrors()
            throw error
        }
        do {
            try connection.commit()
        } catch let error as PostgresError where error.isConnectionFailure {
            throw CommitOutcomeUnknown(underlying: error)
        } catch {
            connection.rollbackIgnoringErrors()
            throw error
        }
        return result
    }

    /// A lost database or a lock wait that timed out is ``PermissionError/unavailable(why:)``
    /// (the API answers 503); other errors stay ``PostgresError``s (a 500, as SQLite's errors).
    static func mapped(_ error: PostgresError) -> any Error {
        if error.isConnectionFailure { return PermissionError.unavailable(why: "the database is unreachable: \(error.message)") }
        if error.sqlState == "55P03" { return PermissionError.unavailable(why: error.message) }  // lock_not_available
        return error
    }
}
