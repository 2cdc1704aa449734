public import AuditKeys
import Foundation
internal import Ownership
public import PermissionDomain

/// The permission store in one PostgreSQL database, with the semantics of SQLite's
/// store: the same rows, orders, filters and audit chain, so the API behaves the same on both.
///
/// ``read(_:)`` runs its body in `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY` on a pooled
/// connection: one snapshot per body (https://www.postgresql.org/docs/15/transaction-iso.html#XACT-REPEATABLE-READ).
/// ``write(_:)`` is group-committed by the store's ``PostgresWriter``, as on SQLite: concurrent
/// writes share one `BEGIN` ... `COMMIT`, each body in a savepoint of its own, after the
/// transaction has locked the audit chain's head row (`audit_head`, `FOR UPDATE`): batches are
/// serialized across connections and across replicas on the same database, as SQLite's single
/// writer serializes them, so `seq` is gap-free and the chain linear. The commit is durable
/// when a write returns (`synchronous_commit` on, the default).
///
/// Opened to serve (``ReadModelOptions``), it keeps a ``PostgresReadModel``: reads answer the
/// hot path from memory (``PostgresReadSession``), a ``PostgresChangeFollower`` applies other
/// replicas' commits from the audit log, and each write batch applies its own before its
/// writers return, so a replica reads its own writes at once and everyone's within the
/// follower's interval.
///
/// A serialization failure or deadlock (40001, 40P01) runs the whole batch again, up to
/// ``maximumAttempts`` times: bodies are pure store calls. A connection found broken before
/// the commit was sent is replaced and the batch run once more. A lost database (class 08 and
/// shutdown states), a lock held past ``lockTimeoutMilliseconds`` (55P03), a pool with no free
/// connection, and a commit whose outcome is unknown become ``PermissionError/unavailable(why:cause:)``.
/// A write transaction idle past ``idleWriteTimeoutMilliseconds`` is ended by the database: its
/// connection is then broken, and the batch runs once more on a new one.
/// A body's own error fails only that body (see ``PostgresWriter``).
public final class PostgresPermissionStore: PermissionStore {
    /// The default number of pooled connections.
    public static let defaultPoolSize = 4
    /// How long a statement waits for a row lock (the chain head) before it fails.
    public static let lockTimeoutMilliseconds = 5_000
    /// How long a write transaction may sit idle between its statements before the database
    /// ends its session (`idle_in_transaction_session_timeout`), which rolls it back and
    /// releases the chain head: a replica that stalls while it holds the head (a paused VM, a
    /// `SIGSTOP`) holds up every replica's writes for at most this long, under
    /// ``lockTimeoutMilliseconds``, so the writes waiting on it go on rather than fail. A write's
    /// statements follow each other within a round trip and a little work, so a long batch
    /// (each statement's own time does not count) is never ended by it.
    public static let idleWriteTimeoutMilliseconds = 2_000
    /// How many times a write batch (or a read) runs when it keeps losing serialization races or
    /// deadlocks.
    public static let maximumAttempts = 5

    /// The most writes committed in one transaction unless `open` is told otherwise (as
    /// SQLite's `DatabaseConfiguration.maximumBatchSize`).
    public static let defaultMaximumBatchSize = 256

    let pool: PostgresConnectionPool
    /// The snapshots open now (``openSnapshot()``), each holding a pooled connection.
    private let openSnapshots = Guarded(0)
    /// The most snapshots open at once: a quarter of the pool, at least 1, and never the whole
    /// of it (none with a pool of one). A snapshot holds its connection for as long as a client
    /// downloads an export, and reads and writes take theirs from the same pool, so slow
    /// downloads (any user may start one from the consent pages) must never hold all of it.
    package var maximumSnapshots: Int { min(max(1, pool.capacity / 4), pool.capacity - 1) }
    /// The audit log's per-user keys (``AuditKeyring``); nil only for `audit verify`, which
    /// reads the stored form.
    let keyring: AuditKeyring?
    /// Group-commits ``write(_:)``.
    package let writer: PostgresWriter
    /// nil unless opened with ``ReadModelOptions``.
    let readModel: PostgresReadModel?
    let follower: PostgresChangeFollower?

    /// How a serving replica keeps its read model.
    public struct ReadModelOptions: Sendable {
        /// The most records (and as many users' settings) the read cache holds; 0 turns it off
        /// (the follower still runs: it moves the visible revision and the change feed).
        public var cacheEntries: Int
        /// How often the follower reads the change log.
        public var followInterval: Duration
        /// The longest a serving replica's round trip to the database (a statement, a commit)
        /// may take: past it the call fails with `unavailable` (503) and its connection is given
        /// up (``PostgresConnection/answerTimeout``), so that a database that stops answering
        /// without closing its connections (a stopped process, a stalled disk) cannot hold
        /// every request for as long as it lasts. Default 10 s, twice the lock timeout.
        public var answerTimeout: Duration
        /// Told when the follower fails and when it recovers (for the log).
        public var report: @Sendable (_ message: String, _ failed: Bool) -> Void
        /// This host's clock, which ``PostgresPermissionStore/clockOffset`` measures against the
        /// database's; nil for the system's (another in tests).
        public var hostClock: (any Clock)?

        public init(
            cacheEntries: Int, followInterval: Duration = .milliseconds(100),
            answerTimeout: Duration = PostgresPermissionStore.defaultAnswerTimeout, hostClock: (any Clock)? = nil,
            report: @escaping @Sendable (_ message: String, _ failed: Bool) -> Void = { _, _ in }
        ) {
            self.cacheEntries = cacheEntries
            self.followInterval = followInterval
            self.answerTimeout = answerTimeout
            self.hostClock = hostClock
            self.report = report
        }
    }

    /// The migrations this store's open applied, in order (none when the database was up to date).
    public let appliedMigrations: [String]

    /// The database's clock against this host's, measured by the follower; nil unless opened
    /// with ``ReadModelOptions`` (a serving replica). `serve` keeps the database's time with it.
    public let clockOffset: PostgresClockOffset?

    private init(
        pool: PostgresConnectionPool, maximumBatchSize: Int, keyring: AuditKeyring?, readModel: PostgresReadModel?,
        follower: PostgresChangeFollower?, clockOffset: PostgresClockOffset? = nil, appliedMigrations: [String]
    ) {
        self.appliedMigrations = appliedMigrations
        self.clockOffset = clockOffset
        self.pool = pool
        self.keyring = keyring
        self.readModel = readModel
        self.follower = follower
        // A replica's read model learns of changes from the audit log only: on a store that
        // serves, every change must be audited (``UnauditedChange``).
        self.writer = PostgresWriter(
            pool: pool, maximumBatchSize: maximumBatchSize, keyring: keyring, checksAuditing: readModel != nil)
        writer.onCommit { [weak self] sessions, head in self?.didCommit(sessions, head: head) }
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
    ///   - readModel: to serve: keep a read model and follow the change log (``ReadModelOptions``);
    ///     nil for commands that read and write directly.
    ///   - keyring: the audit log's per-user keys, wrapped by the server key; every replica and
    ///     command opens one database with the same server key. nil only to verify the chain
    ///   (not migrating, no read model): entries can then be neither appended nor read.
    ///   - checkingServerKey: false for `copy` alone, which binds an empty database to the
    ///     source's key in its own transaction (``copyIn(_:)``) whichever key migrated it.
    ///   - migrationWaiting: told each time a migration gave up waiting for a lock another
    ///     transaction holds and tries again (``MigrationWaiting``).
    public static func open(
        connectionString: String, keyring: AuditKeyring?, poolSize: Int = defaultPoolSize, checkoutTimeout: Double = 5,
        maximumBatchSize: Int = defaultMaximumBatchSize, migrating: Bool = true, readModel options: ReadModelOptions? = nil,
        checkingServerKey: Bool = true, migrationWaiting: MigrationWaiting = { _, _, _ in }
    ) throws -> PostgresPermissionStore {
        precondition(maximumBatchSize >= 1, "a batch holds at least one write")
        precondition(keyring != nil || (!migrating && options == nil), "only a verifying store opens without the audit keyring")
        // A serving replica's statements end on the server before the client gives them up
        // (``ReadModelOptions/answerTimeout``; a tenth of it before, at most a second): one
        // the client no longer waits for does not keep running there, and each give-up starting
        // another would pile them up.
        let statementTimeout = options.map { options -> Int in
            let answer = options.answerTimeout
            return max(1, Int((answer - min(.seconds(1), answer / 10)).nanoseconds / 1_000_000))
        }
        let pool = PostgresConnectionPool(
            conninfo: connectionString, capacity: poolSize, checkoutTimeout: checkoutTimeout,
            setUp: "SET lock_timeout = \(lockTimeoutMilliseconds); \(durableCommits)"
                + (statementTimeout.map { "; SET statement_timeout = \($0)" } ?? ""),
            answerTimeout: options?.answerTimeout)
        var applied: [String] = []
        if migrating {
            // On a connection of its own, as `migrate` runs them: a migration may rewrite every
            // row, and is bounded by none of the serving pool's timeouts.
            let connection = try PostgresConnection(connectionString)
            if let keyring, checkingServerKey { try checkServerKeyIfKeyed(connection, keyring: keyring) }
            applied = try PostgresSchema.migrator(keyring: keyring).migrate(connection, waiting: migrationWaiting)
        } else {
            try pool.withConnection { try PostgresSchema.migrations.checkMigrated($0) }
        }
        if let keyring, checkingServerKey { try pool.withConnection { try checkServerKey($0, keyring: keyring) } }
        guard let options else {
            return PostgresPermissionStore(
                pool: pool, maximumBatchSize: maximumBatchSize, keyring: keyring, readModel: nil, follower: nil,
                appliedMigrations: applied)
        }
        let model = PostgresReadModel(cacheCapacity: options.cacheEntries) { keyring?.forgetUnwrappedKeys() }
        let clockOffset = PostgresClockOffset(hostClock: options.hostClock)
        let report: @Sendable (PostgresChangeFollower.Event) -> Void = { event in
            switch event {
            case .failed(let message): options.report("cannot read the change log: \(message)", true)
            case .recovered: options.report("reading the change log again", false)
            case .rewound(let from, let to):
                options.report(
                    "the audit log's last entry is \(to), behind the \(from) this replica had shown: entries were "
                        + "deleted or the database restored under it; its read model was emptied and reads the log "
                        + "again from \(to), whose next seqs are given out again. Check the log against the heads "
                        + "recorded elsewhere (docs/audit-chain.md)", true)
            case .clockOff(let offset):
                options.report(
                    "this host's clock is \(PostgresClockOffset.describe(offset)) the database's: this replica keeps the "
                        + "database's time (deadlines, audit times); set the host's clock right (NTP)", true)
            case .clockRight(let offset):
                options.report(
                    "this host's clock is back within a second of the database's (\(PostgresClockOffset.describe(offset)))",
                    false)
            }
        }
        try pool.withConnection { connection in
            // Before the first write: the database's time is known from the start.
            if let change = try clockOffset.sampleReportingChange(on: connection) { report(.clock(change)) }
            let started = ContinuousClock.now
            try connection.execute(beginRead)
            defer { connection.rollbackIgnoringErrors() }
            let session = PostgresSession(connection: connection)
            model.start(at: try session.lastAuditSeq(), catalogue: try session.catalogue())
            model.synced(at: started)
        }
        let follower = PostgresChangeFollower(
            conninfo: connectionString, model: model, interval: options.followInterval, answerTimeout: options.answerTimeout,
            clockOffset: clockOffset, report: report)
        follower.start()
        return PostgresPermissionStore(
            pool: pool, maximumBatchSize: maximumBatchSize, keyring: keyring, readModel: model, follower: follower,
            clockOffset: clockOffset, appliedMigrations: applied)
    }

    /// A commit is acknowledged once it is durable (SPEC §9): a database, role or server whose
    /// `synchronous_commit` is `off` (a common tuning) would acknowledge writes a crash can
    /// lose, so the pool's sessions turn it `on`; any other value (`local`, `remote_write`,
    /// `remote_apply`) is left as the operator set it.
    static let durableCommits =
        "SELECT CASE WHEN current_setting('synchronous_commit') = 'off' THEN set_config('synchronous_commit', 'on', false) END"

    private static let checkValue = PreparedStatement("SELECT check_value FROM audit_keyring WHERE id = 1")

    /// The check value of the server key the database's audit keys are wrapped under; nil
    /// before the migration that makes it.
    private static func storedCheckValue(_ connection: PostgresConnection) throws -> String? {
        let result = try connection.query(checkValue)
        return result.count > 0 ? result[0].optionalString(at: 0) : nil
    }

    /// Throws ``AuditKeyError/wrongServerKey`` unless `keyring` is the one the database's audit
    /// keys were wrapped with (its check value, written by the migration that made the keys).
    private static func checkServerKey(_ connection: PostgresConnection, keyring: AuditKeyring) throws {
        guard let stored = try storedCheckValue(connection), keyring.matches(checkValue: stored) else {
            throw AuditKeyError.wrongServerKey
        }
    }

    private static let keyringExists = PreparedStatement("SELECT to_regclass('audit_keyring') IS NOT NULL")

    /// ``checkServerKey(_:keyring:)`` when the database's audit keys exist already, before any
    /// migration: with the wrong key nothing is migrated (a refused start that had migrated the
    /// database would leave it unreadable by the previous version). A database from before the
    /// audit keys gets them from its migration, wrapped under `keyring`, and is checked after.
    private static func checkServerKeyIfKeyed(_ connection: PostgresConnection, keyring: AuditKeyring) throws {
        guard try connection.query(keyringExists)[0].bool(at: 0) else { return }
        try checkServerKey(connection, keyring: keyring)
    }

    /// Stops the change-log follower (a serving replica's shutdown); also done when the store
    /// goes away.
    public func close() {
        follower?.stop()
    }

    deinit {
        follower?.stop()
    }

    /// ``ReadModelOptions/answerTimeout``'s default.
    public static let defaultAnswerTimeout: Duration = .seconds(10)

    /// Told when a migration gave up waiting for a lock that another transaction holds (a
    /// serving replica's long read, an export's snapshot), rolled back so that what queued
    /// behind it runs, and tries again a second later: the migration's id, the attempts that
    /// failed so far, and how many it makes.
    public typealias MigrationWaiting = @Sendable (_ migration: String, _ failed: Int, _ attempts: Int) -> Void

    /// Applies pending migrations to the database and returns their ids.
    @discardableResult
    public static func migrate(
        connectionString: String, keyring: AuditKeyring, waiting: MigrationWaiting = { _, _, _ in }
    ) throws -> [String] {
        let connection = try PostgresConnection(connectionString)
        try checkServerKeyIfKeyed(connection, keyring: keyring)
        let applied = try PostgresSchema.migrator(keyring: keyring).migrate(connection, waiting: waiting)
        try checkServerKey(connection, keyring: keyring)
        return applied
    }

    /// The ids of the migrations this code knows, in order.
    public static var knownMigrations: [String] { PostgresSchema.migrations.migrations.map(\.id) }

    /// The number of open pooled connections (for tests).
    package var openConnections: Int { pool.openConnections }

    /// For `/readyz`: throws unless the database answers, every known migration is applied, and
    /// the database's audit keys are still wrapped under this replica's server key.
    /// Migrations a newer version applied while this replica runs (a rolling update) keep it
    /// ready: taking every old replica out the moment the new version migrates would leave no
    /// replica serving. A newer schema is refused at start only.
    /// How long the follower may go without reading the change log before readiness fails at
    /// once (a database that stopped answering): probes get their `503` before their own
    /// timeouts, not after the answer timeout.
    static let readinessStaleness: Duration = .seconds(5)

    public func checkReady() throws {
        if let readModel, readModel.hasFallenBehind(by: Self.readinessStaleness) {
            throw PermissionError.unavailable(
                why: "the change log has not been read for \(Self.readinessStaleness); the database is not answering")
        }
        try run(begin: Self.beginRead, lockHead: false) { session in
            try PostgresSchema.migrations.checkKnownApplied(session.connection)
            // A replica left on a server key that `audit rotate-key` replaced can read no
            // rewrapped key: out of the load balancer's rotation until it restarts on the new one.
            if let keyring, let stored = try Self.storedCheckValue(session.connection), !keyring.matches(checkValue: stored) {
                throw AuditKeyError.wrongServerKey
            }
        }
    }

    public func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T {
        guard let readModel else { return try run(begin: Self.beginRead, lockHead: false) { try body($0) } }
        var replacedConnection = false
        while true {
            let session = PostgresReadSession(pool: pool, model: readModel, keyring: keyring)
            defer { session.finish() }
            do {
                return try body(session)
            } catch let error as PostgresError {
                if error.isConnectionFailure && !error.isAnswerTimeout && !replacedConnection {
                    replacedConnection = true  // the broken connection is dropped at checkin
                    continue
                }
                throw Self.mapped(error)
            } catch let error as PostgresPoolTimeout {
                throw PermissionError.unavailable(why: error.description)
            } catch let error as AuditKeyError {
                session.finish()  // its connection back first: the check takes one of its own
                throw mapped(error)
            }
        }
    }

    public func write<T: Sendable>(_ body: @Sendable (any PermissionWriter) throws -> T) throws -> T {
        try writer.write { try body($0) }
    }

    /// A snapshot on a pooled connection (``PostgresSnapshot``), which it holds until closed,
    /// read from the database alone (not from the read model): the transaction begins here,
    /// again on a new connection when the pooled one proves broken.
    /// - Throws: ``PermissionError/unavailable(why:cause:)`` when ``maximumSnapshots`` are open
    ///   already, or no connection came free.
    public func openSnapshot() throws -> any PermissionSnapshot {
        let maximum = maximumSnapshots
        let reserved = openSnapshots.withLock { access in
            guard access.state < maximum else { return false }
            access.state += 1
            return true
        }
        guard reserved else {
            guard maximum > 0 else {
                throw PermissionError.unavailable(
                    why: "exports need a --database-pool-size of 2 or more: one connection is kept for reads and writes")
            }
            throw PermissionError.unavailable(
                why: "\(maximum) exports are being read already, the most at once (a quarter of --database-pool-size)")
        }
        let release: @Sendable () -> Void = { [openSnapshots] in openSnapshots.withLock { $0.state -= 1 } }
        do {
            return try openSnapshot(release: release)
        } catch {
            release()
            throw error
        }
    }

    /// The snapshots open now, for tests.
    package var snapshotsOpen: Int { openSnapshots.withLock { $0.state } }

    private func openSnapshot(release: @escaping @Sendable () -> Void) throws -> any PermissionSnapshot {
        var replacedConnection = false
        while true {
            do {
                let connection = try pool.checkout()
                do {
                    try connection.execute(Self.beginRead)
                    // Before anything is sent: an export's entries would not open past here.
                    try refuseReplacedServerKey(connection)
                } catch {
                    connection.rollbackIgnoringErrors()
                    pool.checkin(connection)  // a broken one is dropped
                    throw error
                }
                connection.use.leave()  // the snapshot lends it again for each read
                return PostgresSnapshot(pool: pool, connection: connection, keyring: keyring, onClose: release)
            } catch let error as PostgresError {
                if error.isConnectionFailure && !error.isAnswerTimeout && !replacedConnection {
                    replacedConnection = true
                    continue
                }
                throw Self.mapped(error)
            } catch let error as PostgresPoolTimeout {
                throw PermissionError.unavailable(why: error.description)
            }
        }
    }

    /// The pooled connections checked out now (reads, writes, open snapshots).
    package var connectionsInUse: Int { pool.checkedOutCount }

    /// The group-commit counters (``PostgresWriter/Statistics``), for tests and metrics.
    package var writeStatistics: PostgresWriter.Statistics { writer.currentStatistics }

    static let beginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Runs `body` in one transaction of its own, again on retryable failures (see the type's
    /// summary): reads, and the copy transaction; writes go through ``writer``.
    func run<T>(begin: String, lockHead: Bool, _ body: (PostgresSession) throws -> T) throws -> T {
        var attempt = 0
        var replacedConnection = false
        while true {
            attempt += 1
            do {
                return try pool.withConnection { connection in
                    try transaction(on: connection, begin: begin, lockHead: lockHead, body)
                }
            } catch let error as PostgresError {
                if error.isRetryableTransactionFailure && attempt < Self.maximumAttempts { continue }
                if error.isConnectionFailure && !error.isAnswerTimeout && !replacedConnection {
                    // The broken connection was dropped at checkin; nothing was committed.
                    replacedConnection = true
                    continue
                }
                throw Self.mapped(error)
            } catch let error as PostgresCommitOutcomeUnknown {
                throw PermissionError.unavailable(
                    why: PermissionError.commitOutcomeUnknown, cause: error.underlying.message)
            } catch let error as PostgresPoolTimeout {
                throw PermissionError.unavailable(why: error.description)
            } catch let error as AuditKeyError {
                throw mapped(error)
            }
        }
    }

    /// What a replica whose server key `audit rotate-key` replaced is told when it reads the
    /// audit log: no user's key opens under its key, as it would under no key of a damaged
    /// database. When the database's check value is another key's, that is the rotation: 503
    /// (`/readyz` is already false), as its writes about new users are; otherwise the error
    /// stands (a 500: the database was changed outside the program).
    private func mapped(_ error: AuditKeyError) -> any Error {
        guard case .unreadable = error else { return error }
        do {
            try pool.withConnection { try refuseReplacedServerKey($0) }
        } catch let replaced as PermissionError {
            return replaced
        } catch {
            // The check itself failed: the original error says more.
        }
        return error
    }

    /// Throws ``PermissionError/unavailable(why:cause:)`` when the database's audit keys are
    /// wrapped under another server key than this store's (a rotation since it opened).
    private func refuseReplacedServerKey(_ connection: PostgresConnection) throws {
        guard let keyring, let stored = try Self.storedCheckValue(connection), !keyring.matches(checkValue: stored) else {
            return
        }
        throw PermissionError.unavailable(why: Self.serverKeyReplaced)
    }

    /// Why a replica on a replaced server key refuses (its writes about new users say the same).
    package static let serverKeyReplaced = "the audit server key was replaced; this server must be restarted with the new one"

    func transaction<T>(
        on connection: PostgresConnection, begin: String, lockHead: Bool, _ body: (PostgresSession) throws -> T
    ) throws -> T {
        try connection.execute(begin)
        let session = PostgresSession(connection: connection, keyring: keyring)
        let result: T
        do {
            if lockHead { _ = try session.lockAuditChainHead() }
            result = try body(session)
        } catch {
            connection.rollbackIgnoringErrors()
            throw error
        }
        try connection.commitOrReportUnknownOutcome()
        return result
    }

    /// A lost database, a lock wait or a statement that timed out (or was cancelled) is
    /// ``PermissionError/unavailable(why:cause:)``
    /// (the API answers 503); other errors stay ``PostgresError``s (a 500, as SQLite's errors).
    /// libpq's message is the `cause`, for the server's log only: it names the database's host
    /// and port, which are none of an API client's business.
    static func mapped(_ error: PostgresError) -> any Error {
        if error.isConnectionFailure {
            return PermissionError.unavailable(why: unreachable, cause: error.message)
        }
        if error.sqlState == "55P03" {  // lock_not_available
            return PermissionError.unavailable(
                why: "the database did not grant a lock within the lock timeout", cause: error.message)
        }
        if error.sqlState == "57014" {  // query_canceled: the statement timeout, or an operator
            return PermissionError.unavailable(
                why: "the database ended the query (its statement timeout, or an operator cancelled it)", cause: error.message)
        }
        return error
    }

    /// What a client is told while the database cannot be reached.
    package static let unreachable = "the database is unavailable"
}
