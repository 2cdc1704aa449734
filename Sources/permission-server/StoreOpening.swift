import ArgumentParser
import AuditKeys
import Foundation
import Logging
internal import Ownership
import PermissionDomain
import PostgresStore
import SQLiteStore

/// Opening and closing the database for the subcommands, with the refusals logged clearly.
enum StoreOpening {
    /// Opens the store at `path`, applying pending migrations, with a read cache of
    /// `readCacheEntries` entries (0: none, as the short-lived subcommands use it).
    /// - Throws: `ExitCode` 65 (EX_DATAERR) when the database is newer than this program, 1
    ///   when it cannot be opened; the reason is logged first.
    /// `emptyingLeftoverLog`: see ``SQLitePermissionStore/open(path:configuration:keyring:readCacheEntries:emptyingLeftoverLog:migrationProgress:)`` (`serve`).
    static func open(
        path: String, keys: AuditKeySettings, readCacheEntries: Int = 0, emptyingLeftoverLog: Bool = false, logger: Logger
    ) throws -> SQLitePermissionStore {
        try refuseUnopenable(path, logger: logger)
        return try reportingPrivateFiles(path, logger: logger) {
            let (keyring, createdKeyFile) = try AuditKeyLoading.keyring(sqlite: path, settings: keys, logger: logger)
            do {
                let store = try SQLitePermissionStore.open(
                    path: path, keyring: keyring, readCacheEntries: readCacheEntries, emptyingLeftoverLog: emptyingLeftoverLog
                ) { message, done, total in
                    logger.info("\(message)", metadata: ["done": "\(done)", "total": "\(total)"])
                }
                logApplied(store.appliedMigrations, known: SQLitePermissionStore.knownMigrations.count, database: path, logger)
                return store
            } catch let error as MigrationError {
                logger.critical("refusing to start: \(error)", metadata: ["database": "\(path)"])
                throw ExitCode(ExitCodes.dataError)
            } catch let error as AuditKeyError {
                if let createdKeyFile { AuditKeyLoading.forget(createdFile: createdKeyFile, logger: logger) }
                logger.critical("refusing to open the database: \(error)", metadata: ["database": "\(path)"])
                throw ExitCode(ExitCodes.configuration)
            } catch {
                logger.critical("cannot open the database: \(error)", metadata: ["database": "\(path)"])
                throw ExitCode.failure
            }
        }
    }

    /// Says what opening a database migrated: every command and `serve` apply pending
    /// migrations, and the previous version refuses to start on a database migrated past it
    /// (rolling back means restoring a backup). A new database's schema is one line.
    private static func logApplied(_ applied: [String], known: Int, database: String, _ logger: Logger) {
        guard !applied.isEmpty else { return }
        if applied.count == known {
            logger.info("made the database's schema", metadata: ["database": "\(database)", "migrations": "\(known)"])
            return
        }
        for id in applied {
            logger.notice(
                "applied a migration: a previous version refuses to start on this database now",
                metadata: ["database": "\(database)", "migration": "\(id)"])
        }
    }

    /// Exits 73 (EX_CANTCREAT) when `path` names something that is not a database file this
    /// process may read and write: a directory, a file without the permission, or (`writing`) a
    /// file in a directory this process may not create files in while SQLite has to make the
    /// database, its `-wal` or its `-shm` there (https://www.sqlite.org/tempfiles.html). (A
    /// missing file is made, with a missing directory, by the store.) The reason is logged first.
    static func refuseUnopenable(_ path: String, writing: Bool = true, logger: Logger) throws {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists, isDirectory.boolValue {
            logger.critical("cannot open the database: the path is a directory", metadata: ["database": "\(path)"])
            throw ExitCode(ExitCodes.cannotCreate)
        }
        // access(2), not open(2): closing a descriptor of the file would drop every POSIX lock
        // this process holds on it, SQLite's included.
        if exists, access(path, writing ? R_OK | W_OK : R_OK) != 0 {
            logger.critical(
                "cannot open the database: \(String(cString: strerror(errno)))", metadata: ["database": "\(path)"])
            throw ExitCode(ExitCodes.cannotCreate)
        }
        guard writing else { return }
        let parent = (path as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        let files = FileManager.default
        let makes = !exists || !files.fileExists(atPath: path + "-wal") || !files.fileExists(atPath: path + "-shm")
        guard makes, files.fileExists(atPath: directory), access(directory, W_OK | X_OK) != 0 else { return }
        logger.critical(
            """
            cannot open the database: its directory is not writable (\(String(cString: strerror(errno)))); SQLite \
            creates the database's -wal and -shm files beside it, so the user the server runs as must be able to \
            create files in that directory, not only write the database file
            """,
            metadata: ["database": "\(path)", "directory": "\(directory)"])
        throw ExitCode(ExitCodes.cannotCreate)
    }

    /// Runs `body`, which opens (or migrates) the database file at `path`, and logs one
    /// `notice` for each of its files (the database, `-wal`, `-shm`) that was readable or
    /// writable by others and no longer is: the store makes them private, and says so.
    static func reportingPrivateFiles<T>(_ path: String, logger: Logger, _ body: () throws -> T) rethrows -> T {
        // The modes as the operator left them, before anything here opens the file (the key
        // check reads it, and SQLite makes its -wal and -shm with the file's mode).
        let files = [path, path + "-wal", path + "-shm"]
        let before = files.map(mode)
        defer {
            for (file, was) in zip(files, before) {
                guard let was, was & 0o077 != 0, let now = mode(file), now != was else { continue }
                logger.notice(
                    "the database's file was readable or writable by others; made it private to its owner",
                    metadata: ["file": "\(file)", "was": "\(String(was, radix: 8))", "now": "\(String(now, radix: 8))"])
            }
        }
        return try body()
    }

    /// Opens the store `location` names (SQLite: ``open(path:readCacheEntries:logger:)``;
    /// PostgreSQL: ``openPostgres(_:migrating:logger:)``), for the short-lived subcommands.
    static func open(_ location: DatabaseLocation, keys: AuditKeySettings, logger: Logger) throws -> any PermissionStore {
        switch location {
        case .sqlite(let path): try open(path: path, keys: keys, logger: logger)
        case .postgres(let connectionString): try openPostgres(connectionString, keys: keys, logger: logger)
        }
    }

    /// Logs a migration that gave up waiting for a lock and tries again
    /// (``PostgresPermissionStore/MigrationWaiting``).
    static func migrationWaiting(database: String, _ logger: Logger) -> PostgresPermissionStore.MigrationWaiting {
        { migration, failed, attempts in
            logger.warning(
                "a migration waited for a lock another transaction holds (a replica's long read, an export); it stepped back so that the statements queued behind it run, and tries again",
                metadata: [
                    "database": "\(database)", "migration": "\(migration)", "attempt": "\(failed)",
                    "attempts": "\(attempts)",
                ])
        }
    }

    /// Connects to the PostgreSQL database `connectionString` names, applying pending
    /// migrations unless `migrating` is false (then they must be applied already). Logs and
    /// errors show the connection string redacted only.
    /// - Throws: `ExitCode` 65 (EX_DATAERR) when the database is newer than this program (or
    ///   not migrated, when not migrating), 78 (EX_CONFIG) for an audit server key that is not
    ///   the database's, 69 (EX_UNAVAILABLE) when it cannot be reached or refuses the login
    ///   (worth retrying, as for a file another server holds), 1 for any other failure; the
    ///   reason is logged first.
    /// - Parameters:
    ///   - poolSize: pooled connections (the subcommands need two at most).
    ///   - readModel: for `serve`: the read model's options.
    static func openPostgres(
        _ connectionString: String, keys: AuditKeySettings, migrating: Bool = true, poolSize: Int = 2,
        readModel: PostgresPermissionStore.ReadModelOptions? = nil, retryingFor: Duration = .zero, logger: Logger
    ) throws -> PostgresPermissionStore {
        let keyring = try AuditKeyLoading.keyring(postgres: keys, logger: logger)
        return try openPostgres(
            connectionString, keyring: keyring, migrating: migrating, poolSize: poolSize, readModel: readModel,
            retryingFor: retryingFor, logger: logger)
    }

    /// ``openPostgres(_:keys:migrating:poolSize:readModel:logger:)`` with the keyring given.
    /// - Parameter retryingFor: how long to keep trying while the database cannot be reached
    ///   or refuses the login (`serve`'s `--database-start-timeout`): each failure is logged as
    ///   a warning and tried again after 1, 2, 4, then every 5 seconds; zero tries once.
    static func openPostgres(
        _ connectionString: String, keyring: AuditKeyring?, migrating: Bool = true, poolSize: Int = 2,
        readModel: PostgresPermissionStore.ReadModelOptions? = nil, checkingServerKey: Bool = true,
        retryingFor: Duration = .zero, logger: Logger
    ) throws -> PostgresPermissionStore {
        let redacted = ConnectionString.redacted(connectionString)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: retryingFor)
        var pause = Duration.seconds(1)
        do {
            var opened: PostgresPermissionStore?
            while opened == nil {
                do {
                    opened = try PostgresPermissionStore.open(
                        connectionString: connectionString, keyring: keyring, poolSize: poolSize, migrating: migrating,
                        readModel: readModel, checkingServerKey: checkingServerKey,
                        migrationWaiting: migrationWaiting(database: redacted, logger))
                } catch let error as PostgresError where error.isConnectionFailure && clock.now < deadline {
                    // The last try is at the deadline.
                    let wait = min(pause, clock.now.duration(to: deadline))
                    let message = ConnectionString.scrub("\(error)", passwordsOf: connectionString)
                    logger.warning(
                        "cannot reach the database yet; trying again",
                        metadata: [
                            "database": "\(redacted)", "error": "\(message)",
                            "retry-in": "\(Self.seconds(wait))s",
                            "gives-up-in": "\(Self.seconds(clock.now.duration(to: deadline)))s",
                        ])
                    Thread.sleep(forTimeInterval: Self.seconds(wait))
                    pause = min(pause * 2, .seconds(5))
                }
            }
            guard let store = opened else { preconditionFailure("the loop ends with a store") }
            logApplied(
                store.appliedMigrations, known: PostgresPermissionStore.knownMigrations.count, database: redacted, logger)
            return store
        } catch let error as MigrationError {
            logger.critical("refusing to open the database: \(error)", metadata: ["database": "\(redacted)"])
            throw ExitCode(ExitCodes.dataError)
        } catch let error as AuditKeyError {
            logger.critical("refusing to open the database: \(error)", metadata: ["database": "\(redacted)"])
            throw ExitCode(ExitCodes.configuration)
        } catch {
            let message = ConnectionString.scrub("\(error)", passwordsOf: connectionString)
            logger.critical("cannot open the database: \(message)", metadata: ["database": "\(redacted)"])
            throw exitCode(openingPostgres: error)
        }
    }

    /// `duration` in seconds, to the millisecond.
    private static func seconds(_ duration: Duration) -> Double {
        (duration.inSeconds * 1000).rounded() / 1000
    }

    /// The exit status of a command that failed to open or migrate a PostgreSQL database with
    /// `error`: 69 (EX_UNAVAILABLE) when the database cannot be reached or refuses the login,
    /// which is worth retrying (a replica that starts before its database, a password being
    /// rotated), as a file another server holds is; 1 for anything else.
    static func exitCode(openingPostgres error: any Error) -> ExitCode {
        guard let error = error as? PostgresError else { return .failure }
        // A lock a migration never got (``PostgresPermissionStore/MigrationWaiting``): later.
        return error.isConnectionFailure || error.sqlState == "55P03" ? ExitCode(ExitCodes.unavailable) : .failure
    }

    /// The permission bits of `file`, or nil when it does not exist.
    private static func mode(_ file: String) -> Int? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o7777)
    }

    /// Checkpoints the write-ahead log into the database file (https://www.sqlite.org/wal.html,
    /// "Checkpointing") so that the file alone is complete after a clean stop, then closes every
    /// connection, the writer last: SQLite then deletes the empty `-wal` and the `-shm` file,
    /// and the database is one file again. Call it after the last request.
    ///
    /// Another process reading the file at that moment (a `backup`, `audit verify`, `sqlite3`)
    /// blocks the checkpoint for the busy timeout and keeps the `-wal` after the close: it then
    /// holds committed writes, and a warning says it must stay with the file.
    static func close(_ store: SQLitePermissionStore, logger: Logger) {
        // Idle readers keep their read transaction open between reads; a TRUNCATE checkpoint
        // would wait the whole busy timeout for them. End those snapshots first.
        store.pool.readers.didCommit()
        // One row (https://www.sqlite.org/pragma.html#pragma_wal_checkpoint): whether another
        // process kept it from completing (1), the frames in the log, the frames copied back.
        let result: (blocked: Bool, frames: Int64, copied: Int64)
        do {
            result = try store.pool.writeWithoutTransaction { database in
                try database.withStatement("PRAGMA wal_checkpoint(TRUNCATE)") { row in
                    try row.step() ? (row.int64(at: 0) != 0, row.int64(at: 1), row.int64(at: 2)) : (true, -1, -1)
                }
            }
        } catch {
            store.pool.close()
            logger.warning(
                "checkpoint at shutdown failed; the WAL will be replayed at the next open",
                metadata: ["error": "\(error)", "wal": "\(store.path)-wal"])
            return
        }
        store.pool.close()
        // Blocked by a reader of the newest snapshot, every frame is in the file all the same;
        // and the close checkpoints again when no other process has the file open any more.
        var log = stat()
        let logLeft = stat(store.path + "-wal", &log) == 0 && log.st_size > 0
        if !result.blocked || result.copied == result.frames || !logLeft {
            logger.info("database checkpointed and closed", metadata: ["database": "\(store.path)"])
            return
        }
        logger.warning(
            """
            the checkpoint at shutdown was blocked by another process reading the database: its -wal holds \
            committed writes and must stay beside the database file (copy, move or restore them together); the \
            next open replays it
            """,
            metadata: [
                "database": "\(store.path)", "wal": "\(store.path)-wal", "wal-bytes": "\(log.st_size)",
                "frames": "\(result.frames)", "copied": "\(result.copied)",
            ])
    }
}
