internal import CSQLite
import Foundation

/// Online backup (https://www.sqlite.org/backup.html).
extension DatabasePool {
    /// Progress of a backup, in pages.
    package struct BackupProgress: Sendable, Equatable {
        /// Pages copied so far.
        package var copied: Int
        /// Pages in the source database.
        package var total: Int
    }

    /// Copies the database to `destination` while it keeps serving.
    ///
    /// The copy is taken from a reader that holds one read transaction for the whole backup,
    /// so it is a consistent snapshot even though the writer keeps committing (WAL readers do not
    /// block the writer). Pages are copied `pagesPerStep` at a time with `sqlite3_backup_step`,
    /// reporting progress after each step. The copy is written next to `destination` and
    /// renamed over it when complete, so a failed backup never leaves a partial file there.
    /// - Parameters:
    ///   - destination: the file to create or replace.
    ///   - pagesPerStep: pages per `sqlite3_backup_step` call.
    ///   - progress: called after each step (for logging large databases).
    package func backup(
        to destination: String, pagesPerStep: Int32 = 4_096, progress: ((BackupProgress) -> Void)? = nil
    ) throws {
        let temporary = destination + ".partial"
        try removeFiles(at: temporary)
        try read { source in
            // The read transaction `read` opened pins one snapshot for every step; reading
            // the schema makes sure it has started.
            try source.withStatement("SELECT count(*) FROM sqlite_schema") { _ = try $0.step() }
            let target = try Database(path: temporary, mode: .readWrite, configuration: configuration)
            try copy(from: source, to: target, pagesPerStep: pagesPerStep, progress: progress)
            try target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try removeFiles(at: destination)
        do {
            try FileManager.default.moveItem(atPath: temporary, toPath: destination)
        } catch {
            throw SQLiteError.cannotOpen("cannot move backup into place: \(error)")
        }
    }

    private func copy(
        from source: Database, to target: Database, pagesPerStep: Int32, progress: ((BackupProgress) -> Void)?
    ) throws {
        guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
            throw SQLiteError(connection: target.handle, resultCode: sqlite3_errcode(target.handle), sql: nil)
        }
        var code = SQLITE_OK
        repeat {
            code = sqlite3_backup_step(backup, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(backup))
            progress?(BackupProgress(copied: total - Int(sqlite3_backup_remaining(backup)), total: total))
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        if code != SQLITE_DONE {
            throw SQLiteError(connection: target.handle, resultCode: code, sql: nil)
        }
        try target.check(finish, sql: nil)
    }

    private func removeFiles(at path: String) throws {
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            do {
                try FileManager.default.removeItem(atPath: file)
            } catch {
                throw SQLiteError.cannotOpen("cannot remove \(file): \(error)")
            }
        }
    }
}
