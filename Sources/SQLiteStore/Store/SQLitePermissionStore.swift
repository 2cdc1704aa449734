public import AuditKeys
internal import CSQLite
import Foundation
public import PermissionDomain

/// The permission store in one SQLite file: one group-committing writer and a pool of WAL
/// readers (https://www.sqlite.org/wal.html), the schema of ``PermissionSchema``.
///
/// ``read(_:)`` runs its body in a deferred read transaction on a pooled reader, so the
/// queries of one body see one snapshot and never wait for the writer. ``write(_:)`` runs its
/// body in its own savepoint inside a group commit: a mutation and its audit entry are atomic,
/// and the call returns after the commit is on disk (`synchronous=FULL`). The hot-path read of
/// one record goes through a ``ReadCache``, which the writer keeps exact (``ReadCacheTracker``).
public final class SQLitePermissionStore: PermissionStore {
    /// The database file.
    public let path: String
    package let pool: DatabasePool

    /// What reader sessions share: the services that may have policies (so reads skip the
    /// policy query for the others) and the read cache.
    private let readerShared: StoreSession.Shared
    /// The same for the writer's sessions, without the cache.
    let writerShared: StoreSession.Shared
    /// The same for the sessions of snapshots (``openSnapshot()``): without the cache, and
    /// with the policy services unknown (every service queried). Both follow the latest
    /// commits, where a snapshot must show its own state alone, for however long it is open.
    private let snapshotShared: StoreSession.Shared

    /// The default ``open(path:configuration:readCacheEntries:migrationProgress:)`` cache size.
    public static let defaultReadCacheEntries = 1_000_000

    /// Keeps the read cache in step with the writer; nil when the cache is off.
    let readCacheTracker: ReadCacheTracker?
    /// Told of every commit; tells ``observeChanges(_:)``'s observers of other processes' ones.
    private let commitObserver: StoreCommitObserver

    /// The migrations this store's open applied, in order (none when the file was up to date).
    public let appliedMigrations: [String]
    /// Whether the open was asked to empty the write-ahead log an earlier process left and
    /// could not (another process held the database busy): the checkpointer's scrub tries again.
    public let leftoverLogBusy: Bool

    private init(
        pool: DatabasePool, policyServices: PolicyServices, auditChainTip: AuditChainTipCache, tracker: ReadCacheTracker?,
        keyring: AuditKeyring, commitObserver: StoreCommitObserver, appliedMigrations: [String], leftoverLogBusy: Bool
    ) {
        self.appliedMigrations = appliedMigrations
        self.leftoverLogBusy = leftoverLogBusy
        let cache = tracker?.cache
        self.pool = pool
        self.readCacheTracker = tracker
        self.commitObserver = commitObserver
        self.path = pool.path
        readerShared = StoreSession.Shared(policyServices: policyServices, cache: cache, keyring: keyring)
        let checkpointer = pool.writer.checkpointer
        writerShared = StoreSession.Shared(
            policyServices: policyServices, cache: nil, auditChainTip: auditChainTip, keyring: keyring,
            scrubWAL: { checkpointer.scrubAfterCommit() })
        snapshotShared = StoreSession.Shared(policyServices: PolicyServices(), cache: nil, keyring: keyring)
    }

    /// Opens the store at `path`, creating the file (`0600`) and its parent directory (`0700`)
    /// when missing (``PrivateFiles``), and applies pending migrations.
    /// - Parameters:
    ///   - path: the database file.
    ///   - configuration: pragmas, pool and batch sizes.
    ///   - keyring: the audit log's per-user keys, wrapped by the server key (``AuditKeyring``);
    ///     a database is always opened with the server key it was first opened with.
    ///   - readCacheEntries: the most authorization records and user settings the hot-path read
    ///     keeps in memory (``ReadCache``); 0 reads every one from the file.
    ///   - emptyingLeftoverLog: empty the write-ahead log an earlier process left, before
    ///     anything is read (`serve`, ``leftoverLogBusy`` when it could not).
    ///   - migrationProgress: told (message, rows done, rows in all) by long migrations (the
    ///     audit hash chain backfill), for logging.
    /// - Throws: ``SQLiteError``, or ``MigrationError/databaseNewerThanCode(unknownIDs:)`` when
    ///   the file was written by a newer version, ``AuditKeyError/wrongServerKey`` when its
    ///   audit keys were wrapped by another server key.
    public static func open(
        path: String, configuration: DatabaseConfiguration = .init(), keyring: AuditKeyring,
        readCacheEntries: Int = defaultReadCacheEntries, emptyingLeftoverLog: Bool = false,
        migrationProgress: (@Sendable (_ message: String, _ done: Int64, _ total: Int64) -> Void)? = nil
    ) throws -> SQLitePermissionStore {
        let pool = try openPool(path: path, configuration: configuration)
        let auditChainTip = AuditChainTipCache()
        pool.writer.track(auditChainTip)  // undone with rolled-back bodies, forgotten on unseen changes
        let applied = try pool.writeWithoutTransaction { database in
            try migrateCheckingServerKey(database, keyring: keyring, progress: migrationProgress)
        }
        // Before any observer is attached (`attach` reads the data version after it): a process
        // killed between an erasure's commit and its scrub left the erased rows' older frames in
        // the WAL, and the erasure cannot be asked for again.
        let leftoverLogBusy = try emptyingLeftoverLog && !pool.writeWithoutTransaction { try $0.truncateWAL() }
        var tracker: ReadCacheTracker?
        if readCacheEntries > 0 {
            let created = ReadCacheTracker(cache: ReadCache(capacity: readCacheEntries), auditChainTip: auditChainTip)
            try pool.writeWithoutTransaction { try created.install(on: $0) }
            tracker = created
        }
        let policyServices = PolicyServices()
        // Loads the policy services and the audit head, then follows every commit.
        let commitObserver = StoreCommitObserver(
            policyServices: policyServices, tracker: tracker, auditChainTip: auditChainTip)
        try pool.writer.attach(commitObserver)
        if leftoverLogBusy { pool.writer.checkpointer.scrubWAL() }
        return SQLitePermissionStore(
            pool: pool, policyServices: policyServices, auditChainTip: auditChainTip, tracker: tracker, keyring: keyring,
            commitObserver: commitObserver, appliedMigrations: applied, leftoverLogBusy: leftoverLogBusy)
    }

    /// Calls `observer` when the writer sees a commit of another process (the `keys`
    /// subcommand, a second server on the same file), within
    /// ``DatabaseWriter/foreignCommitCheckInterval``, on the writer's queue; its own commits
    /// are visible when they return and are not reported.
    public func observeChanges(_ observer: @escaping @Sendable (VisibleChanges) -> Void) {
        commitObserver.observe(observer)
    }

    /// Throws ``AuditKeyError/wrongServerKey`` unless `keyring` is the one the database's audit
    /// keys were wrapped with (its check value, written by the migration that made the keys).
    private static func checkServerKey(_ database: Database, keyring: AuditKeyring) throws {
        let stored = try database.withStatement("SELECT check_value FROM audit_keyring WHERE id = 1") {
            try $0.step() ? $0.string(at: 0) : nil
        }
        guard let stored, keyring.matches(checkValue: stored) else { throw AuditKeyError.wrongServerKey }
    }

    /// The writer's audit chain tip (``AuditChainTipCache``).
    var auditChainTip: AuditChainTipCache? { writerShared.auditChainTip }

    /// Called on the writer's queue when an audit entry this server wrote or read is found gone
    /// or changed after another process committed to the file (``AuditChainTipCache``): the log
    /// was changed around its append-only triggers, or restored under the running server. Set
    /// it once, right after opening.
    package func onAuditChainRewrite(_ handler: @escaping @Sendable (AuditChainRewrite) -> Void) {
        writerShared.auditChainTip?.onRewrite = handler
    }

    /// How many times since the open an entry this server knew was found gone or changed.
    package var auditChainRewrites: UInt64 { writerShared.auditChainTip?.rewrites ?? 0 }

    /// The read cache, nil when it is off.
    var readCache: ReadCache? { readerShared.cache }

    /// The read cache's counters, or nil when it is off.
    package var readCacheStatistics: ReadCache.Statistics? { readerShared.cache?.statistics }

    /// Applies pending migrations to the file at `path` and returns their ids (the server's
    /// `migrate` subcommand).
    @discardableResult
    public static func migrate(
        path: String, configuration: DatabaseConfiguration = .init(), keyring: AuditKeyring,
        progress: (@Sendable (_ message: String, _ done: Int64, _ total: Int64) -> Void)? = nil
    ) throws -> [String] {
        let pool = try openPool(path: path, configuration: configuration)
        return try pool.writeWithoutTransaction { database in
            try migrateCheckingServerKey(database, keyring: keyring, progress: progress)
        }
    }

    /// Applies pending migrations with the server key checked first: a database whose audit
    /// keys exist is refused with ``AuditKeyError/wrongServerKey`` before any migration is
    /// committed (a refused start that had migrated the file would leave it unreadable by the
    /// previous version). A database from before the audit keys gets them from its migration,
    /// wrapped under `keyring`, and is checked after.
    private static func migrateCheckingServerKey(
        _ database: Database, keyring: AuditKeyring, progress: Migration.Progress?
    ) throws -> [String] {
        let hasKeyring = try database.withStatement(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'audit_keyring'"
        ) { try $0.step() }
        if hasKeyring { try checkServerKey(database, keyring: keyring) }
        let applied = try PermissionSchema.migrator(keyring: keyring).migrate(database, progress: progress)
        try checkServerKey(database, keyring: keyring)
        return applied
    }

    /// The ids of the migrations this code knows, in order.
    public static var knownMigrations: [String] { PermissionSchema.migrations.migrations.map(\.id) }

    /// The ids of the migrations `database` has applied, in order (read only; for `copy`).
    package static func appliedMigrations(_ database: Database) throws -> [String] {
        try PermissionSchema.migrations.appliedIDs(database)
    }

    private static func openPool(path: String, configuration: DatabaseConfiguration) throws -> DatabasePool {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try PrivateFiles.createDirectory(directory) }  // 0700, SPEC §12
        return try DatabasePool(path: path, configuration: configuration)
    }

    /// Free space on the database's file system below which the server is not ready: room
    /// for the WAL to take a few large batches.
    public static let minimumFreeBytes: Int64 = 1 << 20

    /// For `/readyz`: throws unless every known migration is applied (and no unknown one) and
    /// the file takes durable writes: its file system has `minimumFreeBytes` free for this
    /// process (a full disk fails every commit with `SQLITE_FULL`), the file is not read-only,
    /// it is still the file at its path (not deleted or replaced under the server), and a commit
    /// that rewrites the header's `user_version` with its own value (one page in the WAL and a
    /// sync, in the writer's next batch) succeeds, so a failing disk (`SQLITE_IOERR`) makes the
    /// server unready too.
    public func checkReady(minimumFreeBytes: Int64 = minimumFreeBytes) throws {
        try pool.read { try PermissionSchema.migrations.checkMigrated($0) }
        var space = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        if statvfs(directory.isEmpty ? "." : directory, &space) == 0 {
            let free = Int64(space.f_bavail) * Int64(space.f_frsize)
            if free < minimumFreeBytes {
                throw SQLiteError.full("\(free) bytes free on the database's file system, under the \(minimumFreeBytes) it needs")
            }
        }
        try pool.write { database in
            if database.isReadOnly {
                throw SQLiteError.readOnly("the database file is read-only")
            }
            if try database.fileHasMoved() {
                throw SQLiteError.cannotOpen("the database file was deleted or replaced while the server had it open")
            }
            let version = try database.withStatement("PRAGMA user_version") { try $0.step() ? $0.int(at: 0) : 0 }
            try database.execute("PRAGMA user_version = \(version)")
        }
    }

    /// Copies the live database to `destination` (a consistent snapshot; see
    /// ``DatabasePool/backup(to:pagesPerStep:progress:)``).
    /// - Parameters:
    ///   - destination: the backup file, replaced atomically.
    ///   - progress: called with (pages copied, total pages) after each step, for logging.
    public func backup(to destination: String, progress: (@Sendable (_ copied: Int, _ total: Int) -> Void)? = nil) throws {
        try pool.backup(to: destination) { step in progress?(step.copied, step.total) }
    }

    /// The last audit seq readers see: with the read cache on, where the writer's last commit
    /// ended (no read); else the file's.
    public func visibleRevision() throws -> Int64 {
        if let cache = readCache { return cache.visibleAuditSeq }
        return try read { try $0.lastAuditSeq() }
    }

    /// - Throws: the body's error; ``PermissionError/unavailable(why:cause:)`` when no reader became
    ///   free or a lock stayed held for the busy timeout; other `SQLiteError`s.
    public func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T {
        // Before the checkout: see ReadCache.
        let generation = readerShared.cache?.generation ?? 0
        do {
            return try pool.read { database in
                try body(StoreSession(database: database, shared: readerShared, cacheGeneration: generation))
            }
        } catch let error as SQLiteError where error.isBusy {
            throw PermissionError.unavailable(why: error.message)
        }
    }

    /// A snapshot on a connection of the pool's own for them (``DatabasePool/snapshot()``),
    /// outside the readers ``read(_:)`` takes from, read from the file alone (not through the
    /// read cache, which a long read would also fill with what only it asks for).
    /// - Throws: ``PermissionError/unavailable(why:cause:)`` when every snapshot connection
    ///   stayed taken for the busy timeout; other `SQLiteError`s.
    public func openSnapshot() throws -> any PermissionSnapshot {
        do {
            return SQLiteSnapshot(lease: try pool.snapshot(), shared: snapshotShared)
        } catch let error as SQLiteError where error.isBusy {
            throw PermissionError.unavailable(why: error.message)
        }
    }

    /// The snapshot connections checked out now (``openSnapshot()``): each open snapshot holds one.
    package var snapshotConnectionsInUse: Int { pool.snapshots.checkedOutCount }

    /// - Throws: the body's error; ``PermissionError/unavailable(why:cause:)`` when the write lock
    ///   stayed held by another process for the busy timeout, or the disk had no room
    ///   (``unavailable(_:)``); other `SQLiteError`s.
    public func write<T: Sendable>(_ body: @Sendable (any PermissionWriter) throws -> T) throws -> T {
        do {
            return try pool.write { database in try body(StoreSession(database: database, shared: writerShared)) }
        } catch let error as SQLiteError {
            throw Self.unavailable(error) ?? error
        }
    }

    /// The refusal a write's `SQLiteError` is to its caller when waiting may end it: a lock held
    /// past the busy timeout, or a full disk (a 503 the client may retry, not a 500; the log
    /// names the cause for the operator, who must make room). Nil for any other error.
    static func unavailable(_ error: SQLiteError) -> PermissionError? {
        if error.isBusy { return .unavailable(why: error.message) }
        if error.isFull { return .unavailable(why: "the database's disk is full", cause: error.message) }
        return nil
    }
}

extension SQLitePermissionStore: SubmittingPermissionStore {
    /// - Parameters:
    ///   - body: as ``write(_:)``'s.
    ///   - completion: the result, or what ``write(_:)`` would throw (``PermissionError/unavailable(why:cause:)``
    ///     for a lock another process held past the busy timeout); on the writer's queue.
    public func submit<T: Sendable>(
        _ body: @escaping @Sendable (any PermissionWriter) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let shared = writerShared
        pool.writer.submit({ database in try body(StoreSession(database: database, shared: shared)) }) { result in
            completion(
                result.mapError { error in
                    if let error = error as? SQLiteError, let refusal = Self.unavailable(error) { return refusal }
                    return error
                })
        }
    }
}
