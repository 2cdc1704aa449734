import ArgumentParser
import Logging
import SQLiteStore

/// Opening and closing the database for the subcommands, with the refusals logged clearly.
enum StoreOpening {
    /// Opens the store at `path`, applying pending migrations, with a read cache of
    /// `readCacheEntries` entries (0: none, as the short-lived subcommands use it).
    /// - Throws: `ExitCode` 65 (EX_DATAERR) when the database is newer than this program, 1
    ///   when it cannot be opened; the reason is logged first.
    static func open(path: String, readCacheEntries: Int = 0, logger: Logger) throws -> SQLitePermissionStore {
        do {
            return try SQLitePermissionStore.open(path: path, readCacheEntries: readCacheEntries) { message, done, total in
                logger.info("\(message)", metadata: ["done": "\(done)", "total": "\(total)"])
            }
        } catch let error as MigrationError {
            logger.critical("refusing to start: \(error)", metadata: ["database": "\(path)"])
            throw ExitCode(ExitCodes.dataError)
        } catch {
            logger.critical("cannot open the database: \(error)", metadata: ["database": "\(path)"])
            throw ExitCode.failure
        }
    }

    /// Checkpoints the write-ahead log into the database file (https://www.sqlite.org/wal.html,
    /// "Checkpointing") so that the file alone is complete after a clean stop, then closes every
    /// connection, the writer last: SQLite then deletes the empty `-wal` and the `-shm` file,
    /// and the database is one file again. Call it after the last request.
    static func close(_ store: SQLitePermissionStore, logger: Logger) {
        // Idle readers keep their read transaction open between reads; a TRUNCATE checkpoint
        // would wait the whole busy timeout for them. End those snapshots first.
        store.pool.readers.didCommit()
        do {
            try store.pool.writeWithoutTransaction { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
            store.pool.close()
            logger.info("database checkpointed and closed", metadata: ["database": "\(store.path)"])
        } catch {
            store.pool.close()
            logger.warning("checkpoint at shutdown failed; the WAL will be replayed at the next open",
                metadata: ["error": "\(error)"])
        }
    }
}
